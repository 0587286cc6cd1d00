package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.CliRun;
import io.nova.client.AppendRecord;
import io.nova.client.ClusterStatus;
import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the grow-and-shrink walk-through of docs/operations.md on real processes: {@code nova dev --nodes 3
 * --spare-nodes 1} starts a spare that hosts nothing, the add-node line its summary prints registers it,
 * {@code drain-node n1 --wait} moves every replica of n1 onto it while records are appended, and after
 * {@code remove-node n1} and stopping n1 every acknowledged record reads back at its seq_num.
 */
class DevSpareNodesTest {

  private static final StreamAddress WALK = new StreamAddress("demo", "walk");

  @TempDir Path dir;

  @Test
  void aSpareJoinsThroughTheAddNodeLineItPrintsAndTakesOverADrainedNode() throws Exception {
    int portBase = 26_000 + (int) (ProcessHandle.current().pid() % 40) * 10;
    DevProcess dev = DevProcess.start(Map.of(), "--nodes", "3", "--spare-nodes", "1", "--shards", "1",
        "--data-dir", dir.resolve("dev").toString(), "--port-base", Integer.toString(portBase),
        "--ready-timeout", "120s");
    try {
      dev.awaitReady();
      String endpoints = "127.0.0.1:" + (portBase + 1) + ",127.0.0.1:" + (portBase + 2) + ",127.0.0.1:"
          + (portBase + 3);
      assertThat(dev.printed("endpoints: " + endpoints)).as("clients start at the seed nodes").isTrue();
      assertThat(dev.printed("(spare)")).isTrue();
      String addNode = dev.out().stream().filter(l -> l.contains("./nova cluster add-node")).findFirst()
          .orElseThrow().strip().substring("./nova cluster ".length());
      assertThat(addNode).isEqualTo("add-node --id n4 --raft 127.0.0.1:" + (portBase + 104) + " --api 127.0.0.1:"
          + (portBase + 4) + " --http 127.0.0.1:" + (portBase + 204));

      try (NovaClient client = NovaClient.builder().endpoints(endpoints).requestTimeout(Duration.ofSeconds(10))
          .retryBudget(Duration.ofSeconds(30)).build()) {
        assertThat(client.clusterStatus().nodes()).extracting(n -> n.nodeId()).doesNotContain("n4");
        client.createStream(WALK);
        List<Long> acked = new ArrayList<>();
        acked.add(append(client, 0));

        String[] addArgs = ("cluster " + addNode).split(" ");
        CliRun.Result added = CliRun.against(endpoints, "", addArgs);
        assertThat(added.exitCode()).as(added.err()).isZero();
        assertThat(added.out()).contains("n4", "up");
        acked.add(append(client, 1));

        CliRun.Result drained = CliRun.against(endpoints, "", "cluster", "drain-node", "n1", "--wait",
            "--wait-timeout", "4m");
        assertThat(drained.exitCode()).as(drained.out() + drained.err()).isZero();
        ClusterStatus status = client.clusterStatus();
        assertThat(status.groups()).allSatisfy(g -> {
          assertThat(g.replicas()).doesNotContain("n1").contains("n4").hasSize(3);
          assertThat(g.leader()).isNotEqualTo("n1");
        });
        acked.add(append(client, 2));

        CliRun.Result removed = CliRun.against(endpoints, "", "cluster", "remove-node", "n1");
        assertThat(removed.exitCode()).as(removed.err()).isZero();
        long n1Pid = Long.parseLong(dev.out().stream().filter(l -> l.strip().startsWith("n1  pid "))
            .findFirst().orElseThrow().strip().split("\\s+")[2]);
        ProcessHandle.of(n1Pid).orElseThrow().destroy();
        acked.add(append(client, 3));

        List<String> bodies = new ArrayList<>();
        client.read(WALK, ReadOptions.defaults()).records().forEach(r -> bodies.add(r.bodyUtf8()));
        assertThat(bodies).containsExactly("before-0", "before-1", "before-2", "before-3");
        assertThat(acked).containsExactly(0L, 1L, 2L, 3L);
      }
    } finally {
      dev.stop();
    }
  }

  /** Appends {@code before-i} and returns its seq_num. */
  private static long append(NovaClient client, int i) {
    return client.append(WALK, List.of(AppendRecord.ofUtf8("before-" + i))).start().seqNum();
  }
}
