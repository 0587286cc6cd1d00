package io.nova.statemachine.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.proto.v1.StreamConfig;
import io.nova.statemachine.stream.StreamUsage.StreamFigures;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Proves what a shard reports of its streams' storage: totals over live streams only (records between the
 * first retained seq_num and the tail, bytes appended minus trimmed), and exactly the few largest streams by
 * retained bytes, whatever the order the streams come in, so metrics name a bounded number of streams.
 */
class StreamUsageTest {

  private static StreamState stream(long id, String name, long first, long tail, long appended, long trimmed,
      boolean deleted) {
    return new StreamState(id, "b", name, tail, 0, "", 0, deleted, ProducerWindows.EMPTY, first,
        StreamConfig.getDefaultInstance(), 0, appended, trimmed);
  }

  @Test
  void totalsCountLiveStreamsRetainedRecordsAndBytes() {
    StreamUsage usage = StreamUsage.of(List.of(
        stream(1, "a", 0, 10, 1000, 0, false),
        stream(2, "trimmed", 4, 10, 1000, 400, false),
        stream(3, "gone", 0, 50, 5000, 0, true)), 10);
    assertThat(usage.streams()).isEqualTo(2);
    assertThat(usage.records()).isEqualTo(10 + 6);
    assertThat(usage.bytes()).isEqualTo(1000 + 600);
    assertThat(usage.largest()).containsExactly(new StreamFigures("b", "a", 0, 10, 1000),
        new StreamFigures("b", "trimmed", 4, 10, 600));
    assertThat(usage.largest().get(1).records()).isEqualTo(6);
  }

  @Test
  void onlyTheLargestStreamsAreKeptInAnyInputOrder() {
    List<StreamState> states = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      states.add(stream(i, "s" + i, 0, i, i * 10L, 0, false));
    }
    Collections.shuffle(states, new Random(7));
    StreamUsage usage = StreamUsage.of(states, 3);
    assertThat(usage.largest()).extracting(StreamFigures::stream).containsExactly("s999", "s998", "s997");
    assertThat(usage.streams()).isEqualTo(1000);
    assertThat(StreamUsage.of(states, 0).largest()).isEmpty();
    assertThat(StreamUsage.of(List.of(), 5)).isEqualTo(StreamUsage.NONE);
  }

  @Test
  void tiesAreBrokenByNameSoTheChoiceIsStable() {
    List<StreamState> states = List.of(stream(1, "c", 0, 1, 5, 0, false), stream(2, "a", 0, 1, 5, 0, false),
        stream(3, "b", 0, 1, 5, 0, false));
    assertThat(StreamUsage.of(states, 2).largest()).extracting(StreamFigures::stream).containsExactly("a", "b");
  }

  @Test
  void aNegativeBoundIsRefused() {
    assertThatThrownBy(() -> StreamUsage.of(List.of(), -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("largestMax must be >= 0");
  }
}
