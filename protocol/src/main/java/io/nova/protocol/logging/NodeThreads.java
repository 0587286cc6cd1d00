package io.nova.protocol.logging;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The thread factory of Nova's own pools: daemon threads named {@code prefix-N} ({@code prefix-node-N}
 * for a node's pool), N counting from 1 per factory, so a thread dump or log line says which pool (and
 * which of the JVM's nodes) a thread belongs to.
 *
 * <p>A node's threads log as that node: their bodies run inside {@link LogContext#forNode}, so tests
 * with several nodes in one JVM can tell their lines apart. Threads shared by every node of the JVM
 * ({@link #shared}) carry no node of their own. Daemon threads: a pool that was not shut down must not
 * keep the JVM alive after the node stopped.
 *
 * <p>Thread-safe.
 */
public final class NodeThreads implements ThreadFactory {

  private final String node;
  private final String prefix;
  private final AtomicInteger created = new AtomicInteger();

  private NodeThreads(String node, String prefix) {
    this.node = node;
    this.prefix = prefix;
  }

  /** Threads of node {@code node}'s pool {@code pool}, named {@code pool-node-N}, logging as {@code node}. */
  public static NodeThreads forNode(String node, String pool) {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(pool, "pool");
    return new NodeThreads(node, pool + "-" + node);
  }

  /** Threads of a pool that serves every node of the JVM, named {@code pool-N}, logging as no node. */
  public static NodeThreads shared(String pool) {
    return new NodeThreads(null, Objects.requireNonNull(pool, "pool"));
  }

  @Override
  public Thread newThread(Runnable body) {
    Runnable run = node == null ? body : LogContext.forNode(node, body);
    Thread thread = new Thread(run, prefix + "-" + created.incrementAndGet());
    thread.setDaemon(true);
    return thread;
  }
}
