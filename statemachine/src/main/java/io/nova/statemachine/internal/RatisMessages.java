package io.nova.statemachine.internal;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.nova.proto.v1.ErrorDetail;
import io.nova.statemachine.errors.CommandRejectedException;
import java.util.Optional;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Conversions between Nova's protobuf messages (plain {@code com.google.protobuf}) and Ratis' shaded
 * {@link ByteString}s and transactions, shared by the state machines. Stateless and thread-safe.
 */
public final class RatisMessages {
  private RatisMessages() {}

  /** Parses {@code bytes} with {@code parser}; empty when they are not a valid message. */
  public static <T> Optional<T> tryParse(ByteString bytes, Parser<T> parser) {
    try {
      return Optional.of(parser.parseFrom(bytes.asReadOnlyByteBuffer()));
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }

  /**
   * Parses a log entry's data that this group's leader wrote itself.
   *
   * @throws IllegalStateException if it does not parse (a corrupt log)
   */
  public static <T> T parseLogData(ByteString bytes, Parser<T> parser, long logIndex) {
    return tryParse(bytes, parser)
        .orElseThrow(() -> new IllegalStateException("log entry " + logIndex + " does not parse"));
  }

  /** The shaded bytes of {@code message} (no copy beyond serialization). */
  public static ByteString toByteString(MessageLite message) {
    return UnsafeByteOperations.unsafeWrap(message.toByteArray());
  }

  /** A Ratis {@link Message} holding {@code message}. */
  public static Message toMessage(MessageLite message) {
    return Message.valueOf(toByteString(message));
  }

  /** A transaction that will enter the log with {@code logData} in place of the request's bytes. */
  public static TransactionContext transaction(StateMachine stateMachine, RaftClientRequest request,
      MessageLite logData) {
    return TransactionContext.newBuilder().setStateMachine(stateMachine).setClientRequest(request)
        .setLogData(toByteString(logData)).setStateMachineContext(logData).build();
  }

  /**
   * A transaction refused before the log: Ratis answers the client with a {@code StateMachineException}
   * whose cause carries {@code error} (see {@link CommandRejectedException}), and appends nothing.
   */
  public static TransactionContext rejected(StateMachine stateMachine, RaftClientRequest request,
      ErrorDetail error) {
    TransactionContext trx = TransactionContext.newBuilder().setStateMachine(stateMachine)
        .setClientRequest(request).build();
    trx.setException(CommandRejectedException.encode(error));
    return trx;
  }

  /**
   * The exception {@code preAppendTransaction} throws to refuse an entry at admission: Ratis appends
   * nothing and answers the client with {@code error} (see {@link CommandRejectedException}); the leader
   * keeps its role (a plain {@code IOException} there would make it step down).
   */
  public static StateMachineException refusedAtAdmission(ErrorDetail error) {
    return new StateMachineException("rejected", CommandRejectedException.encode(error), false);
  }

  /**
   * The exception {@code preAppendTransaction} throws when admission itself is broken (a failed
   * invariant, a bug): Ratis appends nothing, fails the request, and the leader steps down, so the next
   * leader admits from a cursor rebuilt from applied state.
   */
  public static StateMachineException brokenAtAdmission(IllegalStateException broken) {
    return new StateMachineException("admission broken: " + broken.getMessage(), broken, true);
  }
}
