package io.nova.cli.commands;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nova.client.StreamPosition;
import java.io.OutputStream;
import picocli.CommandLine.Option;

/**
 * {@code -j, --json}, mixed into every verb that prints data: one JSON object per line on stdout instead
 * of the text form, for scripts and {@code jq}. Field names are snake_case, as in the HTTP API
 * (docs/http-api.md); docs/cli.md lists each verb's object. Messages stay on stderr either way.
 */
public final class JsonOption {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = {"-j", "--json"}, description = "Print one JSON object per line instead of text.")
  boolean json;

  /** Whether JSON was asked for. */
  boolean on() {
    return json;
  }

  /** A new empty object to fill. */
  static ObjectNode object() {
    return JSON.createObjectNode();
  }

  /** {@code {"seq_num": N, "timestamp": MS}}, the HTTP API's position. */
  static ObjectNode position(StreamPosition p) {
    return object().put("seq_num", p.seqNum()).put("timestamp", p.timestampMs());
  }

  /** Prints {@code json} as one line when JSON was asked for, else {@code text}. */
  void print(OutputStream out, ObjectNode json, String text) {
    Output.line(out, this.json ? json.toString() : text);
  }
}
