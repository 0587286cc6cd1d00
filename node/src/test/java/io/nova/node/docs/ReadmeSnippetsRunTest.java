package io.nova.node.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import io.nova.node.testing.LocalCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that the README's three Java client snippets run as a reader would run them, one after the
 * other on the same stream, against a real 3-node cluster (their endpoints swapped for the cluster's):
 * the first creates the stream, appends, loses nothing to its fence, the second writes through a
 * Producer and its tailing read ends, the third chains asynchronous calls and sees a typed miss; and that the README's command to run them puts the CLI's logging
 * configuration on the class path (without it Logback prints every DEBUG line of gRPC and Netty).
 */
class ReadmeSnippetsRunTest {

  /** A line of the test logging configuration's pattern: {@code HH:mm:ss.SSS LEVEL ...}. */
  private static final java.util.regex.Pattern LOG_LINE =
      java.util.regex.Pattern.compile("\\d{2}:\\d{2}:\\d{2}\\.\\d{3} +(TRACE|DEBUG|INFO|WARN|ERROR) .*");

  private static final Path README = ReadmeSnippets.README;
  private static final String README_ENDPOINTS = ReadmeSnippets.README_ENDPOINTS;

  @TempDir Path dir;

  @Test
  @Timeout(180)
  void theClientSnippetsRunOneAfterTheOther() throws Exception {
    List<String> snippets = ReadmeSnippets.clientSnippets();
    assertThat(snippets).as("the README's Java client snippets").hasSize(3);
    try (LocalCluster cluster = LocalCluster.start(dir.resolve("cluster"), 3, 2);
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints()).build()) {
      client.createBasin("demo");
      Path classes = Files.createDirectories(dir.resolve("classes"));
      List<String> printed = new ArrayList<>();
      for (int i = 0; i < snippets.size(); i++) {
        assertThat(snippets.get(i)).contains(README_ENDPOINTS);
        String className = "ReadmeSnippet" + i;
        printed.addAll(run(ReadmeSnippets.asClass(snippets.get(i), className, cluster.endpoints()), className, classes));
      }
      // The second snippet prints its ack's start, then the last 3 records; the third where its conditional
      // append landed, then the tail its stale one missed.
      assertThat(printed).endsWith("next", "owned", "a", "landed at 4", "tail is 5");
      List<String> bodies = client.read(StreamAddress.parse("nova://demo/events"), ReadOptions.defaults()).records().stream()
          .map(r -> new String(r.body(), StandardCharsets.UTF_8)).toList();
      assertThat(bodies).containsExactly("hello", "next", "owned", "a", "async");
    }
  }

  @Test
  void theRunCommandPutsTheCliLoggingConfigurationBeforeTheLibraries() throws Exception {
    List<String> runs = Files.readAllLines(README).stream().filter(l -> l.startsWith("java -cp ")).toList();
    assertThat(runs).as("the README says how to run a client program").isNotEmpty();
    for (String run : runs) {
      assertThat(run).contains("cli/target/nova-cli.jar:cli/target/lib/*");
    }
    assertThat(Files.exists(Path.of("..", "cli", "src", "main", "resources", "logback.xml")))
        .as("nova-cli.jar carries logback.xml").isTrue();
  }

  /** Compiles a snippet's class, runs it and returns what it printed. */
  private static List<String> run(String source, String className, Path classes) throws Exception {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    JavaFileObject unit = new SimpleJavaFileObject(URI.create("string:///" + className + ".java"),
        JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
      }
    };
    boolean compiled = javac.getTask(null, null, diagnostics, List.of("-classpath",
        System.getProperty("java.class.path"), "-d", classes.toString(), "-proc:none"), null, List.of(unit)).call();
    assertThat(compiled).as("%s", diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR).map(d -> d.getMessage(Locale.ROOT)).toList()).isTrue();
    PrintStream stdout = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
        ReadmeSnippetsRunTest.class.getClassLoader())) {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      loader.loadClass(className).getMethod("run").invoke(null);
    } finally {
      System.setOut(stdout);
    }
    // The in-JVM cluster logs to the same System.out from its own threads (e.g. a placement adopted while
    // the snippet ran): only the snippet's own lines count.
    return captured.toString(StandardCharsets.UTF_8).lines().filter(line -> !LOG_LINE.matcher(line).matches())
        .toList();
  }
}
