package io.nova.cluster.config;

/**
 * A parsed {@code host:port} address.
 *
 * @param host a host name or IPv4 address (IPv6 literals in brackets)
 * @param port 1–65535
 */
public record HostPort(String host, int port) {

  /**
   * Parses {@code host:port}.
   *
   * @param field names the configuration field in the error message
   * @throws IllegalArgumentException when the text is not {@code host:port} with a port in 1–65535
   */
  public static HostPort parse(String text, String field) {
    int colon = text == null ? -1 : text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException(field + " '" + text + "' must be host:port");
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(field + " '" + text + "' has a non-numeric port");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(field + " '" + text + "' has a port outside 1-65535");
    }
    return new HostPort(text.substring(0, colon), port);
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
