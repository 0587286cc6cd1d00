package io.nova.cli.io;

import java.io.InputStream;
import java.io.OutputStream;

/** How records are written on the command line: {@code text} (one body per line) or {@code json}. */
public enum RecordFormat {
  text,
  json;

  /** A source parsing {@code in} in this format. */
  public RecordSource source(InputStream in) {
    return switch (this) {
      case text -> new TextRecordSource(in);
      case json -> new JsonRecordSource(in);
    };
  }

  /** A sink writing records to {@code out} in this format; the caller flushes {@code out}. */
  public RecordSink sink(OutputStream out) {
    return switch (this) {
      case text -> new TextRecordSink(out);
      case json -> new JsonRecordSink(out);
    };
  }
}
