package io.nova.statemachine.internal;

/**
 * Always-on invariant checks (Java's {@code assert} is off by default in production).
 *
 * <p>A failed invariant is a bug in Nova, never a consequence of client input: it throws
 * {@link IllegalStateException}, which inside a state machine's apply path stops the replica rather than
 * letting it continue with corrupt state. Thread-safe (stateless).
 */
public final class Invariants {
  private Invariants() {}

  /**
   * Throws {@link IllegalStateException} with the formatted message when {@code condition} is false.
   *
   * @param condition the invariant that must hold
   * @param format a {@link String#format} pattern describing the invariant
   * @param args its arguments; formatted only on failure
   */
  public static void check(boolean condition, String format, Object... args) {
    if (!condition) {
      throw new IllegalStateException("invariant broken: " + String.format(format, args));
    }
  }
}
