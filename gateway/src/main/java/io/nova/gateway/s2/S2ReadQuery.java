package io.nova.gateway.s2;

import io.javalin.http.Context;
import io.nova.gateway.http.ReadParams;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.v1.ReadRequest;
import java.util.Set;

/**
 * S2's read query against Nova's {@link ReadRequest}: one start of {@code seq_num}, {@code timestamp} (ms)
 * or {@code tail_offset}; {@code clamp}; the limits {@code count} and {@code bytes}; {@code until} (ms,
 * exclusive); and, for a one-shot read, {@code wait} (seconds, at most
 * {@link RequestChecks#READ_WAIT_SECS_MAX}). Without a start a read begins at the first retained record.
 */
final class S2ReadQuery {

  private static final Set<String> PARAMS =
      Set.of("seq_num", "timestamp", "tail_offset", "clamp", "count", "bytes", "until", "wait");

  private S2ReadQuery() {}

  /** The read {@code ctx} asks for on {@code basin}/{@code stream}. */
  static ReadRequest of(Context ctx, String basin, String stream) {
    S2Query q = S2Query.of(ctx, PARAMS);
    ReadRequest.Builder b = ReadRequest.newBuilder().setBasin(basin).setStream(stream);
    int starts = ReadParams.setStartAndLimits(b, q::u64);
    // No start means "from the first record the stream still has": after a trim that is not seq_num 0.
    b.setClamp(q.bool("clamp").orElse(starts == 0));
    q.intInRange("wait", 0, RequestChecks.READ_WAIT_SECS_MAX).ifPresent(b::setWaitSecs);
    return b.build();
  }
}
