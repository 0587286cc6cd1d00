package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cluster.config.NodeConfig;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Proves the dev cluster's layout (ids, ports, files), its configs round-trip, and the port check. */
class DevClusterPlanTest {

  @TempDir Path dir;

  @Test
  void threeNodesGetFixedIdsAndPorts() throws Exception {
    DevClusterPlan plan = DevClusterPlan.of(3, dir, 4);
    assertThat(plan.configs()).extracting(NodeConfig::nodeId).containsExactly("n1", "n2", "n3");
    assertThat(plan.endpoints()).isEqualTo("127.0.0.1:7701,127.0.0.1:7702,127.0.0.1:7703");
    NodeConfig n2 = plan.configs().get(1);
    assertThat(n2.self().raftAddress()).isEqualTo("127.0.0.1:7802");
    assertThat(n2.self().httpAddress()).isEqualTo("127.0.0.1:7902");
    assertThat(plan.httpUrl("n1")).isEqualTo("http://127.0.0.1:7901");
    assertThat(n2.dataDir()).isEqualTo(dir.resolve("n2").resolve("data"));
    assertThat(n2.shardCount()).isEqualTo(4);
    assertThat(plan.configFile("n2")).isEqualTo(dir.resolve("n2/node.yaml"));
    assertThat(plan.logFile("n3")).isEqualTo(dir.resolve("n3/node.log"));
    n2.write(plan.configFile("n2"));
    assertThat(NodeConfig.load(plan.configFile("n2"))).isEqualTo(n2);
  }

  @Test
  void aPortBaseMovesEveryPort() {
    DevClusterPlan plan = DevClusterPlan.of(2, dir, 1, 9700);
    assertThat(plan.endpoints()).isEqualTo("127.0.0.1:9701,127.0.0.1:9702");
    assertThat(plan.configs().get(1).self().raftAddress()).isEqualTo("127.0.0.1:9802");
    assertThat(plan.configs().get(1).self().httpAddress()).isEqualTo("127.0.0.1:9902");
    assertThatThrownBy(() -> DevClusterPlan.of(1, dir, 1, 80)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DevClusterPlan.of(1, dir, 1, 65_400)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void oneNodeWorksAndTheCountIsBounded() {
    assertThat(DevClusterPlan.of(1, dir, 1).endpoints()).isEqualTo("127.0.0.1:7701");
    assertThatThrownBy(() -> DevClusterPlan.of(0, dir, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DevClusterPlan.of(10, dir, 1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sparesFollowTheSeedNodesAndListTheSeedsAndThemselves() {
    DevClusterPlan plan = DevClusterPlan.of(3, 2, dir, 4, 9700);
    assertThat(plan.seeds()).extracting(NodeConfig::nodeId).containsExactly("n1", "n2", "n3");
    assertThat(plan.spares()).extracting(NodeConfig::nodeId).containsExactly("n4", "n5");
    assertThat(plan.seeds()).allSatisfy(c -> assertThat(c.nodes()).extracting(p -> p.id())
        .containsExactly("n1", "n2", "n3"));
    NodeConfig n5 = plan.spares().get(1);
    assertThat(n5.nodes()).extracting(p -> p.id()).containsExactly("n1", "n2", "n3", "n5");
    assertThat(n5.self().apiAddress()).isEqualTo("127.0.0.1:9705");
    assertThat(n5.shardCount()).isEqualTo(4);
    assertThat(plan.endpoints()).as("clients start at the cluster's nodes")
        .isEqualTo("127.0.0.1:9701,127.0.0.1:9702,127.0.0.1:9703");
    assertThat(plan.httpUrl("n5")).isEqualTo("http://127.0.0.1:9905");
    assertThat(DevCluster.addNodeArguments(n5))
        .isEqualTo("add-node --id n5 --raft 127.0.0.1:9805 --api 127.0.0.1:9705 --http 127.0.0.1:9905");
    assertThat(plan.map(c -> c.withAuth(io.nova.cluster.auth.AuthSettings.ON)).spares()).as("a change keeps them spares")
        .hasSize(2).allSatisfy(c -> assertThat(c.auth().enabled()).isTrue());
    assertThat(DevClusterPlan.of(3, 0, dir, 4, 9700).spares()).isEmpty();
    assertThatThrownBy(() -> DevClusterPlan.of(3, 7, dir, 1, 9700)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 0 and 6");
    assertThatThrownBy(() -> DevClusterPlan.of(3, -1, dir, 1, 9700)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aTakenPortIsReported() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", 0));
      int port = taken.getLocalPort();
      assertThatThrownBy(() -> DevCluster.checkPortFree("127.0.0.1:" + port, "API port of node n1"))
          .isInstanceOf(DevCluster.StartFailure.class)
          .hasMessageContaining("port " + port).hasMessageContaining("already in use");
    }
  }

  @Test
  void childCommandRunsThisClassPathsServerVerb() {
    List<String> command = DevCluster.command(dir.resolve("n1/node.yaml"));
    assertThat(command.get(0)).endsWith("java");
    assertThat(command).containsSubsequence("-cp", System.getProperty("java.class.path"),
        "io.nova.cli.Main", "server", "--config", dir.resolve("n1/node.yaml").toString());
  }
}
