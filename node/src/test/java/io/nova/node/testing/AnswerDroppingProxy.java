package io.nova.node.testing;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy on 127.0.0.1 in front of one node's gRPC port that can lose exactly one answer: once
 * {@link #dropNextAnswer() armed}, it closes the connection that carries the next gRPC response message
 * (the first HTTP/2 DATA frame from the node on a request stream) instead of forwarding it. The request
 * went through and the node answered, so whatever the request did has taken effect, but the client
 * never learns it: the deterministic form of "the connection died before the ack".
 *
 * <p>Only the node-to-client direction is parsed (HTTP/2 frames: a 9-byte header, then the payload);
 * the client-to-node bytes are copied as they are. Each connection uses two daemon threads. Thread-safe.
 */
public final class AnswerDroppingProxy implements AutoCloseable {

  private static final int FRAME_HEADER_BYTES = 9;
  private static final int FRAME_TYPE_DATA = 0;

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final AtomicBoolean armed = new AtomicBoolean();
  private final CountDownLatch dropped = new CountDownLatch(1);
  /** Response DATA frames forwarded to the client so far. */
  private final java.util.concurrent.atomic.AtomicInteger forwarded = new java.util.concurrent.atomic.AtomicInteger();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  private AnswerDroppingProxy(ServerSocket server, InetSocketAddress target) {
    this.server = server;
    this.target = target;
  }

  /** Starts a proxy on a free loopback port forwarding to {@code targetHostPort} ({@code host:port}). */
  public static AnswerDroppingProxy start(String targetHostPort) throws IOException {
    int colon = targetHostPort.lastIndexOf(':');
    InetSocketAddress target = new InetSocketAddress(targetHostPort.substring(0, colon),
        Integer.parseInt(targetHostPort.substring(colon + 1)));
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    AnswerDroppingProxy proxy = new AnswerDroppingProxy(server, target);
    daemon("proxy-accept", proxy::acceptLoop).start();
    return proxy;
  }

  /** The proxy's {@code host:port}, to list as a client endpoint. */
  public String endpoint() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  /** Arms the proxy: the next response message from the node is lost with its connection. Once. */
  public void dropNextAnswer() {
    armed.set(true);
  }

  /** Waits at most {@code timeout} until at least {@code n} response messages were forwarded. */
  public boolean awaitForwarded(int n, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (forwarded.get() < n) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
    return true;
  }

  /** Waits at most {@code timeout} for the armed drop to have happened. */
  public boolean awaitDropped(Duration timeout) throws InterruptedException {
    return dropped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket node = new Socket();
        node.connect(target, 5000);
        sockets.add(client);
        sockets.add(node);
        daemon("proxy-up", () -> copy(client, node)).start();
        daemon("proxy-down", () -> forwardFrames(node, client)).start();
      } catch (IOException e) {
        // Closed, or the node refused: the client sees its connection end and reconnects.
      }
    }
  }

  private static void copy(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // One side closed: the finally below closes the other.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  /** Copies HTTP/2 frames from the node, dropping the connection at the first DATA frame once armed. */
  private void forwardFrames(Socket node, Socket client) {
    try (DataInputStream in = new DataInputStream(node.getInputStream());
        OutputStream out = client.getOutputStream()) {
      byte[] header = new byte[FRAME_HEADER_BYTES];
      while (true) {
        in.readFully(header);
        int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
        int type = header[3] & 0xff;
        int streamId = ((header[5] & 0x7f) << 24) | ((header[6] & 0xff) << 16)
            | ((header[7] & 0xff) << 8) | (header[8] & 0xff);
        byte[] payload = in.readNBytes(length);
        if (type == FRAME_TYPE_DATA && streamId != 0 && length > 0 && armed.compareAndSet(true, false)) {
          closeQuietly(client);
          closeQuietly(node);
          dropped.countDown();
          return;
        }
        out.write(header);
        out.write(payload);
        out.flush();
        if (type == FRAME_TYPE_DATA && streamId != 0 && length > 0) {
          forwarded.incrementAndGet();
        }
      }
    } catch (IOException e) {
      // One side closed.
    } finally {
      closeQuietly(node);
      closeQuietly(client);
    }
  }

  private static Thread daemon(String name, Runnable task) {
    Thread t = new Thread(task, name);
    t.setDaemon(true);
    return t;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Closing is best effort.
    }
  }

  /** Stops accepting and closes every proxied connection. */
  @Override
  public void close() throws IOException {
    server.close();
    sockets.forEach(AnswerDroppingProxy::closeQuietly);
  }
}
