package io.nova.gateway.s2;

import io.javalin.http.Context;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadStart;
import java.util.Optional;
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
    Optional<Long> seqNum = q.u64("seq_num");
    Optional<Long> timestamp = q.u64("timestamp");
    Optional<Long> tailOffset = q.u64("tail_offset");
    int starts = (seqNum.isPresent() ? 1 : 0) + (timestamp.isPresent() ? 1 : 0) + (tailOffset.isPresent() ? 1 : 0);
    if (starts > 1) {
      throw S2Errors.invalid("seq_num", "at most one of seq_num, timestamp, tail_offset",
          "give at most one start: seq_num, timestamp or tail_offset");
    }
    ReadStart.Builder start = ReadStart.newBuilder();
    seqNum.ifPresent(start::setSeqNum);
    timestamp.ifPresent(start::setTimestamp);
    tailOffset.ifPresent(start::setTailOffset);
    b.setStart(start);
    ReadLimit.Builder limit = ReadLimit.newBuilder();
    q.u64("count").ifPresent(limit::setCount);
    q.u64("bytes").ifPresent(limit::setBytes);
    b.setLimit(limit);
    q.u64("until").ifPresent(b::setUntil);
    // No start means "from the first record the stream still has": after a trim that is not seq_num 0.
    b.setClamp(q.bool("clamp").orElse(starts == 0));
    q.intInRange("wait", 0, RequestChecks.READ_WAIT_SECS_MAX).ifPresent(b::setWaitSecs);
    return b.build();
  }
}
