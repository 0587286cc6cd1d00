package io.nova.gateway.it;

import static io.nova.gateway.it.Records.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.nova.client.AppendRecord;
import io.nova.client.Header;
import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NotFoundException;
import io.nova.proto.v1.ControlPlaneGrpc;
import io.nova.proto.v1.CreateBasinRequest;
import io.nova.proto.v1.CreateStreamRequest;
import io.nova.proto.v1.ErrorDetail;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that every kind of bad input gets a typed error naming the field and the limit, appends
 * nothing, and leaves the cluster serving.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {

  static final int MIB = 1 << 20;

  ClusterFixture fx;
  NovaClient client;
  StreamAddress s;

  @BeforeAll
  void startCluster(@TempDir Path dir) throws Exception {
    fx = new ClusterFixture(dir, 3, 2);
    client = fx.client;
    s = fx.newStream("limits");
  }

  @AfterAll
  void stopCluster() {
    fx.close();
  }

  private void assertInvalid(Runnable call, String field) {
    long tailBefore = client.checkTail(s).seqNum();
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(InvalidArgumentException.class, e -> {
          assertThat(e.field()).isEqualTo(field);
          assertThat(e.limit()).isNotBlank();
          assertThat(e.mayHaveTakenEffect()).isFalse();
        });
    assertThat(client.checkTail(s).seqNum()).isEqualTo(tailBefore);
  }

  @Test
  void aRecordOverOneMebibyteIsRefused() {
    byte[] body = new byte[MIB];
    assertInvalid(() -> client.append(s, List.of(AppendRecord.of(body))), "records[0].body");
  }

  @Test
  void aRecordOfExactlyTheLimitIsAccepted() {
    byte[] body = new byte[MIB - 8];
    assertThat(client.append(s, List.of(AppendRecord.of(body))).end().seqNum())
        .isEqualTo(client.checkTail(s).seqNum());
  }

  @Test
  void moreThanAThousandRecordsIsRefused() {
    assertInvalid(() -> client.append(s, batch("x", 1001)), "records");
  }

  @Test
  void aBatchOverOneMebibyteIsRefused() {
    List<AppendRecord> records = Collections.nCopies(3, AppendRecord.of(new byte[MIB / 2]));
    assertInvalid(() -> client.append(s, records), "records");
  }

  @Test
  void anEmptyBatchIsRefused() {
    assertInvalid(() -> client.append(s, List.of()), "records");
  }

  @Test
  void aHeaderCountsTowardsTheRecordLimit() {
    Header big = new Header("h".getBytes(), new byte[MIB - 10]);
    assertInvalid(() -> client.append(s,
        List.of(new AppendRecord(null, List.of(big), "body".getBytes()))), "records[0]");
  }

  @Test
  void aTokenOverThirtySixBytesIsRefused() {
    String token = "é".repeat(19); // 38 UTF-8 bytes, 19 characters
    assertInvalid(() -> client.fence(s, token), "fencing_token");
    assertInvalid(() -> client.presenting(token).append(s, batch("a", 1)), "fencing_token");
  }

  @Test
  void badNamesAreRefused() throws Exception {
    // The SDK checks names with the cluster's own rules (protocol's Names) before sending anything...
    assertThatThrownBy(() -> client.createBasin("Bad_Basin"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Bad_Basin");
    assertThatThrownBy(() -> new StreamAddress("it", "star*name"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("star*name");
    // ...and a caller that does not use it gets INVALID_ARGUMENT naming the field.
    ManagedChannel channel = NettyChannelBuilder.forTarget(fx.cluster.endpoint("n1")).usePlaintext().build();
    try {
      ControlPlaneGrpc.ControlPlaneBlockingStub raw = ControlPlaneGrpc.newBlockingStub(channel)
          .withDeadlineAfter(30, TimeUnit.SECONDS);
      assertThat(refusedField(() -> raw.createBasin(CreateBasinRequest.newBuilder().setBasin("Bad_Basin").build())))
          .isEqualTo("basin");
      assertThat(refusedField(() -> raw.createStream(
          CreateStreamRequest.newBuilder().setBasin("it").setStream("star*name").build()))).isEqualTo("stream");
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** The field an INVALID_ARGUMENT answer to {@code call} names. */
  private static String refusedField(Runnable call) throws Exception {
    StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call::run);
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    ErrorDetail detail = StatusProto.fromThrowable(e).getDetails(0).unpack(ErrorDetail.class);
    return detail.getInvalidArgument().getField();
  }

  @Test
  void unknownBasinsAndStreamsAreNotFound() {
    assertThatThrownBy(() -> client.append(new StreamAddress("it", "nope"), batch("a", 1)))
        .isInstanceOfSatisfying(NotFoundException.class,
            e -> assertThat(e.resource()).isEqualTo("stream"));
    assertThatThrownBy(() -> client.checkTail(new StreamAddress("nobasin", "x")))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> client.createStream(new StreamAddress("nobasin", "x")))
        .isInstanceOfSatisfying(NotFoundException.class,
            e -> assertThat(e.resource()).isEqualTo("basin"));
  }

  @Test
  void aReadPastTheTailIsRefusedUnlessClamped() {
    long tail = client.checkTail(s).seqNum();
    assertThatThrownBy(() -> client.read(s, ReadOptions.builder().startSeqNum(tail + 5).build()))
        .isInstanceOfSatisfying(InvalidArgumentException.class,
            e -> assertThat(e.field()).isEqualTo("start.seq_num"));
    var clamped = client.read(s, ReadOptions.builder().startSeqNum(tail + 5).clamp(true).build());
    assertThat(clamped.records()).isEmpty();
    assertThat(clamped.tail().seqNum()).isEqualTo(tail);
  }

  @Test
  void theClusterStillServesAfterBadInput() {
    long tail = client.checkTail(s).seqNum();
    assertThat(client.appendMatch(s, tail, batch("ok", 1)).start().seqNum()).isEqualTo(tail);
  }
}
