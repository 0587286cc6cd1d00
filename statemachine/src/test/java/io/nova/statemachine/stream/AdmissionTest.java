package io.nova.statemachine.stream;

import static io.nova.statemachine.stream.Commands.append;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.ShardCommand;
import io.nova.proto.v1.ErrorDetail;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Proves the admission table: token checked first, then match_seq_num, and what a hit does to the cursor. */
class AdmissionTest {
  private static final StreamState LIVE = StreamState.created(1, "demo", "s", 0).withTail(5, 100);

  static Stream<Arguments> appendCases() {
    // installed token, presented token (null = none), match (null = none), expected outcome
    return Stream.of(
        Arguments.of("", null, null, "ok"),
        Arguments.of("", "", null, "ok"),
        Arguments.of("", "t1", null, "fenced:"),
        Arguments.of("t1", null, null, "fenced:t1"),
        Arguments.of("t1", "", null, "fenced:t1"),
        Arguments.of("t1", "t1", null, "ok"),
        Arguments.of("t1", "t2", null, "fenced:t1"),
        Arguments.of("t1", "t2", 0L, "fenced:t1"),
        Arguments.of("", null, 5L, "ok"),
        Arguments.of("", null, 4L, "mismatch"),
        Arguments.of("", null, 6L, "mismatch"),
        Arguments.of("t1", "t1", 5L, "ok"),
        Arguments.of("t1", "t1", 0L, "mismatch"));
  }

  @ParameterizedTest(name = "installed={0} presented={1} match={2} -> {3}")
  @MethodSource("appendCases")
  void appendAdmission(String installed, String presented, Long match, String expected) {
    StreamState cursor = LIVE.withFencingToken(installed);
    StreamState applied = cursor.withTail(3, 90);
    Admission.Decision decision = Admission.admit(cursor, applied, append(1, match, presented, 0, null, null));
    assertThat(describe(decision)).isEqualTo(expected);
    if (decision instanceof Admission.Admitted admitted) {
      assertThat(admitted.cursorState().nextSeqNum()).isEqualTo(7);
      assertThat(admitted.cursorState().fencingToken()).isEqualTo(installed);
    }
    if (expected.equals("mismatch")) {
      ErrorDetail error = ((Admission.Rejected) decision).error();
      assertThat(error.getSequenceMismatch().getTail().getSeqNum()).as("reports the committed tail").isEqualTo(3);
      assertThat(error.getSequenceMismatch().getTail().getTimestamp()).isEqualTo(90);
    }
  }

  static Stream<Arguments> missingCases() {
    return Stream.of(
        Arguments.of(null, append(1, null, null, 0, (Long) null)),
        Arguments.of(LIVE.asDeleted(), append(1, null, null, 0, (Long) null)),
        Arguments.of(null, Commands.fence(1, "t")),
        Arguments.of(LIVE.asDeleted(), Commands.fence(1, "t")));
  }

  @ParameterizedTest
  @MethodSource("missingCases")
  void missingOrDeletedStreamIsNotFound(StreamState cursor, ShardCommand command) {
    Admission.Decision decision = Admission.admit(cursor, cursor, command);
    assertThat(((Admission.Rejected) decision).error().hasNotFound()).isTrue();
  }

  @ParameterizedTest(name = "fence {1} over {0}")
  @MethodSource("fenceCases")
  void fenceInstallsRotatesClears(String installed, String fenced) {
    Admission.Decision decision = Admission.admit(LIVE.withFencingToken(installed), LIVE, Commands.fence(1, fenced));
    assertThat(((Admission.Admitted) decision).cursorState())
        .isEqualTo(LIVE.withFencingToken(fenced));
  }

  static Stream<Arguments> fenceCases() {
    return Stream.of(Arguments.of("", "a"), Arguments.of("a", "b"), Arguments.of("a", ""), Arguments.of("a", "a"));
  }

  @Test
  void createIsIdempotentAndDeleteMarks() {
    StreamState created = ((Admission.Admitted) Admission.admit(null, null, Commands.create(1))).cursorState();
    assertThat(created.nextSeqNum()).isZero();
    assertThat(((Admission.Admitted) Admission.admit(LIVE, LIVE, Commands.create(1))).cursorState()).isEqualTo(LIVE);
    assertThat(((Admission.Admitted) Admission.admit(LIVE, LIVE, Commands.delete(1))).cursorState().deleted())
        .isTrue();
  }

  static String describe(Admission.Decision decision) {
    if (decision instanceof Admission.Admitted) {
      return "ok";
    }
    ErrorDetail error = ((Admission.Rejected) decision).error();
    if (error.hasFencedOut()) {
      return "fenced:" + error.getFencedOut().getInstalledToken();
    }
    return error.hasSequenceMismatch() ? "mismatch" : error.getKindCase().name();
  }
}
