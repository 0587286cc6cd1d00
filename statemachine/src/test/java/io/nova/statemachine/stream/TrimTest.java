package io.nova.statemachine.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.proto.v1.TrimResponse;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the trim rules of the pure core: a trim below, at or past the tail moves the first retained
 * seq_num to the requested point capped at the tail, a lower trim is a no-op that says so, the tail never
 * moves, a fencing token governs trims as it governs appends, and apply refuses a trim admission would
 * have refused (divergence) instead of applying it.
 */
class TrimTest {
  /** Ten records, seq_nums 0..9, first retained 3. */
  private static final StreamState LIVE = StreamState.created(1, "demo", "s", 0).withTail(10, 1000)
      .withFirstSeqNum(3);

  static Stream<Arguments> trimCases() {
    // requested seq_num -> first retained after, moved
    return Stream.of(
        Arguments.of(5L, 5L, true),
        Arguments.of(10L, 10L, true),
        Arguments.of(11L, 10L, true),
        Arguments.of(-1L, 10L, true),
        Arguments.of(3L, 3L, false),
        Arguments.of(0L, 3L, false));
  }

  @ParameterizedTest(name = "trim to {0} -> first {1} moved={2}")
  @MethodSource("trimCases")
  void trimMovesTheFirstRetainedSeqNumUpToTheTailAndNeverBack(long seqNum, long first, boolean moved) {
    ShardApply.Applied applied = ShardApply.apply(LIVE, Commands.trim(1, seqNum, null));
    TrimResponse response = applied.result().getTrimmed();
    assertThat(response.getFirstSeqNum()).isEqualTo(first);
    assertThat(response.getMoved()).isEqualTo(moved);
    assertThat(response.getTail()).as("the tail never moves").isEqualTo(LIVE.tail());
    assertThat(applied.records()).isEmpty();
    if (moved) {
      assertThat(applied.state()).contains(LIVE.withFirstSeqNum(first));
      assertThat(applied.trimBelowSeqNum()).as("the store drops the records below it").isEqualTo(first);
    } else {
      assertThat(applied.state()).as("a no-op changes no state").isEmpty();
      assertThat(applied.trimBelowSeqNum()).isZero();
    }
  }

  @Test
  void aFencingTokenGovernsTrimsAsItGovernsAppends() {
    StreamState fenced = LIVE.withFencingToken("gen-1");
    assertThat(admit(fenced, Commands.trim(1, 5, null))).as("presenting nothing on a fenced stream")
        .isInstanceOf(Admission.Rejected.class);
    Admission.Rejected wrong = (Admission.Rejected) admit(fenced, Commands.trim(1, 5, "gen-0"));
    assertThat(wrong.error().getFencedOut().getInstalledToken()).isEqualTo("gen-1");
    assertThat(admit(fenced, Commands.trim(1, 5, "gen-1"))).isInstanceOf(Admission.Admitted.class);
    assertThat(admit(LIVE, Commands.trim(1, 5, "gen-1"))).as("presenting a token where none is installed")
        .isInstanceOf(Admission.Rejected.class);
    assertThat(admit(LIVE, Commands.trim(1, 5, null))).isInstanceOf(Admission.Admitted.class);
  }

  @Test
  void aTrimOfAMissingOrDeletedStreamIsRefusedAtAdmissionAndBreaksApply() {
    assertThat(((Admission.Rejected) admit(null, Commands.trim(1, 5, null))).error().hasNotFound()).isTrue();
    assertThat(((Admission.Rejected) admit(LIVE.asDeleted(), Commands.trim(1, 5, null))).error().hasNotFound())
        .isTrue();
    assertThatThrownBy(() -> ShardApply.apply(LIVE.asDeleted(), Commands.trim(1, 5, null)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("admission and apply diverged");
    assertThatThrownBy(() -> ShardApply.apply(LIVE.withFencingToken("t"), Commands.trim(1, 5, null)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("admission and apply diverged");
  }

  @Test
  void appendsAfterATrimKeepTheirSeqNumsAndTheFirstRetainedSeqNum() {
    StreamState trimmed = ShardApply.apply(LIVE, Commands.trim(1, 10, null)).state().orElseThrow();
    ShardApply.Applied appended = ShardApply.apply(trimmed, Commands.append(1, 10L, null, 2000, (Long) null));
    assertThat(appended.records().get(0).getSeqNum()).as("seq_nums never shift").isEqualTo(10);
    assertThat(appended.state().orElseThrow().firstSeqNum()).isEqualTo(10);
    assertThat(appended.state().orElseThrow().nextSeqNum()).isEqualTo(11);
  }

  @Test
  void theFirstRetainedSeqNumIsPersistedInTheStreamState() {
    assertThat(StreamState.fromProto(LIVE.toProto())).isEqualTo(LIVE);
    assertThatThrownBy(() -> LIVE.withTail(2, 1000)).as("never above the tail")
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static Admission.Decision admit(StreamState state, io.nova.proto.internal.ShardCommand command) {
    return new ShardSequencer().admit(1, state, command);
  }
}
