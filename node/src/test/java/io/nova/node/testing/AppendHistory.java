package io.nova.node.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A recorded history of one-shot appends (each with a globally unique body) and the checks that the
 * final stream must pass against it, whatever failed while the history ran:
 *
 * <ul>
 *   <li>the stream is dense from 0 to its tail and no payload appears twice;
 *   <li>every acknowledged append is present exactly at its acknowledged seq_num;
 *   <li>a conditional success landed exactly at its match_seq_num;
 *   <li>a definite failure had no effect.
 * </ul>
 *
 * <p>Thread-safe: writers may record concurrently.
 */
public final class AppendHistory {

  /** One append attempt: its unique body, its match (null for plain) and how it ended. */
  public record Outcome(String body, Long match, AppendAck ack, boolean definiteFailure) {
    public boolean acked() {
      return ack != null;
    }
  }

  private final List<Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());

  /**
   * Appends single-record batches with bodies {@code writer-i} until {@code stop} says so, or
   * {@code attemptsMax} attempts, or 120 s. A conditional writer matches the tail it just read.
   */
  public void write(NovaClient client, StreamAddress stream, String writer, boolean conditional,
      BooleanSupplier stop, int attemptsMax) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    for (int i = 0; !stop.getAsBoolean() && System.nanoTime() < deadline && i < attemptsMax; i++) {
      String body = writer + "-" + i;
      List<AppendRecord> batch = List.of(AppendRecord.ofUtf8(body));
      Long match = null;
      try {
        if (conditional) {
          match = client.checkTail(stream).seqNum();
          outcomes.add(new Outcome(body, match, client.appendMatch(stream, match, batch), false));
        } else {
          outcomes.add(new Outcome(body, null, client.append(stream, batch), false));
        }
      } catch (NovaException e) {
        outcomes.add(new Outcome(body, match, null, !e.mayHaveTakenEffect()));
      }
    }
  }

  public List<Outcome> outcomes() {
    synchronized (outcomes) {
      return List.copyOf(outcomes);
    }
  }

  public long acked() {
    return outcomes().stream().filter(Outcome::acked).count();
  }

  /** A one-line summary for test logs and closing notes. */
  public String summary() {
    List<Outcome> all = outcomes();
    long definite = all.stream().filter(Outcome::definiteFailure).count();
    long acked = all.stream().filter(Outcome::acked).count();
    return all.size() + " attempts, " + acked + " acked, " + definite + " definite failures, "
        + (all.size() - acked - definite) + " indefinite";
  }

  /** Checks the final stream (every committed record, in order) against the history. */
  public void check(List<SequencedRecord> stream, long tail) {
    assertThat(stream).as("dense from 0 to the tail").hasSize((int) tail);
    Map<String, Long> position = new HashMap<>();
    for (int i = 0; i < stream.size(); i++) {
      assertThat(stream.get(i).seqNum()).isEqualTo(i);
      Long previous = position.put(stream.get(i).bodyUtf8(), (long) i);
      assertThat(previous).as("no payload twice: %s", stream.get(i).bodyUtf8()).isNull();
    }
    for (Outcome o : outcomes()) {
      if (o.acked()) {
        assertThat(position.get(o.body())).as("acknowledged %s at its acked seq_num", o.body())
            .isEqualTo(o.ack().start().seqNum());
        if (o.match() != null) {
          assertThat(o.ack().start().seqNum()).as("conditional success at its match").isEqualTo(o.match());
        }
      } else if (o.definiteFailure()) {
        assertThat(position).as("a definite failure had no effect: %s", o.body()).doesNotContainKey(o.body());
      }
    }
  }
}
