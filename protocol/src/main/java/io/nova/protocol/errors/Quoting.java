package io.nova.protocol.errors;

/**
 * How a message quotes what the caller sent (a name, a URI): once, in double quotes, with quotes,
 * backslashes and control characters escaped ({@code "a\tb"}, so what is read is what must be typed),
 * and shortened past {@value #CHARS_SHOWN} characters to its start and its length
 * ({@code "nnnn…" (300 chars)}), so a 300-character name does not fill the screen. Stateless.
 */
public final class Quoting {

  /** Characters (UTF-16 units, as the name rules count them) shown of a longer text. */
  public static final int CHARS_SHOWN = 60;

  private Quoting() {}

  /** {@code text} quoted and escaped, cut to its first {@value #CHARS_SHOWN} characters when longer. */
  public static String quoted(String text) {
    if (text == null) {
      return "null";
    }
    boolean cut = text.length() > CHARS_SHOWN;
    // Do not cut a surrogate pair in half.
    int end = cut && Character.isHighSurrogate(text.charAt(CHARS_SHOWN - 1)) ? CHARS_SHOWN - 1 : CHARS_SHOWN;
    String shown = cut ? text.substring(0, end) : text;
    StringBuilder b = new StringBuilder(shown.length() + 24).append('"');
    shown.codePoints().forEach(c -> escape(b, c));
    return cut ? b.append("…\" (").append(text.length()).append(" chars)").toString() : b.append('"').toString();
  }

  private static void escape(StringBuilder b, int c) {
    switch (c) {
      case '"' -> b.append("\\\"");
      case '\\' -> b.append("\\\\");
      case '\n' -> b.append("\\n");
      case '\r' -> b.append("\\r");
      case '\t' -> b.append("\\t");
      default -> {
        if (Character.isISOControl(c)) {
          b.append(String.format("\\u%04x", c));
        } else {
          b.appendCodePoint(c);
        }
      }
    }
  }
}
