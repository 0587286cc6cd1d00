package io.nova.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.nova.client.errors.BasinNotEmptyException;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NotFoundException;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.proto.v1.AppendRequest;
import io.nova.proto.v1.AppendResponse;
import io.nova.proto.v1.BasinNotEmpty;
import io.nova.proto.v1.CheckTailResponse;
import io.nova.proto.v1.CreateBasinResponse;
import io.nova.proto.v1.CreateStreamResponse;
import io.nova.proto.v1.DeleteBasinResponse;
import io.nova.proto.v1.DeleteStreamResponse;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.FenceRequest;
import io.nova.proto.v1.FenceResponse;
import io.nova.proto.v1.FencedOut;
import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.GetFencingTokenResponse;
import io.nova.proto.v1.GetStreamResponse;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListBasinsResponse;
import io.nova.proto.v1.ListStreamsRequest;
import io.nova.proto.v1.ListStreamsResponse;
import io.nova.proto.v1.NotFound;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.SequenceMismatch;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Proves that each client call sends the expected request to a real gRPC server and converts its reply or typed error. */
class NovaClientCallsTest {

    private static final StreamAddress ADDR = new StreamAddress("demo", "events");

    private ScriptedServer server;
    private NovaClient client;

    @BeforeEach
    void start() {
        server = new ScriptedServer();
        client = NovaClient.builder().endpoints(server.hostPort()).requestTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private static io.nova.proto.v1.StreamPosition pos(long seq, long ts) {
        return io.nova.proto.v1.StreamPosition.newBuilder().setSeqNum(seq).setTimestamp(ts).build();
    }

    private static AppendResponse ack(long start, long end) {
        return AppendResponse.newBuilder().setAck(io.nova.proto.v1.AppendAck.newBuilder()
                .setStart(pos(start, 1)).setEnd(pos(end, 2)).setTail(pos(end, 2))).build();
    }

    @Test
    void appendSendsRecordsAndReturnsTheAck() {
        server.script("Append", ack(0, 2));
        AppendRecord withHeader = new AppendRecord(123L,
                List.of(new Header(new byte[] {'k'}, new byte[] {'v'})), new byte[] {1, 2});
        AppendAck ack = client.append(ADDR, List.of(AppendRecord.ofUtf8("a"), withHeader));

        assertThat(ack).isEqualTo(new AppendAck(new StreamPosition(0, 1), new StreamPosition(2, 2),
                new StreamPosition(2, 2)));
        AppendRequest sent = server.onlyRequest("Append", AppendRequest.class);
        assertThat(sent.getBasin()).isEqualTo("demo");
        assertThat(sent.getStream()).isEqualTo("events");
        assertThat(sent.getInput().hasMatchSeqNum()).isFalse();
        assertThat(sent.getInput().hasFencingToken()).isFalse();
        assertThat(sent.getInput().getRecords(0).hasTimestamp()).isFalse();
        assertThat(sent.getInput().getRecords(0).getBody().toStringUtf8()).isEqualTo("a");
        assertThat(sent.getInput().getRecords(1).getTimestamp()).isEqualTo(123);
        assertThat(sent.getInput().getRecords(1).getHeaders(0).getName()).isEqualTo(ByteString.copyFromUtf8("k"));
        assertThat(sent.getInput().getRecords(1).getBody()).isEqualTo(ByteString.copyFrom(new byte[] {1, 2}));
    }

    @Test
    void appendRejectsBadBatchesBeforeSending() {
        assertThatThrownBy(() -> client.append(ADDR, List.of()))
                .isInstanceOfSatisfying(InvalidArgumentException.class, e -> assertThat(e.field()).isEqualTo("records"));
        assertThatThrownBy(() -> client.appendMatch(ADDR, -1, List.of(AppendRecord.ofUtf8("x"))))
                .isInstanceOfSatisfying(InvalidArgumentException.class,
                        e -> assertThat(e.field()).isEqualTo("match_seq_num"));
        assertThatThrownBy(() -> client.presenting("x".repeat(37)))
                .isInstanceOfSatisfying(InvalidArgumentException.class, e -> assertThat(e.limit()).contains("36"));
        assertThatThrownBy(() -> client.presenting(""))
                .isInstanceOfSatisfying(InvalidArgumentException.class,
                        e -> assertThat(e.field()).isEqualTo("fencing_token"));
        assertThat(server.calls("Append")).isZero();
    }

    @Test
    void presentingViewSendsTokenAndMatch() {
        server.script("Append", ack(5, 6));
        client.presenting("gen-42").appendMatch(ADDR, 5, List.of(AppendRecord.ofUtf8("x")));
        AppendRequest sent = server.onlyRequest("Append", AppendRequest.class);
        assertThat(sent.getInput().getFencingToken()).isEqualTo("gen-42");
        assertThat(sent.getInput().getMatchSeqNum()).isEqualTo(5);
    }

    @Test
    void appendMatchMissIsADefinitiveSequenceMismatch() {
        server.script("Append", ScriptedServer.error(Status.Code.FAILED_PRECONDITION, ErrorDetail.newBuilder()
                .setMessage("miss").setSequenceMismatch(SequenceMismatch.newBuilder().setTail(pos(3, 9))).build()));
        assertThatThrownBy(() -> client.appendMatch(ADDR, 5, List.of(AppendRecord.ofUtf8("x"))))
                .isInstanceOfSatisfying(SequenceMismatchException.class, e -> {
                    assertThat(e.tail()).isEqualTo(new StreamPosition(3, 9));
                    assertThat(e.resent()).isFalse();
                    assertThat(e.mayHaveTakenEffect()).isFalse();
                    assertThat(e).hasMessage(
                            "match_seq_num 5 missed: the committed tail is 3 (retry with match_seq_num 3)");
                });
        assertThat(server.calls("Append")).isEqualTo(1);
    }

    @Test
    void fencedOutCarriesTheInstalledToken() {
        server.script("Append", ScriptedServer.error(Status.Code.FAILED_PRECONDITION, ErrorDetail.newBuilder()
                .setFencedOut(FencedOut.newBuilder().setInstalledToken("gen-43")).build()));
        assertThatThrownBy(() -> client.presenting("gen-42").append(ADDR, List.of(AppendRecord.ofUtf8("x"))))
                .isInstanceOfSatisfying(FencedOutException.class,
                        e -> assertThat(e.installedToken()).isEqualTo("gen-43"));
    }

    @Test
    void readSendsOptionsAndConvertsRecords() {
        server.script("Read", ReadResponse.newBuilder()
                .addRecords(io.nova.proto.v1.SequencedRecord.newBuilder().setSeqNum(7).setTimestamp(70)
                        .addHeaders(io.nova.proto.v1.Header.newBuilder().setName(ByteString.copyFromUtf8("h")))
                        .setBody(ByteString.copyFromUtf8("seven")))
                .setTail(pos(8, 70)).build());
        ReadBatch batch = client.read(ADDR, ReadOptions.builder().startTimestamp(60).count(10).bytes(1000)
                .untilMs(99).clamp(true).waitFor(Duration.ofMillis(1500)).build());

        assertThat(batch.tail()).isEqualTo(new StreamPosition(8, 70));
        assertThat(batch.records()).singleElement().satisfies(r -> {
            assertThat(r.seqNum()).isEqualTo(7);
            assertThat(r.timestampMs()).isEqualTo(70);
            assertThat(r.bodyUtf8()).isEqualTo("seven");
            assertThat(r.headers()).containsExactly(new Header("h".getBytes(), new byte[0]));
        });
        ReadRequest sent = server.onlyRequest("Read", ReadRequest.class);
        assertThat(sent.getStart().getTimestamp()).isEqualTo(60);
        assertThat(sent.getLimit().getCount()).isEqualTo(10);
        assertThat(sent.getLimit().getBytes()).isEqualTo(1000);
        assertThat(sent.getUntil()).isEqualTo(99);
        assertThat(sent.getClamp()).isTrue();
        assertThat(sent.getWaitSecs()).isEqualTo(2);
    }

    @Test
    void readDefaultsStartAtZeroWithoutLimits() {
        server.script("Read", ReadResponse.newBuilder().setTail(pos(0, 0)).build());
        assertThat(client.read(ADDR, ReadOptions.defaults()).records()).isEmpty();
        ReadRequest sent = server.onlyRequest("Read", ReadRequest.class);
        assertThat(sent.getStart().getSeqNum()).isZero();
        assertThat(sent.getLimit().hasCount()).isFalse();
        assertThat(sent.hasUntil()).isFalse();
    }

    @Test
    void tailFenceAndToken() {
        server.script("CheckTail", CheckTailResponse.newBuilder().setTail(pos(4, 40)).build());
        server.script("Fence", FenceResponse.newBuilder().setBoundary(pos(4, 40)).build());
        server.script("GetFencingToken", GetFencingTokenResponse.newBuilder().setFencingToken("gen-1").build(),
                GetFencingTokenResponse.getDefaultInstance());

        assertThat(client.checkTail(ADDR)).isEqualTo(new StreamPosition(4, 40));
        assertThat(client.fence(ADDR, "gen-1")).isEqualTo(new StreamPosition(4, 40));
        assertThat(server.onlyRequest("Fence", FenceRequest.class).getFencingToken()).isEqualTo("gen-1");
        assertThat(client.fencingToken(ADDR)).contains("gen-1");
        assertThat(client.fencingToken(ADDR)).isEmpty();
        assertThatThrownBy(() -> client.fence(ADDR, "y".repeat(37))).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("fencing_token").hasMessageContaining("is 37 UTF-8 bytes; the limit is 36");
    }

    @Test
    void controlPlaneRoundTrips() {
        io.nova.proto.v1.StreamInfo info = io.nova.proto.v1.StreamInfo.newBuilder().setBasin("demo")
                .setName("events").setCreatedAtMs(5).setShard(2).setStreamId(77).build();
        io.nova.proto.v1.BasinInfo basin = io.nova.proto.v1.BasinInfo.newBuilder().setName("demo")
                .setCreatedAtMs(1).build();
        server.script("CreateBasin", CreateBasinResponse.newBuilder().setBasin(basin).build());
        server.script("ListBasins", ListBasinsResponse.newBuilder().addBasins(basin).setHasMore(true).build());
        server.script("CreateStream", CreateStreamResponse.newBuilder().setStream(info).build());
        server.script("GetStream", GetStreamResponse.newBuilder().setStream(info).build());
        server.script("ListStreams", ListStreamsResponse.newBuilder().addStreams(info).build());
        server.script("DeleteStream", DeleteStreamResponse.getDefaultInstance());
        server.script("DeleteBasin", DeleteBasinResponse.getDefaultInstance());

        StreamInfo expected = new StreamInfo("demo", "events", 5, 2, 77);
        assertThat(client.createBasin("nova://demo")).isEqualTo(new BasinInfo("demo", 1));
        assertThat(client.listBasins(new ListOptions("de", "a", 10)))
                .isEqualTo(new Page<>(List.of(new BasinInfo("demo", 1)), true));
        ListBasinsRequest lb = server.onlyRequest("ListBasins", ListBasinsRequest.class);
        assertThat(List.of(lb.getPrefix(), lb.getStartAfter(), lb.getLimit())).containsExactly("de", "a", 10);
        assertThat(client.createStream(ADDR)).isEqualTo(expected);
        assertThat(client.getStream(ADDR)).isEqualTo(expected);
        assertThat(client.listStreams("demo", ListOptions.all())).isEqualTo(new Page<>(List.of(expected), false));
        assertThat(server.onlyRequest("ListStreams", ListStreamsRequest.class).getBasin()).isEqualTo("demo");
        client.deleteStream(ADDR);
        client.deleteBasin("demo");
        assertThat(server.calls("DeleteStream")).isEqualTo(1);
        assertThat(server.calls("DeleteBasin")).isEqualTo(1);
    }

    @Test
    void controlPlaneTypedErrors() {
        server.script("DeleteBasin", ScriptedServer.error(Status.Code.FAILED_PRECONDITION,
                ErrorDetail.newBuilder().setBasinNotEmpty(BasinNotEmpty.newBuilder().setBasin("demo")).build()));
        server.script("GetStream", ScriptedServer.error(Status.Code.NOT_FOUND, ErrorDetail.newBuilder()
                .setMessage("stream events not found")
                .setNotFound(NotFound.newBuilder().setResource("stream").setName("events")).build()));
        assertThatThrownBy(() -> client.deleteBasin("demo")).isInstanceOf(BasinNotEmptyException.class);
        assertThatThrownBy(() -> client.getStream(ADDR)).isInstanceOfSatisfying(NotFoundException.class, e -> {
            assertThat(e.resource()).isEqualTo("stream");
            assertThat(e.mayHaveTakenEffect()).isFalse();
        });
        assertThat(server.calls("GetStream")).as("NOT_FOUND is not retried").isEqualTo(1);
    }

    @Test
    void clusterStatusConverts() {
        server.script("GetClusterStatus", GetClusterStatusResponse.newBuilder().setNodeId("n1")
                .addNodes(io.nova.proto.v1.NodeStatus.newBuilder().setNodeId("n1").setRaftAddress("h:1")
                        .setApiAddress("h:2").setReachable(true).setUp(true).setVersion("1.2.3").setHttpAddress("h:3"))
                .addGroups(io.nova.proto.v1.GroupStatus.newBuilder().setName("meta").setGroupId("g")
                        .addReplicas("n1").addReplicas("n2").setLeader("n1").setTerm(3).setCommitIndex(9)
                        .setAppliedIndex(8)
                        .addReplicaStatus(io.nova.proto.v1.ReplicaStatus.newBuilder().setNodeId("n1").setUp(true)
                                .setRole("leader").setTerm(3).setCommitIndex(9).setAppliedIndex(8).setLag(1))
                        .addReplicaStatus(io.nova.proto.v1.ReplicaStatus.newBuilder().setNodeId("n2")
                                .setMatchIndex(7)))
                .addGroups(io.nova.proto.v1.GroupStatus.newBuilder().setName("shard-0").setGroupId("h")
                        .setStreamCount(4))
                .build());
        assertThat(client.clusterStatus()).isEqualTo(new ClusterStatus("n1",
                List.of(new NodeStatus("n1", "h:1", "h:2", true, true, "1.2.3", "h:3")),
                List.of(new GroupStatus("meta", "g", List.of("n1", "n2"), "n1", 3, 9, 8, List.of(
                                new ReplicaStatus("n1", true, "leader", 3, 9, 8, OptionalLong.empty(),
                                        OptionalLong.of(1)),
                                new ReplicaStatus("n2", false, "", 0, 0, 0, OptionalLong.of(7), OptionalLong.empty())),
                                OptionalLong.empty()),
                        new GroupStatus("shard-0", "h", List.of(), "", 0, 0, 0, List.of(), OptionalLong.of(4)))));
    }

    @Test
    void closedClientRefusesCalls() {
        client.close();
        client.close();
        assertThatThrownBy(() -> client.checkTail(ADDR)).isInstanceOf(IllegalStateException.class);
    }
}
