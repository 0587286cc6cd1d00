package io.nova.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.gateway.routing.GroupClients;
import io.nova.node.testing.LocalCluster;
import io.nova.node.testing.StreamReader;
import io.nova.proto.internal.CreateStreamMetaCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.v1.AppendSessionResponse;
import io.nova.proto.v1.DataPlaneGrpc;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadSessionRequest;
import io.nova.proto.v1.ReadSessionResponse;
import io.nova.proto.v1.ReadStart;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that the gRPC sessions reach a stream the way a unary call does, on a real 3-node cluster:
 * through a gateway whose cached placement went stale (the stream was deleted and re-created through
 * another node) and for a stream whose create stopped between the meta group and its shard, an append
 * session and a read session serve the stream as unary calls through that same gateway do.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionRoutingTest {

  static final Duration WAIT = Duration.ofSeconds(60);
  static final String BASIN = "routing";

  LocalCluster cluster;
  /** Calls through n1 only: it deletes and re-creates streams, so only its own cache is refreshed. */
  NovaClient viaN1;
  /** Unary calls through n2 only: the gateway whose cache goes stale, and that serves the sessions. */
  NovaClient viaN2;
  ManagedChannel n2;
  GroupClients groups;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    cluster = LocalCluster.start(dir, 3, 2);
    // The sessions are driven raw, without the SDK's retries: every group must have a leader first.
    cluster.awaitReady(WAIT);
    viaN1 = client("n1");
    viaN2 = client("n2");
    n2 = NettyChannelBuilder.forTarget(cluster.endpoint("n2")).usePlaintext().build();
    groups = new GroupClients(cluster.server("n1").node().layout());
    viaN1.createBasin(BASIN);
  }

  private NovaClient client(String nodeId) {
    return NovaClient.builder().endpoints(cluster.endpoint(nodeId)).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build();
  }

  @AfterAll
  void stop() throws InterruptedException {
    n2.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    groups.close();
    viaN2.close();
    viaN1.close();
    cluster.close();
  }

  @Test
  void anAppendSessionWritesToAStreamRecreatedBehindItsGatewaysCache() throws Exception {
    StreamAddress s = recreatedBehindTheCacheOfN2("append-recreated");
    appendThroughASessionOnN2(s, "session", 2);
    assertThat(viaN2.append(s, records("unary")).start().seqNum()).as("the unary path, after the session")
        .isEqualTo(2);
    assertThat(bodies(s)).containsExactly("session-0", "session-1", "unary");
  }

  @Test
  void aReadSessionReadsAStreamRecreatedBehindItsGatewaysCache() {
    StreamAddress s = recreatedBehindTheCacheOfN2("read-recreated");
    viaN1.append(s, records("new-0", "new-1"));
    Iterator<ReadSessionResponse> session = readSessionOnN2(s, 2);
    assertThat(delivered(session)).containsExactly("new-0", "new-1");
    assertThat(bodies(s)).as("what the unary path reads").containsExactly("new-0", "new-1");
  }

  @Test
  void anAppendSessionFinishesAnInterruptedCreate() throws Exception {
    StreamAddress s = createdInTheMetaGroupOnly("append-half-created");
    appendThroughASessionOnN2(s, "session", 1);
    assertThat(viaN2.append(s, records("unary")).start().seqNum()).as("the unary path, after the session")
        .isEqualTo(1);
    assertThat(bodies(s)).containsExactly("session-0", "unary");
  }

  @Test
  void aReadSessionFinishesAnInterruptedCreate() {
    StreamAddress s = createdInTheMetaGroupOnly("read-half-created");
    Iterator<ReadSessionResponse> session = readSessionOnN2(s, 1);
    ReadSessionResponse first = session.next();
    assertThat(first.hasHeartbeat()).as("%s", first).isTrue();
    assertThat(first.getHeartbeat().getSeqNum()).isZero();
    viaN1.append(s, records("late"));
    assertThat(delivered(session)).containsExactly("late");
  }

  /**
   * A stream whose placement n2 cached (a unary append through it), then deleted and re-created through
   * n1: n2's cache still names the deleted stream id, which its shard answers NOT_FOUND.
   */
  private StreamAddress recreatedBehindTheCacheOfN2(String name) {
    StreamAddress s = new StreamAddress(BASIN, name);
    long oldId = viaN1.createStream(s).streamId();
    viaN2.append(s, records("before-delete"));
    viaN1.deleteStream(s);
    assertThat(viaN1.createStream(s).streamId()).as("a new stream id").isNotEqualTo(oldId);
    return s;
  }

  /** A stream the meta group lists but no shard holds yet: a create-stream that stopped halfway. */
  private StreamAddress createdInTheMetaGroupOnly(String name) {
    MetaResult created = groups.writeMeta(MetaCommand.newBuilder()
        .setCreateStream(CreateStreamMetaCommand.newBuilder().setBasin(BASIN).setStream(name)).build());
    assertThat(created.hasStream()).as("%s", created).isTrue();
    return new StreamAddress(BASIN, name);
  }

  /** Opens an append session on n2, sends one batch of {@code count} records at match 0, expects its ack. */
  private void appendThroughASessionOnN2(StreamAddress s, String prefix, int count) throws Exception {
    try (RawAppendSession session = new RawAppendSession(n2, s.basin(), s.stream(), null)) {
      session.send(prefix, count, 0L);
      AppendSessionResponse response = session.take(1, WAIT).get(0);
      assertThat(response.hasAck()).as("%s", response).isTrue();
      assertThat(response.getAck().getStart().getSeqNum()).isZero();
      assertThat(response.getAck().getEnd().getSeqNum()).isEqualTo(count);
      session.finish();
      assertThat(session.ended.get(30, TimeUnit.SECONDS).isOk()).isTrue();
    }
  }

  /** A read session on n2 from seq_num 0 that ends after {@code count} records. */
  private Iterator<ReadSessionResponse> readSessionOnN2(StreamAddress s, int count) {
    return DataPlaneGrpc.newBlockingStub(n2).withDeadlineAfter(WAIT.toSeconds(), TimeUnit.SECONDS)
        .readSession(ReadSessionRequest.newBuilder().setBasin(s.basin()).setStream(s.stream())
            .setStart(ReadStart.newBuilder().setSeqNum(0)).setLimit(ReadLimit.newBuilder().setCount(count))
            .setHeartbeatMs(100).build());
  }

  /** The bodies a read session delivers until it ends (OK: its count is spent). */
  private static List<String> delivered(Iterator<ReadSessionResponse> session) {
    List<String> bodies = new ArrayList<>();
    session.forEachRemaining(r -> r.getBatch().getRecordsList()
        .forEach(record -> bodies.add(record.getBody().toStringUtf8())));
    return bodies;
  }

  private List<String> bodies(StreamAddress s) {
    return StreamReader.readAll(viaN2, s).stream().map(SequencedRecord::bodyUtf8).toList();
  }

  private static List<AppendRecord> records(String... bodies) {
    return Stream.of(bodies).map(AppendRecord::ofUtf8).toList();
  }
}
