package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.nova.client.ClusterStatus;
import io.nova.client.GroupStatus;
import io.nova.client.NodeStatus;
import io.nova.client.ReplicaStatus;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Proves how {@code nova cluster status} prints a degraded cluster, without a cluster: the documented
 * JSON field names with {@code null} for what is unknown, and aligned tables that show a down node, a
 * group without a leader, a lagging replica and one its (up) node is still starting.
 */
class ClusterStatusFormatTest {

  static final ClusterStatus DEGRADED = new ClusterStatus("n1",
      List.of(new NodeStatus("n1", "h:7801", "h:7701", true, true, "1.0.0", "h:7901", OptionalLong.of(5_452_595)),
          new NodeStatus("n2", "h:7802", "h:7702", true, false, "", "h:7902"),
          new NodeStatus("n3", "h:7803", "h:7703", false, false, "", "h:7903")),
      List.of(
          new GroupStatus("meta", "uuid-m", List.of("n1", "n2", "n3"), "n1", 4, 20, 20, List.of(
              new ReplicaStatus("n1", true, "leader", 4, 20, 20, OptionalLong.empty(), OptionalLong.of(0)),
              new ReplicaStatus("n2", false, "", 0, 0, 0, OptionalLong.of(17), OptionalLong.empty()),
              new ReplicaStatus("n3", false, "", 0, 0, 0, OptionalLong.empty(), OptionalLong.empty())),
              OptionalLong.empty()),
          new GroupStatus("shard-0", "uuid-0", List.of("n1", "n2", "n3"), "", 7, 105, 100, List.of(
              new ReplicaStatus("n1", true, "candidate", 7, 105, 100, OptionalLong.empty(), OptionalLong.of(5),
                  OptionalLong.of(812), OptionalLong.of(3 * 1024 * 1024), OptionalLong.of(2048)),
              new ReplicaStatus("n2", false, "", 0, 0, 0, OptionalLong.empty(), OptionalLong.empty()),
              new ReplicaStatus("n3", false, "", 0, 0, 0, OptionalLong.empty(), OptionalLong.empty())),
              OptionalLong.of(12), OptionalLong.of(4_096), OptionalLong.of(3 * 1024 * 1024)),
          new GroupStatus("shard-1", "uuid-1", List.of("n1", "n2", "n3"), "", 0, 0, 0, List.of(
              new ReplicaStatus("n1", false, "", 0, 0, 0, OptionalLong.empty(), OptionalLong.empty()),
              new ReplicaStatus("n2", false, "", 0, 0, 0, OptionalLong.empty(), OptionalLong.empty()),
              new ReplicaStatus("n3", false, "", 0, 0, 0, OptionalLong.empty(), OptionalLong.empty())),
              OptionalLong.of(0))));

  @Test
  void jsonHasTheDocumentedFieldsAndNullForUnknownNumbers() {
    JsonNode json = ClusterStatusFormat.json(DEGRADED);
    assertThat(json.get("answered_by").asText()).isEqualTo("n1");
    JsonNode n2 = json.get("nodes").get(1);
    assertThat(n2.fieldNames()).toIterable()
        .containsExactly("node_id", "raft_address", "api_address", "http_address", "reachable", "up", "version",
            "leaders", "data_bytes", "disk_free_bytes", "disk_low", "member_state", "replaced_by");
    assertThat(n2.get("disk_free_bytes").isNull()).isTrue();
    assertThat(n2.get("disk_low").asBoolean()).isFalse();
    assertThat(n2.get("up").asBoolean()).isFalse();
    assertThat(n2.get("data_bytes").isNull()).isTrue();
    assertThat(json.get("nodes").get(0).get("data_bytes").asLong()).isEqualTo(5_452_595);
    assertThat(n2.get("reachable").asBoolean()).isTrue();
    JsonNode meta = json.get("groups").get(0);
    assertThat(meta.fieldNames()).toIterable().containsExactly("name", "group_id", "replicas", "leader", "term",
        "commit_index", "applied_index", "state", "stream_count", "stream_records", "stream_bytes", "replica_status");
    assertThat(meta.get("stream_records").isNull()).isTrue();
    assertThat(json.get("groups").get(1).get("stream_records").asLong()).isEqualTo(4_096);
    assertThat(json.get("groups").get(1).get("stream_bytes").asLong()).isEqualTo(3 * 1024 * 1024);
    assertThat(meta.get("state").asText()).isEqualTo("leader");
    assertThat(json.get("groups").get(1).get("state").asText()).isEqualTo("no_quorum");
    assertThat(meta.get("stream_count").isNull()).isTrue();
    JsonNode down = meta.get("replica_status").get(1);
    assertThat(down.fieldNames()).toIterable().containsExactly("node_id", "up", "role", "term", "commit_index",
        "applied_index", "match_index", "lag", "store_bytes", "log_bytes", "store_pending_compaction_bytes");
    assertThat(down.get("match_index").asLong()).isEqualTo(17);
    assertThat(down.get("store_bytes").isNull()).isTrue();
    JsonNode candidate = json.get("groups").get(1).get("replica_status").get(0);
    assertThat(candidate.get("store_bytes").asLong()).isEqualTo(812);
    assertThat(candidate.get("log_bytes").asLong()).isEqualTo(3 * 1024 * 1024);
    assertThat(candidate.get("store_pending_compaction_bytes").asLong()).isEqualTo(2048);
    assertThat(down.get("store_pending_compaction_bytes").isNull()).isTrue();
    assertThat(down.get("lag").isNull()).isTrue();
    assertThat(json.get("groups").get(1).get("stream_count").asLong()).isEqualTo(12);
  }

  /** Right after a full restart: every node up, one group electing, one still opening a replica. */
  static final ClusterStatus RESTARTING = new ClusterStatus("n1",
      List.of(new NodeStatus("n1", "h:7801", "h:7701", true, true, "1.0.0", "h:7901"),
          new NodeStatus("n2", "h:7802", "h:7702", true, true, "1.0.0", "h:7902"),
          new NodeStatus("n3", "h:7803", "h:7703", true, true, "1.0.0", "h:7903")),
      List.of(
          new GroupStatus("meta", "uuid-m", List.of("n1", "n2", "n3"), "n2", 5, 30, 30, List.of(
              new ReplicaStatus("n1", true, "follower", 5, 30, 30, OptionalLong.empty(), OptionalLong.of(0)),
              new ReplicaStatus("n2", true, "leader", 5, 30, 30, OptionalLong.empty(), OptionalLong.of(0)),
              new ReplicaStatus("n3", true, "follower", 5, 30, 30, OptionalLong.empty(), OptionalLong.of(0))),
              OptionalLong.empty()),
          new GroupStatus("shard-0", "uuid-0", List.of("n1", "n2", "n3"), "", 8, 40, 40, List.of(
              new ReplicaStatus("n1", true, "candidate", 8, 40, 40, OptionalLong.empty(), OptionalLong.empty()),
              new ReplicaStatus("n2", true, "follower", 7, 40, 40, OptionalLong.empty(), OptionalLong.empty()),
              new ReplicaStatus("n3", false, "", 0, 0, 0, OptionalLong.empty(), OptionalLong.empty())),
              OptionalLong.of(3)),
          new GroupStatus("shard-1", "uuid-1", List.of("n1", "n2", "n3"), "", 3, 9, 9, List.of(
              new ReplicaStatus("n1", true, "follower", 3, 9, 9, OptionalLong.empty(), OptionalLong.empty()),
              new ReplicaStatus("n2", false, "", 0, 0, 0, OptionalLong.empty(), OptionalLong.empty()),
              new ReplicaStatus("n3", false, "", 0, 0, 0, OptionalLong.empty(), OptionalLong.empty())),
              OptionalLong.of(1))));

  @Test
  void leaderlessGroupsOfUpNodesAreSaidToBeElectingOrStarting() {
    List<String> lines = ClusterStatusFormat.tables(RESTARTING, false).lines().toList();
    assertThat(lines).contains(
        "GROUP    LEADER    TERM  COMMIT  APPLIED  MAX-LAG  STREAMS  RECORDS  BYTES  REPLICAS",
        "meta     n2        5     30      30       0        -        -        -      n1 n2 n3",
        "shard-0  electing  8     40      40       -        3        -        -      n1 n2 n3(starting)",
        "shard-1  starting  3     9       9        -        1        -        -      n1 n2(starting) n3(starting)",
        "shard-0 (1 group): electing a leader: a majority of the replicas run, which elects one within a few"
            + " seconds (usual right after nodes start); appends and reads of their streams wait or answer"
            + " UNAVAILABLE until then.",
        "shard-1 (1 group): starting: the nodes are up but some are still opening their replica (recovering its"
            + " log), after which the group elects a leader.");
    assertThat(lines).noneMatch(l -> l.contains("NONE"));
    JsonNode groups = ClusterStatusFormat.json(RESTARTING).get("groups");
    assertThat(groups).extracting(g -> g.get("state").asText()).containsExactly("leader", "electing", "starting");
  }

  @Test
  void tablesShowDownNodesMissingLeadersAndLag() {
    String text = ClusterStatusFormat.tables(DEGRADED, true);
    List<String> lines = text.lines().toList();
    assertThat(lines.get(0)).isEqualTo("answered by n1");
    assertThat(lines).contains(
        "NODE  STATUS     LEADS  VERSION  DATA     API     HTTP    RAFT",
        "n1    up         1      1.0.0    5.2 MiB  h:7701  h:7901  h:7801",
        "n2    raft-only  0      -        -        h:7702  h:7902  h:7802",
        "n3    down       0      -        -        h:7703  h:7903  h:7803",
        "GROUP    LEADER  TERM  COMMIT  APPLIED  MAX-LAG  STREAMS  RECORDS  BYTES    REPLICAS",
        "meta     n1      4     20      20       0        -        -        -        n1 n2(down) n3(down)",
        "shard-0  NONE    7     105     100      5        12       4096     3.0 MiB  n1(lag 5) n2(down) n3(down)",
        "shard-1  NONE    0     0       0        -        0        -        -        n1(starting) n2(down) n3(down)",
        "GROUP    REPLICA  ROLE       TERM  COMMIT  APPLIED  MATCH  LAG  STORE  LOG      COMPACTION",
        "meta     n2       down       -     -       -        17     -    -      -        -",
        "shard-0  n1       candidate  7     105     100      -      5    812 B  3.0 MiB  2.0 KiB",
        "shard-1  n1       starting   -     -       -        -      -    -      -        -");
  }

  @Test
  void aNodeBelowItsDiskReserveIsMarkedLowDiskWithItsFreeBytes() {
    ClusterStatus lowDisk = new ClusterStatus("n1",
        List.of(new NodeStatus("n1", "h:7801", "h:7701", true, true, "1.0.0", "h:7901", OptionalLong.of(1024),
                OptionalLong.of(5L << 30), false),
            new NodeStatus("n2", "h:7802", "h:7702", true, true, "1.0.0", "h:7902", OptionalLong.of(2048),
                OptionalLong.of(12L << 20), true)),
        RESTARTING.groups());
    assertThat(ClusterStatusFormat.tables(lowDisk, false).lines().toList()).contains(
        "NODE  STATUS    LEADS  VERSION  DATA     API     HTTP    RAFT",
        "n1    up        0      1.0.0    1.0 KiB  h:7701  h:7901  h:7801",
        "n2    low-disk  1      1.0.0    2.0 KiB  h:7702  h:7902  h:7802");
    JsonNode n2 = ClusterStatusFormat.json(lowDisk).get("nodes").get(1);
    assertThat(n2.get("disk_low").asBoolean()).isTrue();
    assertThat(n2.get("disk_free_bytes").asLong()).isEqualTo(12L << 20);
  }

  @Test
  void aNodeBeingReplacedShowsItsReplacementAfterItsState() {
    NodeStatus replaced = new NodeStatus("n1", "h:7801", "h:7701", false, false, "", "h:7901", OptionalLong.empty(),
        OptionalLong.empty(), false, "draining", "n4");
    assertThat(ClusterStatusFormat.nodeState(replaced)).isEqualTo("down/draining->n4");
    NodeStatus drained = new NodeStatus("n2", "h:7802", "h:7702", true, true, "1.0.0", "h:7902",
        OptionalLong.empty(), OptionalLong.empty(), false, "draining");
    assertThat(ClusterStatusFormat.nodeState(drained)).isEqualTo("up/draining");
  }

  @Test
  void jsonCountsTheGroupsEachNodeLeads() {
    JsonNode nodes = ClusterStatusFormat.json(DEGRADED).get("nodes");
    // n1 leads the meta group; the shards have no leader, which counts for no one.
    assertThat(nodes).extracting(n -> n.get("leaders").asInt()).containsExactly(1, 0, 0);
  }

  @Test
  void withoutReplicasThereIsNoReplicaTable() {
    assertThat(ClusterStatusFormat.tables(DEGRADED, false)).doesNotContain("REPLICA ");
  }
}
