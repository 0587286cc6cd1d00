package io.nova.cluster.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cluster.raft.RaftTuning;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the optional snapshot-every-entries key: it defaults to 100 000, an explicit value is kept and
 * written back, a value out of range is refused naming the file, the key and the range, and the value
 * reaches Ratis (auto-trigger threshold, purge up to the snapshot preserving no entry count, log segments
 * sized so that purges reclaim them).
 */
class SnapshotEveryEntriesTest {

  @TempDir Path dir;

  @Test
  void defaultsLoadsRoundTripsAndReachesRatis() throws Exception {
    NodeConfig defaulted = NodeConfig.load(write(null));
    assertThat(defaulted.snapshotEveryEntries()).isEqualTo(100_000);

    NodeConfig config = NodeConfig.load(write("200"));
    assertThat(config.snapshotEveryEntries()).isEqualTo(200);
    assertThat(config.forNode("n1", dir.resolve("other")).snapshotEveryEntries()).isEqualTo(200);
    Path copy = dir.resolve("copy.yaml");
    config.write(copy);
    assertThat(Files.readString(copy)).contains("snapshot-every-entries: 200");
    assertThat(NodeConfig.load(copy)).isEqualTo(config);

    RaftProperties p = RaftTuning.serverProperties(config, dir.resolve("raft"));
    assertThat(RaftServerConfigKeys.Snapshot.autoTriggerEnabled(p)).isTrue();
    assertThat(RaftServerConfigKeys.Snapshot.autoTriggerThreshold(p)).isEqualTo(200);
    assertThat(RaftServerConfigKeys.Log.purgeUptoSnapshotIndex(p)).isTrue();
    // No entry count is preserved behind a snapshot (it bounds nothing with large entries), and every
    // snapshot purges (ADR 0011, amendment for issue #11).
    assertThat(RaftServerConfigKeys.Log.purgePreservationLogNum(p)).isZero();
    assertThat(RaftServerConfigKeys.Log.purgeGap(p)).isEqualTo(1);
    assertThat(RaftServerConfigKeys.Log.Appender.installSnapshotEnabled(p)).isTrue();
    assertThat(RaftServerConfigKeys.Log.segmentSizeMax(p).getSize()).isEqualTo(200 * 336);

    // Segments hold about one interval, so purges can reclaim them: 32 MiB at the default, 16 KiB at least.
    assertThat(RaftTuning.segmentBytes(100_000).getSize()).isEqualTo(8L << 20);
    assertThat(RaftTuning.segmentBytes(10).getSize()).isEqualTo(16L << 10);
  }

  @Test
  void aValueOutOfRangeIsRefusedNamingTheKey() throws Exception {
    for (String bad : new String[] {"0", "9", "-5", "1000000001"}) {
      Path file = write(bad);
      assertThatThrownBy(() -> NodeConfig.load(file)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("snapshot-every-entries " + bad + " must be between 10 and 1000000000");
    }
    Path notANumber = write("often");
    assertThatThrownBy(() -> NodeConfig.load(notANumber)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(notANumber.toString());
  }

  private Path write(String snapshotEveryEntries) throws Exception {
    Path file = Files.createTempFile(dir, "node", ".yaml");
    Files.writeString(file, String.join("\n",
        "node-id: n1",
        "data-dir: " + dir.resolve("data"),
        snapshotEveryEntries == null ? "" : "snapshot-every-entries: " + snapshotEveryEntries,
        "nodes:",
        "  - id: n1",
        "    raft-address: 127.0.0.1:7801",
        "    api-address: 127.0.0.1:7701",
        ""));
    return file;
  }
}
