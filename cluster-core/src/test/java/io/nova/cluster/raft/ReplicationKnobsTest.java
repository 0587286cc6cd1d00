package io.nova.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.config.PeerAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that the replication knobs of {@link NodeTuning} reach the Ratis server's properties: by default
 * they are the measured set (docs/bench.md) with the log fsynced before an entry counts as written, and a
 * changed value is what Ratis reads.
 */
class ReplicationKnobsTest {

  private static RaftProperties serverProperties(Path dir, NodeTuning tuning) {
    PeerAddress self = new PeerAddress("n1", "127.0.0.1:7701", "127.0.0.1:7801", "127.0.0.1:7901");
    NodeConfig config = new NodeConfig("test", "n1", dir, 2, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, List.of(self));
    return RaftTuning.serverProperties(config, tuning, dir.resolve("raft"));
  }

  @Test
  void theDefaultsAreTheMeasuredSetWithAnFsyncPerCommit(@TempDir Path dir) {
    RaftProperties p = serverProperties(dir, NodeTuning.defaults());

    assertThat(RaftServerConfigKeys.Log.Appender.waitTimeMin(p).toLong(TimeUnit.MILLISECONDS)).isZero();
    assertThat(GrpcConfigKeys.Server.leaderOutstandingAppendsMax(p)).isEqualTo(128);
    assertThat(GrpcConfigKeys.flowControlWindow(p, s -> { }).getSize()).isEqualTo(4L << 20);
    assertThat(RaftServerConfigKeys.Log.logMetadataEnabled(p)).as("the wiped-node probe needs it").isTrue();
    assertThat(RaftServerConfigKeys.Log.unsafeFlushEnabled(p)).as("fsync before an entry counts").isFalse();
    assertThat(RaftServerConfigKeys.Log.asyncFlushEnabled(p)).isFalse();
  }

  @Test
  void changedKnobsAreWhatRatisReads(@TempDir Path dir) {
    NodeTuning tuning = NodeTuning.builder().raftAppenderWaitTimeMinMs(1).raftLeaderOutstandingAppendsMax(8)
        .raftGrpcFlowControlWindowBytes(1 << 20).raftLogMetadataEnabled(false).raftLogFlushBackground(true).build();
    RaftProperties p = serverProperties(dir, tuning);

    assertThat(RaftServerConfigKeys.Log.Appender.waitTimeMin(p).toLong(TimeUnit.MILLISECONDS)).isEqualTo(1);
    assertThat(GrpcConfigKeys.Server.leaderOutstandingAppendsMax(p)).isEqualTo(8);
    assertThat(GrpcConfigKeys.flowControlWindow(p, s -> { }).getSize()).isEqualTo(1L << 20);
    assertThat(RaftServerConfigKeys.Log.logMetadataEnabled(p)).isFalse();
    assertThat(RaftServerConfigKeys.Log.unsafeFlushEnabled(p)).isTrue();
  }
}
