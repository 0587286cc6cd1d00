package io.nova.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.PeerAddress;
import java.nio.file.Path;
import java.util.List;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Ratis settings that correctness rests on, so that none is lost in a tuning change: linearizable
 * reads, and followers appending in order (Ratis' "compose" mode let a follower apply an entry that was
 * never committed; docs/testing.md, anomaly 6).
 */
class RaftTuningTest {

  @Test
  void serverPropertiesKeepTheSettingsCorrectnessRestsOn(@TempDir Path dir) {
    PeerAddress self = new PeerAddress("n1", "127.0.0.1:7701", "127.0.0.1:7801", "127.0.0.1:7901");
    NodeConfig config = new NodeConfig("test", "n1", dir, 2, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, List.of(self));
    RaftProperties p = RaftTuning.serverProperties(config, dir.resolve("raft"));

    assertThat(RaftServerConfigKeys.Read.option(p)).isEqualTo(RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    assertThat(RaftServerConfigKeys.Log.appendEntriesComposeEnabled(p)).isFalse();
  }
}
