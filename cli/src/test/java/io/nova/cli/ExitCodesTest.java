package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.errors.ErrorCode;
import io.nova.client.StreamPosition;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.BasinNotEmptyException;
import io.nova.client.errors.DeadlineExceededException;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.InsufficientStorageException;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NotFoundException;
import io.nova.client.errors.NovaInternalException;
import io.nova.client.errors.PreconditionFailedException;
import io.nova.client.errors.ResourceExhaustedException;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.client.errors.UnavailableException;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Proves each failure maps to its documented exit code and a one-line message. */
class ExitCodesTest {

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(new SequenceMismatchException(new StreamPosition(17, 5), false), 3,
            "sequence mismatch: the committed tail is 17"),
        Arguments.of(new FencedOutException("gen-42"), 4, "fenced out: the installed fencing token is \"gen-42\""),
        Arguments.of(new FencedOutException(""), 4, "fenced out: the stream has no fencing token"),
        Arguments.of(new FencedOutException("a\nb \"q\""), 4,
            "fenced out: the installed fencing token is \"a\\nb \\\"q\\\"\""),
        Arguments.of(new InvalidArgumentException("fencing token", "at most 36 bytes"), 2, "invalid fencing token"),
        Arguments.of(new InputException("line 3: invalid JSON"), 2, "line 3: invalid JSON"),
        Arguments.of(new IllegalArgumentException("bad\nURI"), 2, "bad URI"),
        Arguments.of(new NotFoundException("stream", "nova://a/b"), 1, "stream \"nova://a/b\" not found"),
        Arguments.of(new AlreadyExistsException("basin", "demo"), 1, "basin \"demo\" already exists"),
        Arguments.of(new BasinNotEmptyException("demo", null), 1, "basin \"demo\" is not empty"),
        Arguments.of(new PreconditionFailedException("precondition", null), 1, "precondition"),
        Arguments.of(new UnavailableException("no leader", true, null), 1,
            "no leader (the request may have taken effect)"),
        Arguments.of(new UnavailableException("no leader", false, null), 1, "no leader"),
        Arguments.of(new DeadlineExceededException("deadline", false, null), 1, "deadline"),
        Arguments.of(new ResourceExhaustedException("rate", "too fast", null), 1, "too fast"),
        Arguments.of(new InsufficientStorageException("n2", "/var/lib/nova/n2", 12L << 20, 1L << 30,
            "Append nova://a/b: node n2 is low on disk:\n...", null), 8, "insufficient storage: node n2 has 12.0 MiB"
            + " free on /var/lib/nova/n2, below its reserve of 1.0 GiB; nothing was written. Retry once space is"
            + " freed"),
        Arguments.of(new NovaInternalException("boom", ErrorCode.INTERNAL, false, null), 1, "boom"),
        Arguments.of(new IOException("disk"), 1, "I/O error: disk"),
        Arguments.of(new IllegalStateException(), 1, "IllegalStateException"));
  }

  @ParameterizedTest(name = "[{index}] {0} -> {1}")
  @MethodSource("cases")
  void mapsFailures(Throwable e, int exitCode, String messagePrefix) {
    assertThat(ExitCodes.of(e)).isEqualTo(exitCode);
    assertThat(ExitCodes.message(e)).startsWith(messagePrefix).doesNotContain("\n").doesNotContain("\r");
  }
}
