package io.nova.gateway.validation;

import io.nova.cluster.balance.LeaderBalancer;
import io.nova.gateway.errors.GatewayException;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.ReadRequest;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.limits.Limits;
import io.nova.protocol.names.Names;
import java.util.Optional;

/**
 * Checks a request at the gateway, before anything is routed, so that bad input is refused with
 * INVALID_ARGUMENT naming the field and the limit, and changes nothing. The state machines check the
 * same rules again (defence in depth); the rules themselves live in {@link Limits} and {@link Names}.
 */
public final class RequestChecks {

  /** The longest a read may wait for a record, in seconds. */
  public static final int READ_WAIT_SECS_MAX = Limits.READ_WAIT_SECS_MAX;
  /** The largest page a list call returns. */
  public static final int LIST_LIMIT_MAX = Limits.LIST_LIMIT_MAX;

  private RequestChecks() {}

  public static void basinName(String basin) {
    throwIfPresent(Names.basinNameError(basin));
  }

  public static void streamName(String basin, String stream) {
    basinName(basin);
    throwIfPresent(Names.streamNameError(stream));
  }

  public static void fencingToken(String token) {
    throwIfPresent(Limits.fencingTokenError(token));
  }

  /**
   * Checks a batch's records and presented token.
   *
   * @return the batch's metered size, in bytes (measured by the check, so counting it costs no second walk)
   * @throws GatewayException INVALID_ARGUMENT naming the first field over its limit
   */
  public static long appendInput(AppendInput input) {
    Limits.BatchMeasure batch = Limits.measureAppendInput(input);
    throwIfPresent(batch.error());
    return batch.meteredBytes();
  }

  /** Positions are unsigned on the wire; values of 2^63 and above are refused as absurd. */
  public static void read(ReadRequest request) {
    var start = request.getStart();
    switch (start.getStartCase()) {
      case SEQ_NUM -> nonNegative("start.seq_num", start.getSeqNum());
      case TIMESTAMP -> nonNegative("start.timestamp", start.getTimestamp());
      case TAIL_OFFSET -> nonNegative("start.tail_offset", start.getTailOffset());
      case START_NOT_SET -> { }
    }
    if (request.getLimit().hasCount()) {
      nonNegative("limit.count", request.getLimit().getCount());
    }
    if (request.getLimit().hasBytes()) {
      nonNegative("limit.bytes", request.getLimit().getBytes());
    }
    if (request.hasUntil()) {
      nonNegative("until", request.getUntil());
    }
    if (request.getWaitSecs() < 0 || request.getWaitSecs() > READ_WAIT_SECS_MAX) {
      throw invalid("wait_secs", "<= " + READ_WAIT_SECS_MAX,
          "wait_secs must be between 0 and " + READ_WAIT_SECS_MAX + " seconds");
    }
  }

  public static void listLimit(int limit) {
    if (limit < 0 || limit > LIST_LIMIT_MAX) {
      throw invalid("limit", "<= " + LIST_LIMIT_MAX,
          "limit must be between 0 (the default, " + LIST_LIMIT_MAX + ") and " + LIST_LIMIT_MAX);
    }
  }

  /** A Rebalance's transfers_max: 0 (the node's default) to {@link LeaderBalancer#TRANSFERS_MAX_LIMIT}. */
  public static void rebalanceTransfersMax(int transfersMax) {
    if (transfersMax < 0 || transfersMax > LeaderBalancer.TRANSFERS_MAX_LIMIT) {
      throw invalid("transfers_max", "<= " + LeaderBalancer.TRANSFERS_MAX_LIMIT,
          "transfers_max must be between 0 (the node's leaderBalanceTransfersMax) and "
              + LeaderBalancer.TRANSFERS_MAX_LIMIT + ", was " + Integer.toUnsignedString(transfersMax));
    }
  }

  private static void nonNegative(String field, long value) {
    if (value < 0) {
      throw invalid(field, "< 2^63", field + " " + Long.toUnsignedString(value)
          + " is not a usable position; it must be below 2^63");
    }
  }

  private static GatewayException invalid(String field, String limit, String message) {
    return new GatewayException(Errors.invalidArgument(field, limit, message));
  }

  private static void throwIfPresent(Optional<ErrorDetail> error) {
    if (error.isPresent()) {
      throw new GatewayException(error.get());
    }
  }
}
