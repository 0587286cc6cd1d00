package io.nova.statemachine.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nova.proto.v1.SequencedRecord;
import io.nova.proto.v1.StreamPosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Proves the feed's contract with the apply thread: a subscription starts at the tail read under the feed's
 * lock, receives only its own stream's batches in publish order, stops receiving once closed, is told when
 * it ends, and the feed refuses subscriptions past its bound.
 */
class TailFeedTest {

  /** What one subscriber was handed. */
  static final class Recorder implements TailFeed.Listener {
    final List<Long> seqNums = new ArrayList<>();
    final List<Long> tails = new ArrayList<>();
    int ended;

    @Override
    public void applied(List<SequencedRecord> records, StreamPosition tail) {
      records.forEach(r -> seqNums.add(r.getSeqNum()));
      tails.add(tail.getSeqNum());
    }

    @Override
    public void ended() {
      ended++;
    }
  }

  static List<SequencedRecord> records(long from, int count) {
    List<SequencedRecord> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(SequencedRecord.newBuilder().setSeqNum(from + i).setBody(ByteString.copyFromUtf8("r" + (from + i)))
          .build());
    }
    return out;
  }

  static StreamPosition tail(long seqNum) {
    return StreamPosition.newBuilder().setSeqNum(seqNum).build();
  }

  @Test
  void aSubscriptionStartsAtTheAppliedTailAndGetsOnlyItsStreamInOrder() {
    TailFeed feed = new TailFeed(8);
    Recorder seven = new Recorder();
    TailFeed.Subscription s = feed.subscribe(7, id -> Optional.of(40L), seven).orElseThrow();
    assertThat(s.fromSeqNum()).isEqualTo(40);

    feed.publish(7, records(40, 3), tail(43));
    feed.publish(8, records(0, 2), tail(2));
    feed.publish(7, records(43, 1), tail(44));

    assertThat(seven.seqNums).containsExactly(40L, 41L, 42L, 43L);
    assertThat(seven.tails).containsExactly(43L, 44L);
    s.close();
    s.close();
    feed.publish(7, records(44, 1), tail(45));
    assertThat(seven.seqNums).hasSize(4);
    assertThat(seven.ended).as("a close is not an end").isZero();
    assertThat(feed.size()).isZero();
  }

  @Test
  void aStreamThatIsNotLiveCannotBeSubscribedTo() {
    TailFeed feed = new TailFeed(8);
    assertThat(feed.subscribe(7, id -> Optional.empty(), new Recorder())).isEmpty();
    assertThat(feed.size()).isZero();
  }

  @Test
  void endingAStreamOrEverythingTellsEachSubscriberOnce() {
    TailFeed feed = new TailFeed(8);
    Recorder a = new Recorder();
    Recorder b = new Recorder();
    Recorder c = new Recorder();
    feed.subscribe(1, id -> Optional.of(0L), a);
    feed.subscribe(1, id -> Optional.of(0L), b);
    feed.subscribe(2, id -> Optional.of(0L), c);

    feed.end(1);
    feed.publish(1, records(0, 1), tail(1));
    assertThat(a.ended).isOne();
    assertThat(b.ended).isOne();
    assertThat(a.seqNums).isEmpty();
    assertThat(feed.size()).isOne();

    feed.endAll();
    feed.endAll();
    assertThat(c.ended).isOne();
    assertThat(feed.size()).isZero();
  }

  @Test
  void subscriptionsAreBounded() {
    TailFeed feed = new TailFeed(2);
    assertThat(feed.subscribe(1, id -> Optional.of(0L), new Recorder())).isPresent();
    TailFeed.Subscription second = feed.subscribe(2, id -> Optional.of(0L), new Recorder()).orElseThrow();
    assertThat(feed.subscribe(3, id -> Optional.of(0L), new Recorder())).isEmpty();
    second.close();
    assertThat(feed.subscribe(3, id -> Optional.of(0L), new Recorder())).isPresent();
    assertThatThrownBy(() -> new TailFeed(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
