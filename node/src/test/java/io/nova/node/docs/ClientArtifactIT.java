package io.nova.node.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import io.nova.node.testing.LocalCluster;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that a Maven project depending on the nova-client artifact alone, resolved from a repository
 * that holds what this build produced, compiles the README's Java client snippets and runs them, in a JVM
 * of their own whose class path is that project's, against a real 3-node cluster; that nothing of the
 * server reaches that class path; and that the jar carries the licence and its automatic module name.
 *
 * <p>Needs the reactor's {@code pre-integration-test} phase (maven-invoker-plugin's {@code install} puts the
 * artifacts in {@code target/it-repo}), so it is a failsafe test, part of {@code mvn verify}.
 */
class ClientArtifactIT {

  private static final Path IT_REPO = Path.of(System.getProperty("nova.it.repo", "target/it-repo")).toAbsolutePath();
  private static final String VERSION = System.getProperty("nova.it.version", "0.1.0-SNAPSHOT");
  /** Anything of these on the consumer's class path means the client drags the server along. */
  private static final List<String> SERVER_ARTIFACTS = List.of("nova-node", "nova-gateway", "nova-cluster-core",
      "nova-statemachine", "ratis-", "rocksdbjni");

  @TempDir Path dir;

  @Test
  @Timeout(600)
  void aProjectDependingOnTheClientAloneCompilesAndRunsTheReadmeSnippets() throws Exception {
    Path clientJar = IT_REPO.resolve("io/nova/nova-client/" + VERSION + "/nova-client-" + VERSION + ".jar");
    assertThat(clientJar).as("the client this build made, installed under target by maven-invoker-plugin "
        + "(run through mvn verify)").exists();
    try (JarFile jar = new JarFile(clientJar.toFile())) {
      Manifest manifest = jar.getManifest();
      assertThat(manifest.getMainAttributes().getValue("Automatic-Module-Name")).isEqualTo("io.nova.client");
      assertThat(jar.getEntry("META-INF/LICENSE")).as("the licence in the jar").isNotNull();
      try (InputStream installed = jar.getInputStream(jar.getEntry("io/nova/client/NovaClient.class"));
          InputStream tested = NovaClient.class.getResourceAsStream("NovaClient.class")) {
        assertThat(installed.readAllBytes()).as("the installed jar holds this build's client, not an older copy")
            .isEqualTo(tested.readAllBytes());
      }
    }
    List<String> snippets = ReadmeSnippets.clientSnippets();
    assertThat(snippets).as("the README's Java client snippets").isNotEmpty();
    try (LocalCluster cluster = LocalCluster.start(dir.resolve("cluster"), 3, 2);
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints()).build()) {
      client.createBasin("demo");
      Path project = writeConsumerProject(dir.resolve("consumer"), snippets, cluster.endpoints());
      run(project, mavenCommand(project), "the consumer's Maven build");

      List<String> classPath = Arrays.asList(Files.readString(project.resolve("target/classpath.txt")).strip()
          .split(File.pathSeparator));
      assertThat(classPath).anySatisfy(entry -> assertThat(entry).endsWith("nova-client-" + VERSION + ".jar"));
      assertThat(classPath).allSatisfy(entry -> {
        assertThat(Path.of(entry).toAbsolutePath()).as("resolved from the test repository").startsWith(IT_REPO);
        assertThat(SERVER_ARTIFACTS).noneSatisfy(server -> assertThat(Path.of(entry).getFileName().toString())
            .startsWith(server));
      });

      String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      String runClassPath = project.resolve("target/classes") + File.pathSeparator + String.join(
          File.pathSeparator, classPath);
      List<String> printed = run(project, List.of(javaBin, "-cp", runClassPath, "RunReadme"), "the snippets' JVM");
      assertThat(printed).contains("README snippets ran: " + snippets.size());
      List<String> bodies = client.read(StreamAddress.parse("nova://demo/events"), ReadOptions.defaults()).records()
          .stream().map(r -> new String(r.body(), StandardCharsets.UTF_8)).toList();
      assertThat(bodies).startsWith("hello", "next", "owned", "a");
    }
  }

  /** A Maven project that depends on nova-client alone, with each snippet as a class and a main that runs them. */
  private static Path writeConsumerProject(Path project, List<String> snippets, String endpoints) throws IOException {
    Path sources = Files.createDirectories(project.resolve("src/main/java"));
    StringBuilder main = new StringBuilder("public final class RunReadme {\n"
        + "  public static void main(String[] args) throws Exception {\n");
    for (int i = 0; i < snippets.size(); i++) {
      String className = "ReadmeSnippet" + i;
      Files.writeString(sources.resolve(className + ".java"), ReadmeSnippets.asClass(snippets.get(i), className,
          endpoints));
      main.append("    ").append(className).append(".run();\n");
    }
    main.append("    System.out.println(\"README snippets ran: ").append(snippets.size()).append("\");\n  }\n}\n");
    Files.writeString(sources.resolve("RunReadme.java"), main);
    Files.writeString(project.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>io.nova.it</groupId>
          <artifactId>readme-consumer</artifactId>
          <version>1</version>
          <properties>
            <maven.compiler.release>17</maven.compiler.release>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
          </properties>
          <dependencies>
            <dependency>
              <groupId>io.nova</groupId>
              <artifactId>nova-client</artifactId>
              <version>%s</version>
            </dependency>
          </dependencies>
          <build>
            <plugins>
              <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-compiler-plugin</artifactId>
                <version>3.14.1</version>
              </plugin>
              <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-resources-plugin</artifactId>
                <version>3.3.1</version>
              </plugin>
              <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-dependency-plugin</artifactId>
                <version>3.8.1</version>
              </plugin>
            </plugins>
          </build>
        </project>
        """.formatted(VERSION));
    // Every remote (central and plugins) is the user's local repository read as a plain file remote: no
    // network, and nothing is written there. Central has snapshots off, so Nova's come from IT_REPO only.
    String userRepo = Path.of(System.getProperty("nova.it.userRepo",
        Path.of(System.getProperty("user.home"), ".m2", "repository").toString())).toUri().toString();
    Files.writeString(project.resolve("settings.xml"), """
        <settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
          <mirrors>
            <mirror>
              <id>local-files</id>
              <mirrorOf>*</mirrorOf>
              <url>%s</url>
            </mirror>
          </mirrors>
        </settings>
        """.formatted(userRepo));
    return project;
  }

  private static List<String> mavenCommand(Path project) {
    String home = System.getProperty("nova.it.mavenHome", System.getProperty("maven.home", ""));
    String mvn = home.isEmpty() ? "mvn" : Path.of(home, "bin", "mvn").toString();
    return List.of(mvn, "-B", "-q", "-s", project.resolve("settings.xml").toString(),
        "-Dmaven.repo.local=" + IT_REPO, "compile", "dependency:build-classpath",
        "-Dmdep.outputFile=" + project.resolve("target/classpath.txt"), "-Dmdep.includeScope=runtime");
  }

  /** Runs {@code command} in {@code workDir} for at most 5 minutes; fails with its output unless it exits 0. */
  private static List<String> run(Path workDir, List<String> command, String what) throws Exception {
    Path output = Files.createTempFile(workDir, "out", ".txt");
    Process process = new ProcessBuilder(new ArrayList<>(command)).directory(workDir.toFile())
        .redirectErrorStream(true).redirectOutput(output.toFile()).start();
    boolean exited = process.waitFor(5, TimeUnit.MINUTES);
    if (!exited) {
      process.destroyForcibly();
    }
    List<String> printed = Files.readAllLines(output, StandardCharsets.UTF_8);
    assertThat(exited && process.exitValue() == 0).as("%s (%s) ended well; it printed:%n%s", what,
        String.join(" ", command), String.join("\n", printed)).isTrue();
    return printed;
  }
}
