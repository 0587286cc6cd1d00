package io.nova.protocol.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Proves what the factory of Nova's pools promises: daemon threads named {@code pool-node-N} (or
 * {@code pool-N} when shared), counted per factory, whose bodies run with the node id in the log context.
 */
class NodeThreadsTest {

  @Test
  void aNodesThreadsAreNamedCountedDaemonAndRunWithTheNodeInTheirLogContext() throws Exception {
    NodeThreads threads = NodeThreads.forNode("n7", "nova-test");
    CompletableFuture<String> node = new CompletableFuture<>();
    Thread first = threads.newThread(() -> node.complete(String.valueOf(LogContext.capture().get(LogContext.NODE))));
    Thread second = threads.newThread(() -> { });

    assertThat(first.getName()).isEqualTo("nova-test-n7-1");
    assertThat(second.getName()).isEqualTo("nova-test-n7-2");
    assertThat(first.isDaemon()).isTrue();
    first.start();
    assertThat(node.get(10, TimeUnit.SECONDS)).isEqualTo("n7");
  }

  @Test
  void sharedThreadsCarryNoNode() throws Exception {
    CompletableFuture<String> node = new CompletableFuture<>();
    Thread t = NodeThreads.shared("nova-shared")
        .newThread(() -> node.complete(String.valueOf(LogContext.capture().get(LogContext.NODE))));
    assertThat(t.getName()).isEqualTo("nova-shared-1");
    assertThat(t.isDaemon()).isTrue();
    t.start();
    assertThat(node.get(10, TimeUnit.SECONDS)).isEqualTo("null");
  }
}
