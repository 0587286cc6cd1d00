package io.nova.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small JSON-over-HTTP client for tests: real requests with {@link HttpClient}, bounded by a timeout. */
public final class HttpCalls {

  static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  public HttpCalls(String base) {
    this.base = base;
  }

  public String base() {
    return base;
  }

  /** An answer: status, headers and body text; {@link #json()} parses the body. */
  public record Answer(int status, HttpHeaders headers, String body) {
    public JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON (status " + status + "): " + body, e);
      }
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  Answer get(String path, String... headers) {
    return send("GET", path, null, headers);
  }

  Answer post(String path, String json, String... headers) {
    return send("POST", path, json, headers);
  }

  Answer put(String path, String json, String... headers) {
    return send("PUT", path, json, headers);
  }

  Answer delete(String path) {
    return send("DELETE", path, null);
  }

  /** {@code POST path} with a body of raw bytes (e.g. compressed) and header name/value pairs. */
  Answer post(String path, byte[] body, String... headers) {
    return sendWith("POST", path, HttpRequest.BodyPublishers.ofByteArray(body), headers);
  }

  /** Sends {@code method path} with an optional body and header name/value pairs. */
  public Answer send(String method, String path, String body, String... headers) {
    return sendWith(method, path, body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(body), headers);
  }

  private Answer sendWith(String method, String path, HttpRequest.BodyPublisher body, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT).method(method, body);
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    try {
      HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.headers(), r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static String json(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public HttpClient client() {
    return client;
  }
}
