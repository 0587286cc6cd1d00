package io.nova.gateway.auth;

import com.google.protobuf.ByteString;
import io.nova.gateway.errors.GatewayException;
import io.nova.protocol.auth.TokenRules;
import io.nova.protocol.errors.Errors;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The bearer form of an access token, {@code nvt.ID.SECRET}: {@code ID} is 8 random bytes and
 * {@code SECRET} 32 random bytes, both base64url without padding (11 and 43 characters; 58 in all). Only
 * the SHA-256 of the secret's bytes is stored. Everything here comes from the JDK ({@link SecureRandom},
 * {@link MessageDigest}, {@link Base64}). Thread-safe.
 */
public final class TokenFormat {

  /** The fixed first part, so a token is recognisable in a leaked file or log. */
  public static final String PREFIX = "nvt";
  /** Random bytes of the secret. */
  public static final int SECRET_BYTES = 32;
  /** Characters of a whole bearer token. */
  public static final int TOKEN_CHARS = PREFIX.length() + 1 + TokenRules.ID_CHARS + 1 + 43;

  /**
   * The secret is 43 base64url characters for 32 bytes, so its last character carries 4 bits and 2 unused
   * ones that must be zero: only the canonical spelling is accepted, not the three other texts that
   * decode to the same bytes.
   */
  private static final Pattern SHAPE = Pattern.compile(
      Pattern.quote(PREFIX) + "\\.[A-Za-z0-9_-]{" + TokenRules.ID_CHARS + "}\\.[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]");
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

  private TokenFormat() {}

  /**
   * A token just made: its public id, the bearer text (shown once), and the hash that is stored.
   *
   * @param id the public id
   * @param bearer the whole token, {@code nvt.ID.SECRET}
   * @param secretSha256 SHA-256 of the secret's bytes
   */
  public record Issued(String id, String bearer, ByteString secretSha256) {
    /** Never prints the secret. */
    @Override
    public String toString() {
      return "Issued[id=" + id + "]";
    }
  }

  /**
   * A presented token, parsed.
   *
   * @param id the public id
   * @param secretSha256 SHA-256 of the presented secret's bytes
   */
  public record Presented(String id, byte[] secretSha256) {
    @Override
    public String toString() {
      return "Presented[id=" + id + "]";
    }
  }

  /** Makes a fresh token from {@code random} (a {@link SecureRandom} outside tests). */
  public static Issued generate(SecureRandom random) {
    byte[] idBytes = new byte[8];
    byte[] secret = new byte[SECRET_BYTES];
    random.nextBytes(idBytes);
    random.nextBytes(secret);
    String id = ENCODER.encodeToString(idBytes);
    return new Issued(id, PREFIX + "." + id + "." + ENCODER.encodeToString(secret),
        ByteString.copyFrom(sha256(secret)));
  }

  /**
   * Parses a bearer token.
   *
   * @throws GatewayException UNAUTHENTICATED "malformed" when it does not have the token's shape; the
   *     message never repeats what was presented
   */
  public static Presented parse(String bearer) {
    if (bearer.length() != TOKEN_CHARS || !SHAPE.matcher(bearer).matches()) {
      throw new GatewayException(Errors.unauthenticated("malformed", "the bearer value is not a Nova access"
          + " token (" + TOKEN_CHARS + " characters, nvt.ID.SECRET, as nova token issue prints it)"));
    }
    String id = bearer.substring(PREFIX.length() + 1, PREFIX.length() + 1 + TokenRules.ID_CHARS);
    byte[] secret = Base64.getUrlDecoder().decode(
        bearer.substring(PREFIX.length() + 2 + TokenRules.ID_CHARS).getBytes(StandardCharsets.US_ASCII));
    return new Presented(id, sha256(secret));
  }

  /** SHA-256 of {@code bytes}. */
  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
