package io.nova.gateway.it;

import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.cluster.config.NodeConfig;
import io.nova.node.testing.LocalCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** A ready in-JVM cluster (every node answers /ready), a client on all its endpoints, and fresh stream names for each test. */
final class ClusterFixture implements AutoCloseable {

  static final String BASIN = "it";

  final LocalCluster cluster;
  final NovaClient client;
  private final AtomicInteger streams = new AtomicInteger();

  ClusterFixture(Path dir, int nodes, int shards) throws IOException {
    this(dir, nodes, shards, NodeConfig.DEFAULT_SNAPSHOT_EVERY_ENTRIES);
  }

  /** As above, each group snapshotting (and purging its log) every {@code snapshotEveryEntries} entries. */
  ClusterFixture(Path dir, int nodes, int shards, long snapshotEveryEntries) throws IOException {
    cluster = LocalCluster.start(dir, nodes, shards, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, snapshotEveryEntries);
    // Tests that read cluster status expect every group to have elected its first leader.
    cluster.awaitReady(Duration.ofSeconds(60));
    client = NovaClient.builder()
        .endpoints(cluster.endpoints())
        .requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30))
        .build();
    try {
      client.createBasin(BASIN);
    } catch (AlreadyExistsException e) {
      // A restarted fixture on the same folder.
    }
  }

  /** Creates a stream with a name no other test uses. */
  StreamAddress newStream(String prefix) {
    StreamAddress address = new StreamAddress(BASIN, prefix + "-" + streams.incrementAndGet());
    client.createStream(address);
    return address;
  }

  @Override
  public void close() {
    client.close();
    cluster.close();
  }
}
