package io.nova.node.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The README's Java client snippets, and each one as a class a reader could compile. */
final class ReadmeSnippets {

  static final Path README = Path.of("..", "README.md");
  /** The endpoints the snippets name: those of {@code ./nova dev}; tests swap in their cluster's. */
  static final String README_ENDPOINTS = "127.0.0.1:7701,127.0.0.1:7702";

  private ReadmeSnippets() {}

  /** The Java blocks of the README's section on the client, in order. */
  static List<String> clientSnippets() throws IOException {
    List<String> lines = Files.readAllLines(README, StandardCharsets.UTF_8);
    List<String> blocks = new ArrayList<>();
    boolean inSection = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("## ")) {
        inSection = line.equals("## Using the Java client");
      } else if (inSection && line.strip().equals("```java")) {
        StringBuilder block = new StringBuilder();
        for (i++; !lines.get(i).strip().equals("```"); i++) {
          block.append(lines.get(i)).append('\n');
        }
        blocks.add(block.toString());
      }
    }
    return blocks;
  }

  /**
   * {@code block} as the source of a class {@code className} whose {@code static void run() throws Exception}
   * is the block's body (its imports on top), with {@code endpoints} in place of the README's.
   */
  static String asClass(String block, String className, String endpoints) {
    StringBuilder imports = new StringBuilder();
    StringBuilder body = new StringBuilder();
    for (String line : block.replace(README_ENDPOINTS, endpoints).split("\n")) {
      (line.startsWith("import ") ? imports : body).append(line).append('\n');
    }
    return imports + "public final class " + className + " { public static void run() throws Exception {\n"
        + body + "} }\n";
  }
}
