package io.nova.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves that every {@code ```java} block of README.md and docs/**.md compiles against the client as a
 * reader would paste it, so a snippet that stops compiling (a renamed method, a missing import, a
 * variable declared twice) fails the build, and that the harness itself catches a broken one.
 *
 * <p>The convention (also in docs/testing.md): a block that declares a top-level type (a line starting
 * with {@code class}, {@code record}, {@code interface}, {@code enum}, optionally {@code public} or
 * {@code final}) is a whole compilation unit. Any other block is the body of a method that
 * {@code throws Exception}, with its {@code import} lines at the top of the block; it must declare every
 * variable it uses (no block relies on another).
 */
class DocSnippetsCompileTest {

  private static final Path ROOT = Path.of("..");
  private static final Pattern TYPE = Pattern.compile("^(public |final |abstract )*(class|record|interface|enum) ");

  @TempDir
  Path classes;

  /** One block: where it is (file and line of its first code line) and its text. */
  record Snippet(String file, int firstLine, List<String> lines) {
    @Override
    public String toString() {
      return file + ":" + firstLine;
    }
  }

  static Stream<Snippet> snippets() {
    List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files.stream().flatMap(DocSnippetsCompileTest::blocks);
  }

  private static Stream<Snippet> blocks(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Snippet> found = new ArrayList<>();
    String name = ROOT.relativize(file).toString();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals("```java")) {
        int end = i + 1;
        while (end < lines.size() && !lines.get(end).strip().equals("```")) {
          end++;
        }
        found.add(new Snippet(name, i + 2, lines.subList(i + 1, end)));
        i = end;
      }
    }
    return found.stream();
  }

  @Test
  void theReadmeAndTheDocsHaveJavaSnippets() {
    List<Snippet> all = snippets().toList();
    assertThat(all).as("java blocks found").hasSizeGreaterThanOrEqualTo(4);
    assertThat(all).extracting(Snippet::file).contains("README.md");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("snippets")
  void everySnippetCompilesAgainstTheClient(Snippet snippet) {
    assertThat(compile(snippet)).as("compiler errors of the java block at " + snippet).isEmpty();
  }

  @Test
  void aSnippetThatDoesNotCompileIsCaught() {
    Snippet broken = new Snippet("broken.md", 10, List.of("import io.nova.client.NovaClient;", "",
        "NovaClient client = NovaClient.builder().build();", "NovaClient client = null;"));
    assertThat(compile(broken)).singleElement().asString().startsWith("broken.md:13: ").contains("already defined");
    Snippet noImport = new Snippet("broken.md", 1, List.of("StreamAddress a = StreamAddress.parse(\"nova://b/s\");"));
    assertThat(compile(noImport)).isNotEmpty();
  }

  /** Compiles one block; the errors, each as {@code file:line: message} with the line in the file. */
  private List<String> compile(Snippet snippet) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertThat(javac).as("a JDK compiler (tests run on a JDK, not a JRE)").isNotNull();
    Source source = Source.of(snippet);
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-d", classes.toString(),
        "-proc:none", "-implicit:none");
    javac.getTask(null, null, diagnostics, options, null, List.of(source)).call();
    return diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
        .map(d -> snippet.file() + ":" + (snippet.firstLine() - 1 + source.blockLine(d.getLineNumber())) + ": "
            + d.getMessage(Locale.ROOT))
        .collect(Collectors.toList());
  }

  /**
   * A block as an in-memory compilation unit: as it is when it declares a type, else its imports followed
   * by a class whose one method's body is the rest of the block.
   */
  private static final class Source extends SimpleJavaFileObject {
    private final String text;
    /** Lines of the block before the wrapper's first line; Integer.MAX_VALUE when nothing is wrapped. */
    private final int headLines;

    private Source(String className, String text, int headLines) {
      super(URI.create("string:///" + className + Kind.SOURCE.extension), Kind.SOURCE);
      this.text = text;
      this.headLines = headLines;
    }

    static Source of(Snippet snippet) {
      List<String> lines = snippet.lines();
      if (lines.stream().anyMatch(line -> TYPE.matcher(line).find())) {
        String text = String.join("\n", lines) + "\n";
        String declared = text.replaceAll("(?s).*?\\b(?:class|record|interface|enum)\\s+(\\w+).*", "$1");
        return new Source(declared, text, Integer.MAX_VALUE);
      }
      int head = 0;
      while (head < lines.size() && (lines.get(head).startsWith("import ") || lines.get(head).isBlank())) {
        head++;
      }
      String className = "Snippet_" + snippet.file().replaceAll("[^A-Za-z0-9]", "_") + "_" + snippet.firstLine();
      StringBuilder text = new StringBuilder();
      lines.subList(0, head).forEach(line -> text.append(line).append('\n'));
      text.append("final class ").append(className).append(" { static void snippet() throws Exception {\n");
      lines.subList(head, lines.size()).forEach(line -> text.append(line).append('\n'));
      text.append("} }\n");
      return new Source(className, text.toString(), head);
    }

    /** The 1-based line of the block that the compiler's line {@code line} of this unit holds. */
    long blockLine(long line) {
      return line <= headLines ? line : line - 1;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }
  }
}
