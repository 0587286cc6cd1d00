package io.nova.statemachine.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.CreateBasinCommand;
import io.nova.proto.internal.CreateStreamMetaCommand;
import io.nova.proto.internal.DeleteBasinCommand;
import io.nova.proto.internal.DeleteStreamMetaCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListBasinsResponse;
import io.nova.proto.v1.ListStreamsRequest;
import io.nova.proto.v1.ListStreamsResponse;
import io.nova.proto.v1.StreamInfo;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Proves the meta core's create/delete rules, least-loaded placement, and paged, sorted listing. */
class MetaStateTest {
  private long index = 10;

  private MetaResult apply(MetaState state, MetaCommand.Builder command) {
    return state.apply(command.setArrivalMs(500).build(), index++).result();
  }

  private static MetaCommand.Builder createBasin(String name) {
    return MetaCommand.newBuilder().setCreateBasin(CreateBasinCommand.newBuilder().setBasin(name));
  }

  private static MetaCommand.Builder createStream(String basin, String name) {
    return MetaCommand.newBuilder().setCreateStream(CreateStreamMetaCommand.newBuilder().setBasin(basin).setStream(name));
  }

  @Test
  void basinAndStreamLifecycle() {
    MetaState state = new MetaState(3);
    assertThat(apply(state, createBasin("demo")).getBasin().getCreatedAtMs()).isEqualTo(500);
    assertThat(apply(state, createBasin("demo")).getError().hasAlreadyExists()).isTrue();
    assertThat(apply(state, createBasin("Bad_Name")).getError().getInvalidArgument().getField()).isEqualTo("basin");
    assertThat(apply(state, createStream("nope", "s")).getError().getNotFound().getResource()).isEqualTo("basin");
    StreamInfo events = apply(state, createStream("demo", "events")).getStream();
    assertThat(events.getStreamId()).isEqualTo(index - 1);
    assertThat(apply(state, createStream("demo", "events")).getError().hasAlreadyExists()).isTrue();
    assertThat(apply(state, MetaCommand.newBuilder().setDeleteBasin(DeleteBasinCommand.newBuilder().setBasin("demo")))
        .getError().hasBasinNotEmpty()).isTrue();
    MetaCommand.Builder deleteEvents = MetaCommand.newBuilder()
        .setDeleteStream(DeleteStreamMetaCommand.newBuilder().setBasin("demo").setStream("events"));
    assertThat(apply(state, deleteEvents).hasDone()).isTrue();
    assertThat(apply(state, deleteEvents).getError().hasNotFound()).isTrue();
    assertThat(apply(state, MetaCommand.newBuilder().setDeleteBasin(DeleteBasinCommand.newBuilder().setBasin("demo")))
        .hasDone()).isTrue();
    assertThat(state.query(MetaQuery.newBuilder().setGetBasin("demo").build()).getError().hasNotFound()).isTrue();
  }

  @Test
  void placesOnTheLeastLoadedShardLowestFirst() {
    MetaState state = new MetaState(3);
    apply(state, createBasin("demo"));
    List<Integer> shards = Stream.of("a", "b", "c", "d").map(n -> apply(state, createStream("demo", n)).getStream()
        .getShard()).toList();
    assertThat(shards).containsExactly(0, 1, 2, 0);
    apply(state, MetaCommand.newBuilder().setDeleteStream(DeleteStreamMetaCommand.newBuilder().setBasin("demo")
        .setStream("b")));
    assertThat(apply(state, createStream("demo", "e")).getStream().getShard()).isEqualTo(1);
    MetaState restored = MetaState.restore(3, List.of(state.getBasin("demo").orElseThrow()),
        state.listStreams(ListStreamsRequest.newBuilder().setBasin("demo").build()).getStreamsList());
    assertThat(List.of(restored.shardStreamCount(0), restored.shardStreamCount(1), restored.shardStreamCount(2)))
        .containsExactly(2L, 1L, 1L);
  }

  static Stream<Arguments> pages() {
    return Stream.of(
        Arguments.of("", "", 0, List.of("a1", "a2", "b1", "b2", "c1"), false),
        Arguments.of("", "", 2, List.of("a1", "a2"), true),
        Arguments.of("", "a2", 2, List.of("b1", "b2"), true),
        Arguments.of("b", "", 0, List.of("b1", "b2"), false),
        Arguments.of("b", "b1", 0, List.of("b2"), false),
        Arguments.of("b", "a", 1, List.of("b1"), true),
        Arguments.of("z", "", 0, List.of(), false),
        Arguments.of("", "c1", 5000, List.of(), false));
  }

  @ParameterizedTest(name = "prefix={0} startAfter={1} limit={2}")
  @MethodSource("pages")
  void listsPageInNameOrder(String prefix, String startAfter, int limit, List<String> names, boolean hasMore) {
    MetaState state = new MetaState(1);
    Stream.of("c1", "a2", "b1", "a1", "b2").forEach(n -> apply(state, createBasin(n)));
    apply(state, createBasin("c1"));
    Stream.of("c1", "a2", "b1", "a1", "b2").forEach(n -> apply(state, createStream("c1", n)));
    ListBasinsResponse basins = state.listBasins(ListBasinsRequest.newBuilder().setPrefix(prefix)
        .setStartAfter(startAfter).setLimit(limit).build());
    assertThat(basins.getBasinsList()).extracting(b -> b.getName()).containsExactlyElementsOf(names);
    assertThat(basins.getHasMore()).isEqualTo(hasMore);
    ListStreamsResponse streams = state.listStreams(ListStreamsRequest.newBuilder().setBasin("c1").setPrefix(prefix)
        .setStartAfter(startAfter).setLimit(limit).build());
    assertThat(streams.getStreamsList()).extracting(StreamInfo::getName).containsExactlyElementsOf(names);
    assertThat(streams.getHasMore()).isEqualTo(hasMore);
  }

  @Test
  void listLimitIsCappedAtOneThousand() {
    MetaState state = new MetaState(1);
    for (int i = 0; i < 1001; i++) {
      apply(state, createBasin(String.format("b%04d", i)));
    }
    ListBasinsResponse page = state.listBasins(ListBasinsRequest.newBuilder().setLimit(5000).build());
    assertThat(page.getBasinsCount()).isEqualTo(1000);
    assertThat(page.getHasMore()).isTrue();
  }
}
