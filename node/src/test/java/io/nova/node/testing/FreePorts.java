package io.nova.node.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Loopback ports for test clusters: distinct within one call (every socket stays bound until all are
 * chosen) and never handed out twice in one JVM, so a stopped node's port cannot be given to another.
 */
public final class FreePorts {

  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  /** Bounds the search when the kernel keeps offering ports this JVM has used. */
  private static final int ATTEMPTS_MAX = 1000;

  private FreePorts() {}

  /** {@code count} distinct loopback ports that are free now. */
  public static List<Integer> take(int count) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int attempt = 0; held.size() < count; attempt++) {
        if (attempt >= ATTEMPTS_MAX) {
          throw new IOException("no free loopback port found in " + ATTEMPTS_MAX + " attempts");
        }
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        if (HANDED_OUT.add(s.getLocalPort())) {
          held.add(s);
        } else {
          s.close();
        }
      }
      return held.stream().map(ServerSocket::getLocalPort).toList();
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
  }
}
