package io.nova.cluster.status;

import io.nova.cluster.config.HostPort;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether TCP ports accept connections, probing all of them at once (non-blocking connects on one
 * selector) so that several unreachable hosts cost one timeout, not one each. Stateless.
 */
final class PortProbe {

  private PortProbe() {}

  /**
   * @param addresses host:port by key
   * @param timeoutMs how long to wait for all connects together
   * @return the keys whose address accepted a connection within the timeout
   */
  static Set<String> reachable(Map<String, HostPort> addresses, long timeoutMs) {
    Set<String> reached = new HashSet<>();
    List<SocketChannel> channels = new ArrayList<>();
    try (Selector selector = Selector.open()) {
      int pending = 0;
      for (Map.Entry<String, HostPort> e : addresses.entrySet()) {
        SocketChannel channel = SocketChannel.open();
        channels.add(channel);
        channel.configureBlocking(false);
        try {
          if (channel.connect(new InetSocketAddress(e.getValue().host(), e.getValue().port()))) {
            reached.add(e.getKey());
          } else {
            channel.register(selector, SelectionKey.OP_CONNECT, e.getKey());
            pending++;
          }
        } catch (IOException | RuntimeException refused) {
          // Unresolvable or refused at once: not reachable.
        }
      }
      long deadlineNanos = System.nanoTime() + timeoutMs * 1_000_000L;
      while (pending > 0) {
        long leftMs = (deadlineNanos - System.nanoTime()) / 1_000_000L;
        if (leftMs <= 0) {
          break;
        }
        selector.select(leftMs);
        Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
        while (ready.hasNext()) {
          SelectionKey key = ready.next();
          ready.remove();
          key.cancel();  // each channel is decided once
          pending--;
          try {
            if (((SocketChannel) key.channel()).finishConnect()) {
              reached.add((String) key.attachment());
            }
          } catch (IOException refused) {
            // Connection refused or reset: not reachable.
          }
        }
      }
    } catch (IOException e) {
      // No selector or socket: report what connected so far.
    } finally {
      channels.forEach(PortProbe::closeQuietly);
    }
    return reached;
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // Nothing to do: the probe is over.
    }
  }
}
