package io.nova.statemachine.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.v1.BasinInfo;
import io.nova.proto.v1.StreamInfo;
import io.nova.statemachine.meta.MetaChange;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Proves, on real RocksDB, that meta changes persist with the applied index and reload in name order. */
class MetaStoreTest {
  @TempDir Path dir;

  @Test
  void changesSurviveReopen() {
    BasinInfo demo = BasinInfo.newBuilder().setName("demo").setCreatedAtMs(1).build();
    BasinInfo other = BasinInfo.newBuilder().setName("alpha").setCreatedAtMs(2).build();
    StreamInfo events = StreamInfo.newBuilder().setBasin("demo").setName("events").setStreamId(3).build();
    StreamInfo logs = StreamInfo.newBuilder().setBasin("demo").setName("logs").setStreamId(4).build();
    try (MetaStore store = new MetaStore(dir)) {
      store.applyBatch(new AppliedIndex(1, 1), new MetaChange.BasinPut(demo));
      store.applyBatch(new AppliedIndex(1, 2), new MetaChange.BasinPut(other));
      store.applyBatch(new AppliedIndex(1, 3), new MetaChange.StreamPut(events));
      store.applyBatch(new AppliedIndex(1, 4), new MetaChange.StreamPut(logs));
      store.applyBatch(new AppliedIndex(2, 5), new MetaChange.StreamDeleted(logs));
      store.applyBatch(new AppliedIndex(2, 6), new MetaChange.BasinDeleted("alpha"));
      store.applyBatch(new AppliedIndex(2, 7), new MetaChange.None());
    }
    try (MetaStore store = new MetaStore(dir)) {
      assertThat(store.appliedIndex()).isEqualTo(new AppliedIndex(2, 7));
      assertThat(store.loadBasins()).containsExactly(demo);
      assertThat(store.loadStreams()).containsExactly(events);
    }
  }
}
