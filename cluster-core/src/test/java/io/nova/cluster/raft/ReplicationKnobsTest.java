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
 * each equals Ratis' own default (so a node runs as it did before the knobs existed), and a changed value
 * is what Ratis reads.
 */
class ReplicationKnobsTest {

  private static RaftProperties serverProperties(Path dir, NodeTuning tuning) {
    PeerAddress self = new PeerAddress("n1", "127.0.0.1:7701", "127.0.0.1:7801", "127.0.0.1:7901");
    NodeConfig config = new NodeConfig("test", "n1", dir, 2, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, List.of(self));
    return RaftTuning.serverProperties(config, tuning, dir.resolve("raft"));
  }

  @Test
  void theDefaultsAreRatisOwn(@TempDir Path dir) {
    RaftProperties p = serverProperties(dir, NodeTuning.defaults());
    RaftProperties ratis = new RaftProperties();

    assertThat(RaftServerConfigKeys.Log.Appender.waitTimeMin(p))
        .isEqualTo(RaftServerConfigKeys.Log.Appender.waitTimeMin(ratis));
    assertThat(GrpcConfigKeys.Server.leaderOutstandingAppendsMax(p))
        .isEqualTo(GrpcConfigKeys.Server.leaderOutstandingAppendsMax(ratis));
    assertThat(GrpcConfigKeys.flowControlWindow(p, s -> { }))
        .isEqualTo(GrpcConfigKeys.flowControlWindow(ratis, s -> { }));
    assertThat(RaftServerConfigKeys.Log.logMetadataEnabled(p))
        .isEqualTo(RaftServerConfigKeys.Log.logMetadataEnabled(ratis));
  }

  @Test
  void changedKnobsAreWhatRatisReads(@TempDir Path dir) {
    NodeTuning tuning = NodeTuning.builder().raftAppenderWaitTimeMinMs(0).raftLeaderOutstandingAppendsMax(128)
        .raftGrpcFlowControlWindowBytes(4 << 20).raftLogMetadataEnabled(false).build();
    RaftProperties p = serverProperties(dir, tuning);

    assertThat(RaftServerConfigKeys.Log.Appender.waitTimeMin(p).toLong(TimeUnit.MILLISECONDS)).isZero();
    assertThat(GrpcConfigKeys.Server.leaderOutstandingAppendsMax(p)).isEqualTo(128);
    assertThat(GrpcConfigKeys.flowControlWindow(p, s -> { }).getSize()).isEqualTo(4L << 20);
    assertThat(RaftServerConfigKeys.Log.logMetadataEnabled(p)).isFalse();
  }
}
