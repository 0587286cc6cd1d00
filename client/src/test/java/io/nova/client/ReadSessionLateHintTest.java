package io.nova.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nova.client.internal.Backoff;
import io.nova.client.internal.EndpointPool;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.ReadSessionRequest;
import io.nova.proto.v1.ReadSessionResponse;
import io.nova.proto.v1.StreamPosition;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Proves that a read session whose leader hint arrived only after its first connection (made to another
 * node, as when the hint's wait ran out) moves once to the hinted node, resuming at the next seq_num it owes:
 * no record skipped or repeated, and a hint that names the node it is on moves nothing.
 */
class ReadSessionLateHintTest {

  private static final StreamAddress STREAM = new StreamAddress("b", "s");

  @Test
  void aLateHintMovesTheSessionToTheLeaderWithoutGapOrRepeat() throws Exception {
    try (ScriptedServer follower = new ScriptedServer(); ScriptedServer leader = new ScriptedServer()) {
      follower.script("ReadSession", List.of(batch(0, 2)));
      leader.script("ReadSession", List.of(batch(2, 2)));
      try (EndpointPool pool = new EndpointPool(List.of(follower.hostPort(), leader.hostPort()),
          Duration.ofSeconds(2))) {
        CompletableFuture<Optional<EndpointPool.Endpoint>> hint = new CompletableFuture<>();
        try (ReadSession session = open(pool, hint)) {
          assertThat(session.poll(Duration.ofSeconds(10)).map(SequencedRecord::seqNum)).contains(0L);
          assertThat(session.poll(Duration.ofSeconds(10)).map(SequencedRecord::seqNum)).contains(1L);
          hint.complete(pool.find(leader.hostPort()));
          assertThat(session.poll(Duration.ofSeconds(10)).map(SequencedRecord::seqNum)).contains(2L);
          assertThat(session.poll(Duration.ofSeconds(10)).map(SequencedRecord::seqNum)).contains(3L);
        }
      }
      assertThat(follower.calls("ReadSession")).isOne();
      ReadSessionRequest moved = leader.onlyRequest("ReadSession", ReadSessionRequest.class);
      assertThat(moved.getStart().getSeqNum()).as("resumes at the next seq_num owed").isEqualTo(2);
    }
  }

  @Test
  void aLateHintNamingTheCurrentNodeMovesNothing() throws Exception {
    try (ScriptedServer only = new ScriptedServer()) {
      only.script("ReadSession", List.of(batch(0, 1)));
      try (EndpointPool pool = new EndpointPool(List.of(only.hostPort()), Duration.ofSeconds(2))) {
        CompletableFuture<Optional<EndpointPool.Endpoint>> hint = new CompletableFuture<>();
        try (ReadSession session = open(pool, hint)) {
          assertThat(session.poll(Duration.ofSeconds(10)).map(SequencedRecord::seqNum)).contains(0L);
          hint.complete(pool.find(only.hostPort()));
          assertThat(session.poll(Duration.ofMillis(300))).isEmpty();
        }
      }
      assertThat(only.calls("ReadSession")).isOne();
    }
  }

  /** A session from seq_num 0 whose first connection waited out {@code hint} (incomplete) and took the first endpoint. */
  private static ReadSession open(EndpointPool pool, CompletableFuture<Optional<EndpointPool.Endpoint>> hint) {
    return new ReadSession(pool, STREAM, ReadOptions.builder().startSeqNum(0).build(), Duration.ofSeconds(1),
        Duration.ofSeconds(10), new Backoff(new SplittableRandom(1)), hint);
  }

  private static ReadSessionResponse batch(long from, int count) {
    ReadResponse.Builder b = ReadResponse.newBuilder()
        .setTail(StreamPosition.newBuilder().setSeqNum(from + count));
    for (long s = from; s < from + count; s++) {
      b.addRecords(io.nova.proto.v1.SequencedRecord.newBuilder().setSeqNum(s)
          .setBody(ByteString.copyFromUtf8("r" + s)));
    }
    return ReadSessionResponse.newBuilder().setBatch(b).build();
  }
}
