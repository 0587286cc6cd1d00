package io.nova.cluster.cors;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Which web origins may call a node's HTTP port from a browser (CORS), from the {@code cors} section of
 * {@code node.yaml}. Off by default: no {@code Access-Control-*} header is sent, so browsers keep pages
 * of other origins from reading Nova's answers (curl, SDKs and servers are not affected either way).
 *
 * <pre>
 * cors:
 *   allowed-origins:            # exact origins; or ["*"] for any origin
 *     - https://console.example.com
 *     - http://localhost:3000
 * </pre>
 *
 * <p>An allowed origin may read every route's answer, including SSE reads ({@code EventSource}), and send
 * the preflighted requests {@code fetch} makes (JSON bodies, {@code Authorization}). Credentials
 * (cookies) are never allowed: Nova's access tokens travel in the {@code Authorization} header.
 *
 * @param allowedOrigins the origins, each {@code http(s)://host[:port]} with no path, or the single entry
 *     {@code *}; empty (the default) turns CORS off. At most {@value #ORIGINS_MAX}.
 */
public record CorsSettings(List<String> allowedOrigins) {

  /** The most origins one node lists. */
  public static final int ORIGINS_MAX = 64;
  /** The entry that allows any origin. */
  public static final String ANY_ORIGIN = "*";

  private static final Pattern ORIGIN = Pattern.compile("https?://[A-Za-z0-9.-]+(\\[[0-9A-Fa-f:.]+])?(:[0-9]{1,5})?");

  /** CORS off. */
  public static final CorsSettings OFF = new CorsSettings(List.of());

  /**
   * @throws IllegalArgumentException naming {@code cors.allowed-origins} when an entry is not an origin,
   *     {@code *} is listed beside other origins, or there are more than {@value #ORIGINS_MAX}
   */
  public CorsSettings {
    Objects.requireNonNull(allowedOrigins, "cors.allowed-origins");
    allowedOrigins = List.copyOf(allowedOrigins);
    if (allowedOrigins.size() > ORIGINS_MAX) {
      throw new IllegalArgumentException("cors.allowed-origins lists " + allowedOrigins.size()
          + " origins; at most " + ORIGINS_MAX);
    }
    if (allowedOrigins.contains(ANY_ORIGIN) && allowedOrigins.size() > 1) {
      throw new IllegalArgumentException("cors.allowed-origins: '*' allows every origin and stands alone");
    }
    for (String origin : allowedOrigins) {
      if (!origin.equals(ANY_ORIGIN) && !ORIGIN.matcher(origin).matches()) {
        throw new IllegalArgumentException("cors.allowed-origins: '" + origin
            + "' is not an origin; write scheme://host[:port] with no path, e.g. https://console.example.com");
      }
    }
  }

  /** Whether any origin is allowed (CORS is on). */
  public boolean enabled() {
    return !allowedOrigins.isEmpty();
  }

  /** Whether every origin is allowed ({@code *}). */
  public boolean anyOrigin() {
    return allowedOrigins.equals(List.of(ANY_ORIGIN));
  }
}
