package io.nova.protocol.logging;

import java.util.Map;
import java.util.Objects;
import org.slf4j.MDC;

/**
 * The node id and group name that every server log line carries, kept in the SLF4J MDC under
 * {@link #NODE} and {@link #GROUP} (the server's logback pattern prints them as {@code [node=… group=…]}).
 *
 * <p>Why the MDC and not one process-wide property: tests run several nodes in one JVM, and one node's
 * threads serve many groups. So a thread that works for one node gets the node's id when it starts
 * ({@link #forNode}), and code that works for one group sets the group for the duration of that work
 * ({@link #enter}, {@link #enterGroup}), restoring what was there before. Threads we do not own (Ratis',
 * gRPC's) carry the fields only inside our callbacks.
 *
 * <p>Values are the node id ({@code n1}) and the group's name ({@code meta}, {@code shard-3}); a line
 * about no group in particular has none. Stateless; the scopes are per thread and not thread-safe.
 */
public final class LogContext {

  /** MDC key of the node id. */
  public static final String NODE = "node";
  /** MDC key of the group name. */
  public static final String GROUP = "group";

  private LogContext() {}

  /** Restores the MDC fields a scope replaced; closing twice is harmless. Not thread-safe. */
  public static final class Scope implements AutoCloseable {
    private final String previousNode;
    private final String previousGroup;
    private boolean closed;

    private Scope(String previousNode, String previousGroup) {
      this.previousNode = previousNode;
      this.previousGroup = previousGroup;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        restore(NODE, previousNode);
        restore(GROUP, previousGroup);
      }
    }
  }

  /**
   * Sets the node and group of the current thread until the scope closes.
   *
   * @param node the node id, or null to leave the current one
   * @param group the group name, or null to clear it (work about no group in particular)
   */
  public static Scope enter(String node, String group) {
    Scope scope = new Scope(MDC.get(NODE), MDC.get(GROUP));
    if (node != null) {
      MDC.put(NODE, node);
    }
    restore(GROUP, group);
    return scope;
  }

  /** Sets only the group of the current thread until the scope closes; the node stays. */
  public static Scope enterGroup(String group) {
    return enter(null, Objects.requireNonNull(group, "group"));
  }

  /**
   * Wraps a thread's body so that every line the thread logs carries {@code node}: for the thread
   * factories of a node's own executors.
   */
  public static Runnable forNode(String node, Runnable body) {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(body, "body");
    return () -> {
      MDC.put(NODE, node);
      body.run();
    };
  }

  /**
   * The current thread's fields, to re-enter on another thread that continues the same work (an
   * asynchronous callback).
   */
  public static Map<String, String> capture() {
    Map<String, String> copy = MDC.getCopyOfContextMap();
    return copy == null ? Map.of() : Map.copyOf(copy);
  }

  /** Enters fields {@link #capture captured} on another thread until the scope closes. */
  public static Scope enter(Map<String, String> captured) {
    return enter(captured.get(NODE), captured.get(GROUP));
  }

  private static void restore(String key, String value) {
    if (value == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, value);
    }
  }
}
