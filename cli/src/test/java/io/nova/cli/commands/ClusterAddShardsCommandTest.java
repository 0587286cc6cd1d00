package io.nova.cli.commands;

import static io.nova.cli.commands.ClusterCli.nova;
import static io.nova.cli.commands.ClusterCli.status;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cli.ExitCodes;
import io.nova.cli.commands.ClusterCli.Result;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves {@code nova cluster add-shards} against a real 3-node in-JVM cluster: a count of 0, 65 or -1 and a
 * negative {@code --expect-shard-count} exit 2, a stale {@code --expect-shard-count} exits 1, each changing nothing; then
 * {@code add-shards 2 --expect-shard-count 1 -j --wait} prints the two groups provisioning and then taking
 * streams, status lists shard-1 and shard-2 with leaders and no provisioning mark, and three new streams
 * go one to each of the three (empty) groups.
 */
class ClusterAddShardsCommandTest {

  @Test
  void refusalsChangeNothingThenTwoGroupsAreAddedAndTakeStreams(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = ClusterCli.startSeeded(dir, 3, 1, ClusterMoveCommandTest.TUNING)) {
      long version = status(cluster).get("placement_version").asLong();
      for (String bad : new String[] {"0", "65"}) {
        Result refused = nova(cluster, "cluster", "add-shards", bad);
        assertThat(refused.exitCode()).as(refused.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(refused.err()).contains("count is " + bad);
      }
      Result negative = nova(cluster, "cluster", "add-shards", "--", "-1");
      assertThat(negative.exitCode()).as(negative.err()).isEqualTo(ExitCodes.USAGE);
      assertThat(negative.err()).contains("N must be between 1 and 64, was -1");
      Result negativeExpected = nova(cluster, "cluster", "add-shards", "1", "--expect-shard-count", "-5");
      assertThat(negativeExpected.exitCode()).as(negativeExpected.err()).isEqualTo(ExitCodes.USAGE);
      assertThat(negativeExpected.err()).contains("--expect-shard-count must be 0 or more, was -5");
      Result stale = nova(cluster, "cluster", "add-shards", "1", "--expect-shard-count", "4");
      assertThat(stale.exitCode()).as(stale.err()).isEqualTo(ExitCodes.FAILURE);
      assertThat(stale.err()).contains("1 shard groups, not the 4 expected");
      assertThat(status(cluster).get("placement_version").asLong()).isEqualTo(version);

      Result added = nova(cluster, "cluster", "add-shards", "2", "--expect-shard-count", "1", "-j", "--wait",
          "--wait-timeout", "90s");
      assertThat(added.exitCode()).as(added.err()).isZero();
      String[] lines = added.out().strip().split("\n");
      assertThat(lines).hasSize(2);
      JsonNode answered = new ObjectMapper().readTree(lines[0]);
      assertThat(answered.get("groups").toString()).isEqualTo("[\"shard-1\",\"shard-2\"]");
      assertThat(answered.get("shard_count").asInt()).isEqualTo(3);
      assertThat(answered.get("provisioning").asBoolean()).isTrue();
      assertThat(new ObjectMapper().readTree(lines[1]).get("provisioning").asBoolean()).isFalse();

      JsonNode after = status(cluster);
      assertThat(after.get("groups")).hasSize(4);
      for (JsonNode group : after.get("groups")) {
        assertThat(group.has("provisioning")).as(group.toString()).isFalse();
        assertThat(group.get("leader").asText()).as(group.toString()).isNotEmpty();
      }

      assertThat(nova(cluster, "create-basin", "nova://demo").exitCode()).isZero();
      for (int i = 0; i < 3; i++) {
        Result created = nova(cluster, "create-stream", "nova://demo/fresh-" + i);
        assertThat(created.exitCode()).as(created.err()).isZero();
      }
      Result listed = nova(cluster, "ls", "nova://demo", "-j");
      assertThat(listed.exitCode()).as(listed.err()).isZero();
      java.util.Set<Integer> shards = new java.util.TreeSet<>();
      for (String line : listed.out().strip().split("\n")) {
        shards.add(new ObjectMapper().readTree(line).get("shard").asInt());
      }
      assertThat(shards).as("three empty groups take one new stream each").containsExactly(0, 1, 2);
    }
  }
}
