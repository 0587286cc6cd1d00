package io.nova.protocol.encoding;

import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.errors.Errors;
import java.util.Base64;

/**
 * The one base64 rule of every JSON surface of Nova (the HTTP API's {@code Nova-Encoding: base64}, the
 * CLI's {@code body_base64} and {@code headers_base64}): standard base64 of RFC 4648 section 4, read
 * strictly so that each byte string has exactly one accepted spelling.
 *
 * <ul>
 *   <li>the standard alphabet {@code A-Z a-z 0-9 + /} only: no URL-safe {@code - _}, no whitespace or
 *       line breaks;
 *   <li>padded with {@code =} to a multiple of 4 characters ({@code aGk=}, not {@code aGk});
 *   <li>canonical: the unused low bits of the last character are zero ({@code aGk=}, not {@code aGl=},
 *       which Java's and many other decoders silently read as the same bytes).
 * </ul>
 *
 * <p>This is the strictest of the rules the HTTP API and the CLI applied before they shared one: the CLI
 * took unpadded and non-canonical text. Stateless and thread-safe.
 */
public final class Base64Text {

  /** The rule as one phrase, the {@code limit} of the INVALID_ARGUMENT error a refusal becomes. */
  public static final String RULE = "base64 (RFC 4648 section 4: standard alphabet, = padding, canonical)";

  private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

  private Base64Text() {}

  /** {@code bytes} as canonical padded standard base64. */
  public static String encode(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /**
   * The bytes {@code text} stands for.
   *
   * @param field the field's name or path for the error, e.g. {@code records[0].body} or
   *     {@code body_base64}
   * @throws InvalidBase64Exception naming {@code field} and what is wrong when {@code text} breaks
   *     {@link #RULE}; the message never quotes more than the offending 4-character group
   */
  public static byte[] decode(String text, String field) {
    if (text.length() % 4 != 0) {
      throw new InvalidBase64Exception(field, "is " + text.length() + " characters long, not a multiple of 4: "
          + lengthHint(text));
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean padding = c == '=' && i >= text.length() - 2
          && (i == text.length() - 1 || text.charAt(text.length() - 1) == '=');
      if (!padding && ALPHABET.indexOf(c) < 0) {
        // Positions count from 1, as an editor's column does (and as the name rules say them).
        throw new InvalidBase64Exception(field, "has " + describe(c) + " at character " + (i + 1)
            + ", which is not in the standard base64 alphabet (A-Z a-z 0-9 + /, = only as padding at the end)");
      }
    }
    byte[] bytes = Base64.getDecoder().decode(text);
    String canonical = encode(bytes);
    if (!canonical.equals(text)) {
      // Same length and alphabet, so only the unused bits of the last group can differ.
      int last = text.length() - 4;
      throw new InvalidBase64Exception(field, "is not canonical base64: the unused bits of its last group are"
          + " not zero (\"" + text.substring(last) + "\" must be written \"" + canonical.substring(last)
          + "\"), so it would have two spellings");
    }
    return bytes;
  }

  /**
   * What to do about a length that is not a multiple of 4, said about this text's own last group (at
   * most 3 characters are quoted): 2 or 3 characters lack their {@code =} padding; 1 character is never
   * produced by an encoder, so a character is missing or extra; whitespace is named, since a trailing
   * line break is the usual cause.
   */
  private static String lengthHint(String text) {
    int whitespace = firstWhitespace(text);
    if (whitespace >= 0) {
      return "it holds " + describe(text.charAt(whitespace)) + " at character " + (whitespace + 1)
          + "; base64 has no whitespace or line breaks, remove them";
    }
    int rest = text.length() % 4;
    String last = text.substring(text.length() - rest);
    if (rest == 1) {
      return "its last group \"" + last + "\" has 1 character, which no base64 encoder writes: a character is"
          + " missing or extra (a group holds 4 characters, the last one padded with =)";
    }
    String padded = last + "=".repeat(4 - rest);
    return "its last group \"" + last + "\" lacks its padding: write it \"" + padded + "\"";
  }

  private static int firstWhitespace(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.isWhitespace(text.charAt(i))) {
        return i;
      }
    }
    return -1;
  }

  private static String describe(char c) {
    if (c == '-' || c == '_') {
      return "'" + c + "' (the URL-safe alphabet, which is not accepted: use + and /)";
    }
    if (c == '=') {
      return "'=' before the end";
    }
    if (Character.isWhitespace(c) || Character.isISOControl(c) || Character.isSurrogate(c)) {
      return String.format("the character U+%04X", (int) c);
    }
    return "'" + c + "'";
  }

  /**
   * Text that is not base64 by {@link #RULE}. The message is one sentence naming the field and what is
   * wrong, e.g. {@code body_base64 is not canonical base64: ...}; callers add where it was (a line) and
   * what to do on their surface.
   */
  public static final class InvalidBase64Exception extends IllegalArgumentException {
    private final String field;

    InvalidBase64Exception(String field, String problem) {
      super(field + " " + problem);
      this.field = field;
    }

    /** The field's name or path, as given to {@link #decode}. */
    public String field() {
      return field;
    }

    /** The refusal as an INVALID_ARGUMENT error detail on {@link #field()} with limit {@link #RULE}. */
    public ErrorDetail detail() {
      return Errors.invalidArgument(field, RULE, getMessage());
    }
  }
}
