package io.nova.gateway.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A test client of one SSE response over a real socket: a reader thread parses the event stream
 * ({@code id:}, {@code event:}, {@code data:}, {@code retry:} lines, a blank line ends an event, {@code :} comments are
 * skipped) into a queue that {@link #next} polls with a timeout. {@link #close()} disconnects.
 */
public final class SseStream implements AutoCloseable {

  /** One event; {@code id} and {@code retry} (the reconnection delay it set, ms) are null when absent. */
  public record Event(String id, String event, String data, String retry) {}

  /** The end of the response (the server closed it). */
  public static final Event CLOSED = new Event(null, "<closed>", "", null);

  private final int status;
  private final String contentType;
  private final Stream<String> lines;
  private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final Thread reader;

  private SseStream(HttpResponse<Stream<String>> response) {
    this.status = response.statusCode();
    this.contentType = response.headers().firstValue("Content-Type").orElse("");
    this.lines = response.body();
    this.reader = new Thread(this::readAll, "sse-test-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /** Opens {@code url} with {@code Accept: text/event-stream} and the given header name/value pairs. */
  public static SseStream open(HttpClient client, String url, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream");
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    try {
      return new SseStream(client.send(b.build(), HttpResponse.BodyHandlers.ofLines()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public int status() {
    return status;
  }

  String contentType() {
    return contentType;
  }

  private void readAll() {
    String id = null;
    String event = null;
    String retry = null;
    StringBuilder data = new StringBuilder();
    try {
      for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
        String line = it.next();
        if (line.isEmpty()) {
          if (event != null || data.length() > 0) {
            events.add(new Event(id, event == null ? "message" : event, data.toString(), retry));
          }
          id = null;
          event = null;
          retry = null;
          data.setLength(0);
        } else if (line.startsWith(":")) {
          continue;
        } else if (line.startsWith("id:")) {
          id = line.substring(3).trim();
        } else if (line.startsWith("retry:")) {
          retry = line.substring(6).trim();
        } else if (line.startsWith("event:")) {
          event = line.substring(6).trim();
        } else if (line.startsWith("data:")) {
          data.append(data.length() > 0 ? "\n" : "").append(line.substring(5).trim());
        }
      }
    } catch (RuntimeException e) {
      // Disconnected (by close() or the server): the stream ends.
    }
    events.add(CLOSED);
  }

  /** The next event within {@code timeout}, {@link #CLOSED} once the response ended, or empty. */
  public Optional<Event> next(Duration timeout) throws InterruptedException {
    return Optional.ofNullable(events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS));
  }

  /** The next event of type {@code type} within {@code timeout}, skipping others (not CLOSED). */
  public Event nextOf(String type, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<Event> e = next(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      if (e.isPresent() && (e.get().event().equals(type) || e.get() == CLOSED)) {
        return e.get();
      }
    }
    throw new AssertionError("no " + type + " event within " + timeout);
  }

  @Override
  public void close() {
    lines.close();
    reader.interrupt();
  }
}
