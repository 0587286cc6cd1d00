package io.nova.node.logging;

import java.util.Locale;

/** How a node process writes its log lines on stderr ({@code nova server --log-format}). */
public enum LogFormat {
  /** One human-readable line per event: {@code time level [node=… group=…] logger - message}. */
  TEXT,
  /**
   * One JSON object per line (Logback's {@code JsonEncoder}), for log shippers: timestamp, level,
   * thread, logger, the MDC (Nova's {@code node} and {@code group}), the context's properties (the
   * process's node), the formatted message and any throwable with its stack.
   */
  JSON;

  /**
   * The format named {@code name}, case-insensitively ({@code text} or {@code json}).
   *
   * @throws IllegalArgumentException naming the two formats when {@code name} is neither
   */
  public static LogFormat parse(String name) {
    for (LogFormat f : values()) {
      if (f.name().equalsIgnoreCase(name)) {
        return f;
      }
    }
    throw new IllegalArgumentException("log format '" + name + "' is not one of: text, json");
  }

  /** The format's name as written on the command line. */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
