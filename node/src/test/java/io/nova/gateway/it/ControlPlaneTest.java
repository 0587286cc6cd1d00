package io.nova.gateway.it;

import static io.nova.gateway.it.Records.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.BasinInfo;
import io.nova.client.ListOptions;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.StreamInfo;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.BasinNotEmptyException;
import io.nova.client.errors.NotFoundException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the control plane on a real cluster: basins and streams are created, listed with paging,
 * placed on shards, deleted, and a re-created stream starts empty.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControlPlaneTest {

  ClusterFixture fx;
  NovaClient client;

  @BeforeAll
  void startCluster(@TempDir Path dir) throws Exception {
    fx = new ClusterFixture(dir, 3, 3);
    client = fx.client;
  }

  @AfterAll
  void stopCluster() {
    fx.close();
  }

  @Test
  void basinsAreCreatedListedAndDeleted() {
    client.createBasin("cp-a");
    client.createBasin("cp-b");
    client.createBasin("cp-c");
    assertThatThrownBy(() -> client.createBasin("cp-a")).isInstanceOf(AlreadyExistsException.class);
    var page = client.listBasins(new ListOptions("cp-", "", 2));
    assertThat(page.items()).extracting(BasinInfo::name).containsExactly("cp-a", "cp-b");
    assertThat(page.hasMore()).isTrue();
    var rest = client.listBasins(new ListOptions("cp-", "cp-b", 2));
    assertThat(rest.items()).extracting(BasinInfo::name).containsExactly("cp-c");
    assertThat(rest.hasMore()).isFalse();
    client.deleteBasin("cp-c");
    assertThatThrownBy(() -> client.deleteBasin("cp-c")).isInstanceOf(NotFoundException.class);
  }

  @Test
  void aBasinWithStreamsCannotBeDeleted() {
    client.createBasin("cp-full");
    client.createStream(new StreamAddress("cp-full", "s"));
    assertThatThrownBy(() -> client.deleteBasin("cp-full")).isInstanceOf(BasinNotEmptyException.class);
    client.deleteStream(new StreamAddress("cp-full", "s"));
    client.deleteBasin("cp-full");
  }

  @Test
  void streamsSpreadOverShardsAndAreListed() {
    client.createBasin("cp-spread");
    for (int i = 0; i < 6; i++) {
      client.createStream(new StreamAddress("cp-spread", "s" + i));
    }
    var streams = client.listStreams("cp-spread", ListOptions.all()).items();
    assertThat(streams).extracting(StreamInfo::name).containsExactly("s0", "s1", "s2", "s3", "s4", "s5");
    assertThat(streams).extracting(StreamInfo::shard).containsOnly(0, 1, 2);
    assertThat(streams.stream().map(StreamInfo::streamId).distinct().count()).isEqualTo(6);
    assertThatThrownBy(() -> client.createStream(new StreamAddress("cp-spread", "s0")))
        .isInstanceOf(AlreadyExistsException.class);
  }

  @Test
  void aDeletedStreamIsGoneAndARecreatedOneStartsEmpty() {
    StreamAddress s = fx.newStream("recreate");
    client.append(s, batch("old", 5));
    StreamInfo before = client.getStream(s);
    client.deleteStream(s);
    assertThatThrownBy(() -> client.checkTail(s)).isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> client.append(s, batch("x", 1))).isInstanceOf(NotFoundException.class);
    StreamInfo after = client.createStream(s);
    assertThat(after.streamId()).isNotEqualTo(before.streamId());
    assertThat(client.checkTail(s).seqNum()).isZero();
    assertThat(client.append(s, batch("new", 1)).start().seqNum()).isZero();
  }

  /**
   * Every gateway that routed a stream before it was deleted and recreated (each may have resolved it
   * from its own, possibly lagging meta replica) sends later appends to the new stream, and none brings
   * a deleted stream back.
   */
  @Test
  void everyGatewayFollowsADeleteAndARecreate() {
    StreamAddress s = fx.newStream("regate");
    List<NovaClient> perNode = fx.cluster.nodeIds().stream().map(id -> NovaClient.builder()
        .endpoints(fx.cluster.endpoint(id)).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build()).toList();
    try {
      for (NovaClient c : perNode) {
        c.append(s, batch("old", 1));
      }
      client.deleteStream(s);
      for (NovaClient c : perNode) {
        assertThatThrownBy(() -> c.append(s, batch("gone", 1))).isInstanceOf(NotFoundException.class);
      }
      assertThatThrownBy(() -> client.getStream(s)).as("no gateway brought it back")
          .isInstanceOf(NotFoundException.class);
      client.createStream(s);
      for (NovaClient c : perNode) {
        c.append(s, batch("new", 1));
      }
      assertThat(client.checkTail(s).seqNum()).as("one record per gateway, in the new stream only")
          .isEqualTo(perNode.size());
    } finally {
      perNode.forEach(NovaClient::close);
    }
  }

  @Test
  void clusterStatusShowsEveryNodeAndGroupWithALeader() {
    var status = client.clusterStatus();
    assertThat(status.nodes()).hasSize(3).allMatch(n -> n.reachable());
    assertThat(status.groups()).extracting(g -> g.name())
        .containsExactly("meta", "shard-0", "shard-1", "shard-2");
    assertThat(status.groups()).allSatisfy(g -> {
      assertThat(g.replicas()).hasSize(3);
      assertThat(g.leader()).isIn("n1", "n2", "n3");
      assertThat(g.term()).isPositive();
      assertThat(g.commitIndex()).isGreaterThanOrEqualTo(g.appliedIndex() - 0);
    });
  }
}
