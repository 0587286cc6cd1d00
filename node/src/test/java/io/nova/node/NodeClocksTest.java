package io.nova.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.config.PeerAddress;
import io.nova.node.testing.FreePorts;
import io.nova.node.testing.StreamReader;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.AppendRequest;
import io.nova.proto.v1.DataPlaneGrpc;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that a node reads its time from the clocks it is started with, on a real one-node cluster: a
 * fixed wall clock stamps every appended record, and a monotonic clock that runs a write's whole budget
 * out between two readings makes the gateway refuse the write unsent (DEADLINE_EXCEEDED), appending
 * nothing.
 */
class NodeClocksTest {

  static final Instant WALL = Instant.parse("2031-05-06T07:08:09Z");

  @TempDir
  Path dir;

  @Test
  void theWallClockStampsRecordsAndTheMonotonicClockSpendsWriteBudgets() throws Exception {
    AtomicBoolean rushing = new AtomicBoolean();
    AtomicLong readings = new AtomicLong();
    // While rushing, every reading is a minute after the one before: no write budget survives two.
    LongSupplier nanoTime = () -> System.nanoTime()
        + (rushing.get() ? TimeUnit.MINUTES.toNanos(readings.incrementAndGet()) : 0);
    List<Integer> ports = FreePorts.take(3);
    PeerAddress self = new PeerAddress("n1", "127.0.0.1:" + ports.get(0), "127.0.0.1:" + ports.get(1),
        "127.0.0.1:" + ports.get(2));
    NodeConfig config = new NodeConfig("clocks", "n1", dir.resolve("n1"), 1, 1000, List.of(self));
    StreamAddress s = new StreamAddress("clocks", "s");
    try (NovaServer server = NovaServer.start(config, NodeTuning.defaults(), Clock.fixed(WALL, ZoneOffset.UTC),
            nanoTime);
        NovaClient client = NovaClient.builder().endpoints(self.apiAddress()).retryBudget(Duration.ofSeconds(30))
            .build()) {
      client.createBasin("clocks");
      client.createStream(s);
      client.append(s, List.of(AppendRecord.ofUtf8("stamped")));
      assertThat(StreamReader.readAll(client, s)).extracting(SequencedRecord::timestampMs)
          .containsExactly(WALL.toEpochMilli());

      rushing.set(true);
      StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class, () -> rawAppend(self, s));
      rushing.set(false);
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      assertThat(refused.getStatus().getDescription()).contains("nothing was sent or appended");
      assertThat(client.checkTail(s).seqNum()).as("nothing appended").isEqualTo(1);
    }
  }

  /** One append straight to the node's gRPC API, with no retry of the SDK's in between. */
  private static void rawAppend(PeerAddress node, StreamAddress s) throws InterruptedException {
    ManagedChannel channel = NettyChannelBuilder.forTarget(node.apiAddress()).usePlaintext().build();
    try {
      DataPlaneGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS).append(AppendRequest.newBuilder()
          .setBasin(s.basin()).setStream(s.stream())
          .setInput(AppendInput.newBuilder().addRecords(io.nova.proto.v1.AppendRecord.newBuilder()
              .setBody(ByteString.copyFromUtf8("late"))))
          .build());
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
