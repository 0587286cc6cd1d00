package io.nova.statemachine.stream;

import static io.nova.statemachine.stream.Commands.append;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.proto.internal.ShardCommand;
import org.junit.jupiter.api.Test;

/**
 * Proves the cursor's term rules (a new term or a reset rebuilds it from applied state, readiness in the
 * same term keeps it), that refusals leave it untouched, that its invariants catch a cursor behind the
 * applied state, and why apply's divergence check needs Ratis' rule that a new leader admits nothing
 * before its predecessors' surviving entries are applied.
 */
class ShardSequencerTest {
  private static final StreamState CREATED = StreamState.created(1, "demo", "s", 5);

  @Test
  void pipelinedAdmissionsMoveTheCursorAheadOfApplied() {
    ShardSequencer sequencer = new ShardSequencer();
    assertThat(admitted(sequencer.admit(1, CREATED, append(1, 0L, null, 10, null, null))).nextSeqNum()).isEqualTo(2);
    assertThat(admitted(sequencer.admit(1, CREATED, append(1, 2L, null, 10, (Long) null))).nextSeqNum())
        .as("the second append matches the cursor, not the applied tail").isEqualTo(3);
    Admission.Rejected miss = (Admission.Rejected) sequencer.admit(1, CREATED, append(1, 0L, null, 10, (Long) null));
    assertThat(miss.error().getSequenceMismatch().getTail().getSeqNum()).as("reports the applied tail").isZero();
    assertThat(admitted(sequencer.admit(1, CREATED, append(1, 3L, null, 10, (Long) null))).nextSeqNum())
        .as("a refusal left the cursor where it was").isEqualTo(4);
  }

  @Test
  void aNewTermRebuildsTheCursorFromAppliedState() {
    ShardSequencer sequencer = new ShardSequencer();
    sequencer.admit(1, CREATED, append(1, 0L, null, 10, null, null));
    assertThat(sequencer.term()).isEqualTo(1);
    // Term 2: the term-1 admission was never applied (the new leader discarded it), so position 0 is reused.
    assertThat(admitted(sequencer.admit(2, CREATED, append(1, 0L, null, 10, (Long) null))).nextSeqNum()).isEqualTo(1);
    assertThat(sequencer.term()).isEqualTo(2);
  }

  @Test
  void readinessInTheSameTermKeepsTheCursorAnyOtherResetDropsIt() {
    ShardSequencer sequencer = new ShardSequencer();
    sequencer.admit(3, CREATED, append(1, 0L, null, 10, null, null));
    sequencer.resetUnlessTerm(3);
    assertThat(sequencer.admit(3, CREATED, append(1, 2L, null, 10, (Long) null)))
        .as("kept: the unapplied admissions of term 3 still count").isInstanceOf(Admission.Admitted.class);
    sequencer.resetUnlessTerm(4);
    assertThat(sequencer.term()).isEqualTo(-1);
    assertThat(sequencer.admit(3, CREATED, append(1, 0L, null, 10, (Long) null)))
        .as("dropped: rebuilt from applied state").isInstanceOf(Admission.Admitted.class);
    sequencer.reset();
    assertThat(sequencer.term()).isEqualTo(-1);
    assertThat(sequencer.admit(3, CREATED, append(1, 0L, null, 10, (Long) null)))
        .isInstanceOf(Admission.Admitted.class);
  }

  @Test
  void aCursorBehindTheAppliedStateBreaksAnInvariant() {
    ShardSequencer sequencer = new ShardSequencer();
    sequencer.admit(1, CREATED, append(1, 0L, null, 10, (Long) null));
    ShardCommand next = append(1, null, null, 10, (Long) null);
    assertThatThrownBy(() -> sequencer.admit(1, CREATED.withTail(5, 10), next))
        .as("applied holds entries this term's cursor never admitted").isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("behind applied state");
    assertThatThrownBy(() -> sequencer.admit(1, CREATED.withTail(1, 10).asDeleted(), next))
        .as("applied holds a delete the cursor never admitted").hasMessageContaining("behind applied state");
    assertThatThrownBy(() -> sequencer.admit(1, CREATED.withTail(1, 10), append(2, null, null, 10, (Long) null)))
        .as("another stream's applied state").hasMessageContaining("passed for stream 2");
    assertThatThrownBy(() -> sequencer.admit(0, CREATED, next)).as("a term going backwards")
        .hasMessageContaining("admission in term 0 after term 1");
    assertThat(sequencer.admit(1, CREATED.withTail(1, 10), next)).as("the cursor itself is intact")
        .isInstanceOf(Admission.Admitted.class);
  }

  @Test
  void applyCatchesANewLeaderThatAdmitsBeforeItsPredecessorsEntriesApply() {
    // Term 1: replica A admits an append at position 0; the entry reaches replica B but is not applied yet.
    ShardSequencer a = new ShardSequencer();
    ShardCommand survivor = append(1, 0L, null, 10, null, null);
    admitted(a.admit(1, CREATED, survivor));
    ShardSequencer b = new ShardSequencer();
    ShardCommand competing = append(1, 0L, null, 20, (Long) null);

    // With Ratis' rule, B applies the survivor before admitting in term 2: the competitor is refused.
    StreamState afterSurvivor = ShardApply.apply(CREATED, survivor).state().orElseThrow();
    Admission.Rejected refused = (Admission.Rejected) b.admit(2, afterSurvivor, competing);
    assertThat(refused.error().getSequenceMismatch().getTail().getSeqNum()).isEqualTo(2);

    // Without it, B would admit from the stale applied state, and apply stops the replica instead of
    // answering a false success at position 0.
    ShardSequencer early = new ShardSequencer();
    admitted(early.admit(2, CREATED, competing));
    assertThatThrownBy(() -> ShardApply.apply(afterSurvivor, competing)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("admission and apply diverged");
  }

  private static StreamState admitted(Admission.Decision decision) {
    assertThat(decision).isInstanceOf(Admission.Admitted.class);
    return ((Admission.Admitted) decision).cursorState();
  }
}
