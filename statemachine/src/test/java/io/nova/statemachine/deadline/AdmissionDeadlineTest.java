package io.nova.statemachine.deadline;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.v1.ErrorDetail;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the deadline rule at admission: no deadline or a deadline not yet passed admits, a passed one
 * refuses with a definite {@code deadline_exceeded} naming both instants, and the leader's clock is read
 * monotonically, so stepping it back never re-opens a closed deadline.
 */
class AdmissionDeadlineTest {

  static Stream<Arguments> cases() {
    // deadline_ms (0 = none), leader now_ms, refused?
    return Stream.of(
        Arguments.of(0L, 5_000L, false),
        Arguments.of(5_000L, 4_999L, false),
        Arguments.of(5_000L, 5_000L, false),
        Arguments.of(5_000L, 5_001L, true),
        Arguments.of(1L, Long.MAX_VALUE, true),
        // deadline_ms is unsigned on the wire: a value above Long.MAX_VALUE is far in the future.
        Arguments.of(-1L, Long.MAX_VALUE, false));
  }

  @ParameterizedTest(name = "deadline={0} now={1} -> refused={2}")
  @MethodSource("cases")
  void refusesExactlyPastTheDeadline(long deadlineMs, long nowMs, boolean refused) {
    Optional<ErrorDetail> error = AdmissionDeadline.lateError(deadlineMs, nowMs);
    assertThat(error.isPresent()).isEqualTo(refused);
    error.ifPresent(e -> {
      assertThat(e.getDeadlineExceeded().getDeadlineMs()).isEqualTo(deadlineMs);
      assertThat(e.getDeadlineExceeded().getRefusedAtMs()).isEqualTo(nowMs);
      assertThat(e.getMessage()).contains("nothing was appended");
    });
  }

  @Test
  void aClockSteppingBackDoesNotReopenADeadline() {
    MutableClock clock = new MutableClock(10_000);
    AdmissionDeadline deadline = new AdmissionDeadline(clock);
    assertThat(deadline.lateError(9_000)).isPresent();
    clock.set(8_000); // an NTP step backwards
    assertThat(deadline.lateError(9_000)).as("still refused after the clock stepped back").isPresent();
    assertThat(deadline.lateError(10_000)).as("in time at the latest reading").isEmpty();
    assertThat(deadline.lateError(0)).isEmpty();
  }
}
