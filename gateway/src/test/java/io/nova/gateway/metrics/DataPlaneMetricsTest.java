package io.nova.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.metrics.NodeMetrics;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.FencedOut;
import io.nova.proto.v1.Header;
import io.nova.proto.v1.SequenceMismatch;
import io.nova.protocol.limits.Metering;
import java.util.List;
import java.util.Optional;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Proves the data plane's instruments without a cluster: registered in a node's registry, their counts
 * reach the Prometheus text and the JSON rendering under their documented names and values.
 */
class DataPlaneMetricsTest {

  private static final List<GroupSpec> GROUPS = List.of(spec("meta", -1), spec("shard-0", 0), spec("shard-1", 1));

  private final NodeMetrics metrics = NodeMetrics.start("unit-" + System.nanoTime(), GROUPS, g -> Optional.empty());
  private final DataPlaneMetrics dataPlane = new DataPlaneMetrics(metrics.registry());

  @AfterEach
  void close() {
    metrics.close();
  }

  private static GroupSpec spec(String name, int shard) {
    return new GroupSpec(name, shard, RaftGroup.valueOf(RaftGroupId.randomId()));
  }

  @Test
  void dataPlaneCountsAppearUnderTheirPrometheusNames() {
    DataPlaneMetrics dp = dataPlane;
    AppendRecord record = AppendRecord.newBuilder().setBody(ByteString.copyFromUtf8("hello"))
        .addHeaders(Header.newBuilder().setName(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("v")))
        .build();
    // The batch's check measured it; the metrics take that size as it is.
    dp.appendAcked(2, 2 * meteredBytes(record), 2_000_000);
    dp.appendRefused(ErrorDetail.newBuilder().setSequenceMismatch(SequenceMismatch.getDefaultInstance()).build());
    dp.appendRefused(ErrorDetail.newBuilder().setFencedOut(FencedOut.getDefaultInstance()).build());
    dp.appendRefused(ErrorDetail.newBuilder().setMessage("other").build());
    dp.appendFencedOutBySession();
    dp.fenceCompleted();
    dp.appendSessionOpened();
    dp.readSessionOpened();
    dp.readSessionOpened();
    dp.readSessionClosed();
    dp.appendSessionSuperseded();

    String text = metrics.exposition().prometheusText();
    assertThat(text)
        .contains("nova_append_batches_total 1.0\n")
        .contains("nova_append_records_total 2.0\n")
        .contains("nova_append_bytes_total " + (2.0 * meteredBytes(record)) + "\n")
        .contains("nova_append_ack_latency_seconds_count 1\n")
        .contains("nova_append_conflicts_total 1.0\n")
        .contains("nova_append_fenced_out_total 2.0\n")
        .contains("nova_fences_completed_total 1.0\n")
        .contains("nova_append_sessions_open 1.0\n")
        .contains("nova_read_sessions_open 1.0\n")
        .contains("nova_append_sessions_superseded_total 1.0\n")
        .contains("nova_read_batches_total 0.0\n");
  }

  private static long meteredBytes(AppendRecord r) {
    return Metering.meteredBytes(r);
  }

  @Test
  void jsonHoldsTheDataPlaneInstruments() throws Exception {
    dataPlane.fenceCompleted();
    JsonNode json = new ObjectMapper().readTree(metrics.exposition().json());
    assertThat(json.path("counters").path(DataPlaneMetrics.FENCES_COMPLETED).path("count").asLong()).isEqualTo(1);
    assertThat(json.path("timers").has(DataPlaneMetrics.APPEND_ACK_LATENCY)).isTrue();
  }
}
