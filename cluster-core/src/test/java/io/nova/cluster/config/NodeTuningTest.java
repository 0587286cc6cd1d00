package io.nova.cluster.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.protocol.limits.Limits;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves that the node's tunables are checked when built: the defaults and each key's extreme values
 * build, a value just out of its range or a broken combination (a read timeout below a shard's park, a
 * margin above its deadline, fewer HTTP threads than the minimum) is refused naming the key and the range,
 * and a builder copied from a tuning rebuilds it.
 */
class NodeTuningTest {

  static Stream<Arguments> refused() {
    long park = Limits.READ_PARK_MS_MAX;
    return Stream.of(
        refused("rpcThreadsMax", b -> b.rpcThreadsMax(0), "rpcThreadsMax 0 must be between 1 and 10000"),
        refused("rpcQueuedCallsMax", b -> b.rpcQueuedCallsMax(0), "rpcQueuedCallsMax 0 must be between 1"),
        refused("grpcMessageBytesMax", b -> b.grpcMessageBytesMax(Limits.COMMAND_SERIALIZED_BYTES_MAX),
            "grpcMessageBytesMax 1572864 must be between 1572865"),
        refused("grpcShutdownGraceMs", b -> b.grpcShutdownGraceMs(-1), "grpcShutdownGraceMs -1"),
        refused("sessionThreadsMax", b -> b.sessionThreadsMax(0), "sessionThreadsMax 0"),
        refused("sessionWritersMax", b -> b.sessionWritersMax(10_001), "sessionWritersMax 10001"),
        refused("clientKeepAliveMinMs", b -> b.clientKeepAliveMinMs(-1), "clientKeepAliveMinMs -1"),
        refused("a read timeout at the park", b -> b.shardReadRequestTimeoutMs(park),
            "shardReadRequestTimeoutMs 10000 must be between 10001"),
        refused("a reply margin past the read timeout", b -> b.readReplyMarginMs(5_000),
            "readReplyMarginMs 5000 must be between 1 and 4999"),
        refused("a shorter read timeout leaves less margin", b -> b.shardReadRequestTimeoutMs(park + 4_000),
            "readReplyMarginMs 4000 must be between 1 and 3999"),
        refused("retiring before the read timeout", b -> b.retiredClientCloseDelayMs(park + 5_000),
            "retiredClientCloseDelayMs 15000 must be between 15001"),
        refused("writeDeadlineDefaultMs", b -> b.writeDeadlineDefaultMs(0), "writeDeadlineDefaultMs 0"),
        refused("a margin as long as the deadline", b -> b.writeDeadlineDefaultMs(100),
            "writeAdmissionMarginMs 100 must be between 0 and 99"),
        refused("a session window below one batch",
            b -> b.appendSessionInFlightBytesMax(Limits.COMMAND_SERIALIZED_BYTES_MAX - 1),
            "appendSessionInFlightBytesMax 1572863"),
        refused("a heartbeat no client may ask for", b -> b.readSessionHeartbeatDefaultMs(99),
            "readSessionHeartbeatDefaultMs 99 must be between 100 and 10000"),
        refused("sseSessionsMax", b -> b.sseSessionsMax(0), "sseSessionsMax 0"),
        refused("sseShutdownGraceMs", b -> b.sseShutdownGraceMs(-1), "sseShutdownGraceMs -1"),
        refused("sseResolveBudgetMs", b -> b.sseResolveBudgetMs(-1), "sseResolveBudgetMs -1"),
        refused("sseUnavailableBudgetMs", b -> b.sseUnavailableBudgetMs(-1), "sseUnavailableBudgetMs -1"),
        refused("a pause longer than the shortest heartbeat", b -> b.ssePauseMs(101), "ssePauseMs 101"),
        refused("sseReconnectMs", b -> b.sseReconnectMs(-1), "sseReconnectMs -1"),
        refused("a body limit below a batch", b -> b.httpRequestBodyBytesMax(Limits.BATCH_METERED_BYTES_MAX - 1),
            "httpRequestBodyBytesMax 1048575"),
        refused("httpThreadsMax", b -> b.httpThreadsMax(7), "httpThreadsMax 7 must be between 8"),
        refused("more idle threads than threads", b -> b.httpThreadsMax(8).httpThreadsMin(9),
            "httpThreadsMin 9 must be between 1 and 8"),
        refused("httpConnectionsMax", b -> b.httpConnectionsMax(0), "httpConnectionsMax 0"),
        refused("httpThreadIdleMs", b -> b.httpThreadIdleMs(0), "httpThreadIdleMs 0"),
        refused("a connection cut during a long poll", b -> b.httpConnectionIdleMs(60_000),
            "httpConnectionIdleMs 60000 must be between 60001"),
        refused("readWaitersMax", b -> b.readWaitersMax(0), "readWaitersMax 0"),
        refused("readWaiterAnswerThreadsMax", b -> b.readWaiterAnswerThreadsMax(0), "readWaiterAnswerThreadsMax 0"),
        refused("retentionPassIntervalMs", b -> b.retentionPassIntervalMs(9), "retentionPassIntervalMs 9"),
        refused("retentionStreamsPerPassMax", b -> b.retentionStreamsPerPassMax(0), "retentionStreamsPerPassMax 0"),
        refused("leaderBalanceIntervalMs", b -> b.leaderBalanceIntervalMs(99), "leaderBalanceIntervalMs 99"),
        refused("leaderBalanceTransfersMax", b -> b.leaderBalanceTransfersMax(1_001), "leaderBalanceTransfersMax 1001"),
        refused("leaderBalanceTransferTimeoutMs", b -> b.leaderBalanceTransferTimeoutMs(60_001),
            "leaderBalanceTransferTimeoutMs 60001"),
        refused("a disk reserve below a few largest entries",
            b -> b.diskReserveBytes(4L * Limits.COMMAND_SERIALIZED_BYTES_MAX - 1),
            "diskReserveBytes 6291455 must be between 6291456 and 1099511627776"),
        refused("a disk reserve above 1 TiB", b -> b.diskReserveBytes((1L << 40) + 1), "diskReserveBytes 1099511627777"),
        refused("diskSampleIntervalMs", b -> b.diskSampleIntervalMs(9), "diskSampleIntervalMs 9 must be between 10"),
        refused("a disk sample interval above a minute", b -> b.diskSampleIntervalMs(60_001),
            "diskSampleIntervalMs 60001"),
        refused("metricsLargestStreamsMax", b -> b.metricsLargestStreamsMax(1_001),
            "metricsLargestStreamsMax 1001 must be between 0 and 1000"),
        refused("a log-bytes snapshot interval below a few largest entries",
            b -> b.snapshotEveryLogBytes((4L << 20) - 1), "snapshotEveryLogBytes 4194303 must be between 4194304"),
        refused("a log-bytes snapshot interval above 1 TiB", b -> b.snapshotEveryLogBytes((1L << 40) + 1),
            "snapshotEveryLogBytes 1099511627777"),
        refused("a stream directory below 1000 entries", b -> b.streamDirectoryEntriesMax(999),
            "streamDirectoryEntriesMax 999 must be between 1000 and 100000000"));
  }

  private static Arguments refused(String what, UnaryOperator<NodeTuning.Builder> change, String message) {
    return Arguments.of(what, change, message);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void aValueOutOfRangeOrABrokenCombinationIsRefusedNamingTheKey(String what,
      UnaryOperator<NodeTuning.Builder> change, String message) {
    assertThatThrownBy(() -> change.apply(NodeTuning.builder()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  static Stream<Arguments> accepted() {
    long park = Limits.READ_PARK_MS_MAX;
    return Stream.of(
        Arguments.of("the defaults", UnaryOperator.<NodeTuning.Builder>identity()),
        Arguments.of("the tightest read timeout and margin",
            (UnaryOperator<NodeTuning.Builder>) b -> b.shardReadRequestTimeoutMs(park + 2).readReplyMarginMs(1)
                .retiredClientCloseDelayMs(park + 3)),
        Arguments.of("a margin just below the deadline",
            (UnaryOperator<NodeTuning.Builder>) b -> b.writeDeadlineDefaultMs(100).writeAdmissionMarginMs(99)),
        Arguments.of("the smallest pools and bounds",
            (UnaryOperator<NodeTuning.Builder>) b -> b.rpcThreadsMax(1).rpcQueuedCallsMax(1).sessionThreadsMax(1)
                .sessionWritersMax(1).sseSessionsMax(1).httpThreadsMax(8).httpThreadsMin(8).httpConnectionsMax(1)
                .readWaitersMax(1).readWaiterAnswerThreadsMax(1)),
        Arguments.of("the shortest and longest heartbeat default",
            (UnaryOperator<NodeTuning.Builder>) b -> b.readSessionHeartbeatDefaultMs(
                Limits.READ_SESSION_HEARTBEAT_MS_MAX).ssePauseMs(Limits.READ_SESSION_HEARTBEAT_MS_MIN)),
        Arguments.of("windows of exactly one largest batch",
            (UnaryOperator<NodeTuning.Builder>) b -> b.appendSessionInFlightBytesMax(
                Limits.COMMAND_SERIALIZED_BYTES_MAX).httpRequestBodyBytesMax(Limits.BATCH_METERED_BYTES_MAX)),
        Arguments.of("the smallest disk reserve and sample interval",
            (UnaryOperator<NodeTuning.Builder>) b -> b.diskReserveBytes(4L * Limits.COMMAND_SERIALIZED_BYTES_MAX)
                .diskSampleIntervalMs(10).metricsLargestStreamsMax(0)),
        Arguments.of("the largest disk reserve and sample interval",
            (UnaryOperator<NodeTuning.Builder>) b -> b.diskReserveBytes(1L << 40).diskSampleIntervalMs(60_000)),
        Arguments.of("the smallest log-bytes snapshot interval",
            (UnaryOperator<NodeTuning.Builder>) b -> b.snapshotEveryLogBytes(4L << 20)),
        Arguments.of("the largest log-bytes snapshot interval",
            (UnaryOperator<NodeTuning.Builder>) b -> b.snapshotEveryLogBytes(1L << 40)),
        Arguments.of("the smallest stream directory",
            (UnaryOperator<NodeTuning.Builder>) b -> b.streamDirectoryEntriesMax(1_000)),
        Arguments.of("the largest stream directory",
            (UnaryOperator<NodeTuning.Builder>) b -> b.streamDirectoryEntriesMax(100_000_000)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("accepted")
  void valuesWithinTheirRangesBuildAndRoundTrip(String what, UnaryOperator<NodeTuning.Builder> change) {
    NodeTuning tuning = change.apply(NodeTuning.builder()).build();
    assertThat(tuning.toBuilder().build()).isEqualTo(tuning);
  }

  @Test
  void theDefaultsAreTheValuesTheNodeRanWithBefore() {
    NodeTuning d = NodeTuning.defaults();
    assertThat(d.rpcThreadsMax()).isEqualTo(64);
    assertThat(d.shardReadRequestTimeoutMs()).isEqualTo(15_000);
    assertThat(d.retiredClientCloseDelayMs()).isEqualTo(20_000);
    assertThat(d.writeDeadlineDefaultMs()).isEqualTo(8_000);
    assertThat(d.appendSessionInFlightBytesMax()).isEqualTo(16L << 20);
    assertThat(d.httpRequestBodyBytesMax()).isEqualTo(8 << 20);
    assertThat(d.readWaitersMax()).isEqualTo(10_000);
    assertThat(d.retentionPassIntervalMs()).isEqualTo(1_000);
    assertThat(d.retentionStreamsPerPassMax()).isEqualTo(1_000);
    assertThat(d.leaderBalanceIntervalMs()).isEqualTo(30_000);
    assertThat(d.leaderBalanceTransfersMax()).isEqualTo(3);
    assertThat(d.leaderBalanceTransferTimeoutMs()).isEqualTo(5_000);
    assertThat(d.diskReserveBytes()).isEqualTo(1L << 30);
    assertThat(d.diskSampleIntervalMs()).isEqualTo(1_000);
    assertThat(d.metricsLargestStreamsMax()).isEqualTo(10);
    assertThat(NodeTuning.builder().build()).isEqualTo(d);
  }
}
