package io.nova.cli.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Which Nova module a compiled class comes from, and which Nova modules a module's POM declares, for the
 * layering tests. A class's module is read off where it was loaded from: a reactor build's
 * {@code <module>/target/classes} or an installed {@code nova-<module>-<version>.jar}.
 */
final class ModuleOf {
  private static final Pattern CLASSES_DIR = Pattern.compile("/([a-z-]+)/target/classes/");
  private static final Pattern JAR = Pattern.compile("/(nova-[a-z-]+?)-\\d[^/]*\\.jar");
  /** A non-test dependency on a Nova module in a POM (scope test is excluded by the lookahead). */
  private static final Pattern DEPENDENCY = Pattern.compile(
      "<dependency>\\s*<groupId>io\\.nova</groupId>\\s*<artifactId>(nova-[a-z-]+)</artifactId>"
          + "(?:(?!</dependency>).)*</dependency>", Pattern.DOTALL);
  private static final Map<String, Set<String>> DECLARED = new HashMap<>();

  private ModuleOf() {}

  /** The artifact id ({@code nova-gateway}) of the module {@code javaClass} was compiled in, if a Nova one. */
  static Optional<String> artifact(JavaClass javaClass) {
    return javaClass.getSource().map(source -> source.getUri().toString()).flatMap(uri -> {
      Matcher dir = CLASSES_DIR.matcher(uri);
      if (dir.find()) {
        return Optional.of("nova-" + dir.group(1));
      }
      Matcher jar = JAR.matcher(uri);
      return jar.find() ? Optional.of(jar.group(1)) : Optional.empty();
    });
  }

  /** The Nova modules {@code artifact}'s POM declares outside the test scope (read from the source tree). */
  static synchronized Set<String> declaredNovaDependencies(String artifact) {
    return DECLARED.computeIfAbsent(artifact, a -> {
      Path pom = Path.of("..", a.substring("nova-".length()), "pom.xml");
      try {
        String xml = Files.readString(pom);
        Matcher m = DEPENDENCY.matcher(xml);
        return m.results().filter(r -> !r.group().contains("<scope>test</scope>"))
            .map(r -> r.group(1)).collect(Collectors.toSet());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + pom.toAbsolutePath() + " to check " + a + "'s dependencies", e);
      }
    });
  }
}
