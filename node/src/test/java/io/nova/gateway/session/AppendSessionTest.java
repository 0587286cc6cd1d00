package io.nova.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.StreamPosition;
import io.nova.node.testing.LocalCluster;
import io.nova.node.testing.StreamReader;
import io.nova.proto.v1.AppendSessionResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the gateway's append-session contract on the wire against a real 3-node cluster: pipelined
 * batches are acked in order with dense seq_nums, a match miss rejects only its own batch, and a Fence
 * supersedes exactly the sessions presenting the old token at the boundary readers observe.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AppendSessionTest {

  static final Duration WAIT = Duration.ofSeconds(60);

  LocalCluster cluster;
  NovaClient client;
  ManagedChannel channel;
  int streams;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    cluster = LocalCluster.start(dir, 3, 1);
    client = NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build();
    client.createBasin("sessions");
    channel = NettyChannelBuilder.forTarget(cluster.endpoint("n1")).usePlaintext().build();
  }

  @AfterAll
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    client.close();
    cluster.close();
  }

  StreamAddress newStream() {
    StreamAddress s = new StreamAddress("sessions", "s" + (++streams));
    client.createStream(s);
    return s;
  }

  @Test
  void aThousandPipelinedBatchesAreAckedInOrderWithDenseSeqNums() throws Exception {
    StreamAddress s = newStream();
    try (RawAppendSession session = new RawAppendSession(channel, s.basin(), s.stream(), null)) {
      for (int i = 0; i < 1000; i++) {
        session.send("b" + i, 2, null);
      }
      List<AppendSessionResponse> acks = session.take(1000, WAIT);
      for (int i = 0; i < 1000; i++) {
        assertThat(acks.get(i).hasAck()).as("response %d", i).isTrue();
        assertThat(acks.get(i).getAck().getStart().getSeqNum()).isEqualTo(2L * i);
        assertThat(acks.get(i).getAck().getEnd().getSeqNum()).isEqualTo(2L * i + 2);
      }
      session.finish();
      assertThat(session.ended.get(30, TimeUnit.SECONDS).isOk()).isTrue();
    }
    List<SequencedRecord> all = StreamReader.readAll(client, s);
    assertThat(all).hasSize(2000);
    assertThat(body(all.get(1998))).isEqualTo("b999-0");
  }

  @Test
  void aMissInTheMiddleOfAPipelineRejectsOnlyThatBatch() throws Exception {
    StreamAddress s = newStream();
    try (RawAppendSession session = new RawAppendSession(channel, s.basin(), s.stream(), null)) {
      for (long i = 0; i < 5; i++) {
        session.send("before" + i, 1, i);
      }
      session.send("wrong", 1, 999L);
      for (long i = 5; i < 9; i++) {
        session.send("after" + i, 1, i);
      }
      List<AppendSessionResponse> responses = session.take(10, WAIT);
      for (int i = 0; i < 10; i++) {
        if (i == 5) {
          assertThat(responses.get(i).hasRejected()).isTrue();
          assertThat(responses.get(i).getRejected().hasInstalledToken()).isFalse();
          // The committed tail: at most the cursor's 5, since earlier batches may not be applied yet.
          assertThat(responses.get(i).getRejected().getTail().getSeqNum()).isLessThanOrEqualTo(5);
        } else {
          long expected = i < 5 ? i : i - 1;
          assertThat(responses.get(i).getAck().getStart().getSeqNum()).as("batch %d", i).isEqualTo(expected);
        }
      }
    }
    List<String> bodies = StreamReader.readAll(client, s).stream().map(AppendSessionTest::body).toList();
    assertThat(bodies).containsExactly("before0-0", "before1-0", "before2-0", "before3-0", "before4-0",
        "after5-0", "after6-0", "after7-0", "after8-0");
  }

  @Test
  void aFenceSupersedesTheSessionsPresentingTheOldTokenAtTheBoundaryReadersSee() throws Exception {
    StreamAddress s = newStream();
    client.fence(s, "gen-1");
    try (RawAppendSession old1 = new RawAppendSession(channel, s.basin(), s.stream(), "gen-1");
        RawAppendSession old2 = new RawAppendSession(channel, s.basin(), s.stream(), "gen-1");
        RawAppendSession next = new RawAppendSession(channel, s.basin(), s.stream(), "gen-2")) {
      for (int i = 0; i < 20; i++) {
        old1.send("old1-" + i, 1, null);
        old2.send("old2-" + i, 1, null);
      }
      StreamPosition boundary = client.fence(s, "gen-2");
      for (int i = 20; i < 40; i++) {
        old1.send("old1-" + i, 1, null);
        old2.send("old2-" + i, 1, null);
      }
      next.send("next", 3, null);
      List<AppendSessionResponse> r1 = old1.take(40, WAIT);
      List<AppendSessionResponse> r2 = old2.take(40, WAIT);
      AppendSessionResponse nextAck = next.take(1, WAIT).get(0);

      long ackedOld = checkSupersededAt(r1, boundary) + checkSupersededAt(r2, boundary);
      for (int i = 20; i < 40; i++) {
        assertThat(r1.get(i).getRejected().getInstalledToken()).isEqualTo("gen-2");
        assertThat(r2.get(i).getRejected().getInstalledToken()).isEqualTo("gen-2");
      }
      assertThat(nextAck.getAck().getStart().getSeqNum()).isEqualTo(boundary.seqNum());
      List<SequencedRecord> all = StreamReader.readAll(client, s);
      assertThat(ackedOld).isEqualTo(boundary.seqNum());
      for (SequencedRecord r : all) {
        assertThat(body(r).startsWith("old")).as("record %d", r.seqNum()).isEqualTo(r.seqNum() < boundary.seqNum());
      }
      assertThat(all).hasSize((int) boundary.seqNum() + 3);
      // The superseded sessions stay superseded: closing them changes nothing for the new writer.
      old1.finish();
      old2.finish();
      next.send("still", 1, null);
      assertThat(next.take(1, WAIT).get(0).getAck().getStart().getSeqNum()).isEqualTo(boundary.seqNum() + 3);
    }
  }

  /** Acks (each below the boundary) come first, then only FencedOut; returns how many records were acked. */
  private static long checkSupersededAt(List<AppendSessionResponse> responses, StreamPosition boundary) {
    long acked = 0;
    boolean superseded = false;
    for (AppendSessionResponse r : responses) {
      if (r.hasAck()) {
        assertThat(superseded).as("an ack after the session was fenced out").isFalse();
        assertThat(r.getAck().getEnd().getSeqNum()).isLessThanOrEqualTo(boundary.seqNum());
        acked += r.getAck().getEnd().getSeqNum() - r.getAck().getStart().getSeqNum();
      } else {
        superseded = true;
        assertThat(r.getRejected().getInstalledToken()).isEqualTo("gen-2");
      }
    }
    return acked;
  }

  private static String body(SequencedRecord r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }
}
