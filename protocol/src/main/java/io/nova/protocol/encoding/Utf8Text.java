package io.nova.protocol.encoding;

import java.nio.charset.StandardCharsets;

/**
 * Text a caller sent as a JSON string, turned into the UTF-8 bytes Nova stores. A string holding a UTF-16
 * surrogate that is not half of a pair (JSON allows {@code "\ud800"}) has no UTF-8 form: Java's encoder
 * would silently store {@code ?} instead, so every interface refuses it by this one rule (HTTP and the
 * CLI's JSON input alike). Stateless and thread-safe.
 */
public final class Utf8Text {

  private Utf8Text() {}

  /** The index (in UTF-16 units) of the first surrogate in {@code s} that is not half of a pair, or -1. */
  public static int unpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * {@code text} as UTF-8.
   *
   * @throws InvalidUnicodeException when it holds an unpaired surrogate; the message names {@code field}
   *     and the character's index
   */
  public static byte[] encode(String text, String field) {
    int bad = unpairedSurrogate(text);
    if (bad >= 0) {
      throw new InvalidUnicodeException("\"" + field + "\" is not valid Unicode: unpaired surrogate at character "
          + bad + "; escape a character outside the BMP as a pair (\\ud83d\\ude00)");
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A string that has no UTF-8 form. */
  public static final class InvalidUnicodeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    InvalidUnicodeException(String message) {
      super(message);
    }
  }
}
