package io.nova.gateway.http;

import io.javalin.http.Context;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadStart;
import io.nova.protocol.limits.Limits;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The query parameters of {@code GET .../records}: where to start ({@code seq_num}, {@code timestamp} or
 * {@code tail_offset}, at most one; default the first retained record, as with {@code clamp}), how much ({@code count}, {@code bytes}), where to
 * stop ({@code until}), {@code clamp}, and for a one-shot read {@code wait} (seconds, 0–60) or for an SSE
 * session {@code heartbeat_ms} (100–10000, default 3000). Same meanings as the gRPC {@code ReadRequest}.
 * {@code shape} chooses how records are written ({@link RecordShape}).
 *
 * @param request    the read as the data plane takes it ({@code wait_secs} 0 for a session)
 * @param heartbeatMs the SSE heartbeat interval, in ms
 * @param shape      how each record is written in JSON
 */
public record ReadParams(ReadRequest request, int heartbeatMs, RecordShape shape) {

  private static final Set<String> COMMON = Set.of("seq_num", "timestamp", "tail_offset", "count", "bytes",
      "until", "clamp", BodyEncoding.QUERY_PARAM, RecordShape.QUERY_PARAM, "follow");
  static final Set<String> ONE_SHOT = union(COMMON, "wait");
  static final Set<String> SESSION = union(COMMON, "heartbeat_ms");
  /** The SSE request header naming the id (seq_num) of the last event the client received. */
  static final String LAST_EVENT_ID = "Last-Event-ID";

  /** Parses a one-shot read; {@code wait} may ask to wait for the first record. */
  static ReadParams oneShot(Context ctx, String basin, String stream) {
    QueryParams q = QueryParams.of(ctx, ONE_SHOT);
    ReadRequest.Builder b = common(q, basin, stream);
    b.setWaitSecs(q.intInRange("wait", 0, RequestChecks.READ_WAIT_SECS_MAX).orElse(0));
    return new ReadParams(b.build(), 0, RecordShape.of(q.string(RecordShape.QUERY_PARAM)));
  }

  /**
   * Parses an SSE read session. A {@value #LAST_EVENT_ID} header (sent by a reconnecting EventSource)
   * overrides the start: the session resumes at that seq_num + 1, clamped as the request's {@code clamp}
   * says (so a session asked to clamp resumes at the first retained record when the stream was trimmed
   * past where it was).
   *
   * @param heartbeatDefaultMs the heartbeat when the request names none, in ms
   */
  static ReadParams session(Context ctx, String basin, String stream, int heartbeatDefaultMs) {
    QueryParams q = QueryParams.of(ctx, SESSION);
    ReadRequest.Builder b = common(q, basin, stream);
    String lastEventId = ctx.header(LAST_EVENT_ID);
    if (lastEventId != null && !lastEventId.isBlank()) {
      long last = lastEventId(lastEventId);
      b.setStart(ReadStart.newBuilder().setSeqNum(last + 1));
    }
    int heartbeatMs = q.intInRange("heartbeat_ms", Limits.READ_SESSION_HEARTBEAT_MS_MIN,
        Limits.READ_SESSION_HEARTBEAT_MS_MAX).orElse(heartbeatDefaultMs);
    ReadRequest request = b.build();
    if ((request.getLimit().hasCount() && request.getLimit().getCount() == 0)
        || (request.getLimit().hasBytes() && request.getLimit().getBytes() == 0)) {
      throw ApiError.invalidArgument("count", ">= 1",
          "an SSE session's count and bytes must be at least 1 when given");
    }
    return new ReadParams(request, heartbeatMs, RecordShape.of(q.string(RecordShape.QUERY_PARAM)));
  }

  private static long lastEventId(String text) {
    try {
      long id = Long.parseLong(text.trim());
      if (id >= 0 && id < Long.MAX_VALUE) {
        return id;
      }
    } catch (NumberFormatException e) {
      // Answered below.
    }
    throw ApiError.invalidArgument(LAST_EVENT_ID, "a record's seq_num",
        LAST_EVENT_ID + " \"" + text + "\" is not a seq_num; send the id of the last record event received");
  }

  private static ReadRequest.Builder common(QueryParams q, String basin, String stream) {
    ReadRequest.Builder b = ReadRequest.newBuilder().setBasin(basin).setStream(stream);
    int starts = setStartAndLimits(b, q::nonNegativeLong);
    q.bool("clamp").ifPresent(b::setClamp);
    if (starts == 0) {
      // No start means "from the first record the stream still has": after a trim that is not seq_num 0.
      b.setClamp(true);
    }
    return b;
  }

  /**
   * Sets a read's start ({@code seq_num}, {@code timestamp} or {@code tail_offset}, at most one), its
   * limits ({@code count}, {@code bytes}) and {@code until} from the query parameters {@code param}
   * reads as non-negative integers (it throws its own typed error for a malformed one). Shared by
   * Nova's and the S2-compatible surface, whose queries name these the same.
   *
   * @return how many starts were given (0 or 1)
   * @throws ApiError {@code invalid_argument} on field {@code seq_num} when more than one start is given
   */
  public static int setStartAndLimits(ReadRequest.Builder b, Function<String, Optional<Long>> param) {
    Optional<Long> seqNum = param.apply("seq_num");
    Optional<Long> timestamp = param.apply("timestamp");
    Optional<Long> tailOffset = param.apply("tail_offset");
    int starts = (seqNum.isPresent() ? 1 : 0) + (timestamp.isPresent() ? 1 : 0) + (tailOffset.isPresent() ? 1 : 0);
    if (starts > 1) {
      throw ApiError.invalidArgument("seq_num", "at most one of seq_num, timestamp, tail_offset",
          "give at most one start: seq_num, timestamp or tail_offset");
    }
    ReadStart.Builder start = ReadStart.newBuilder();
    seqNum.ifPresent(start::setSeqNum);
    timestamp.ifPresent(start::setTimestamp);
    tailOffset.ifPresent(start::setTailOffset);
    b.setStart(start);
    ReadLimit.Builder limit = ReadLimit.newBuilder();
    param.apply("count").ifPresent(limit::setCount);
    param.apply("bytes").ifPresent(limit::setBytes);
    b.setLimit(limit);
    param.apply("until").ifPresent(b::setUntil);
    return starts;
  }

  /** Whether the request asks for an SSE session: {@code Accept: text/event-stream} or {@code follow=true}. */
  static boolean wantsEvents(Context ctx) {
    String accept = ctx.header("Accept");
    if (accept != null && accept.contains(SseSessions.CONTENT_TYPE)) {
      return true;
    }
    String follow = ctx.queryParam("follow");
    if (follow == null) {
      return false;
    }
    return switch (follow) {
      case "true" -> true;
      case "false" -> false;
      default -> throw ApiError.invalidArgument("follow", "true or false",
          "query parameter follow=" + follow + " must be true or false");
    };
  }

  private static Set<String> union(Set<String> a, String b) {
    java.util.Set<String> s = new java.util.HashSet<>(a);
    s.add(b);
    return Set.copyOf(s);
  }
}
