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
    this(LocalCluster.start(dir, nodes, shards, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, snapshotEveryEntries));
  }

  /** As above with every node running {@code tuning} and reading its wall clock from {@code clock}. */
  ClusterFixture(Path dir, int nodes, int shards, io.nova.cluster.config.NodeTuning tuning, java.time.Clock clock)
      throws IOException {
    this(LocalCluster.start(dir, nodes, shards, tuning, clock));
  }

  private ClusterFixture(LocalCluster started) {
    cluster = started;
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

  /** The configuration of a fresh stream in the fixture's basin (which has no defaults). */
  io.nova.client.StreamConfig newStreamConfig() {
    return client.streamConfig(newStream("config"));
  }

  /** Stops every node, starts them again on their data folders and waits until the cluster is ready. */
  void restartAll() {
    cluster.stopAll();
    try {
      cluster.startAll();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    cluster.awaitReady(Duration.ofSeconds(60));
  }

  @Override
  public void close() {
    client.close();
    cluster.close();
  }
}
