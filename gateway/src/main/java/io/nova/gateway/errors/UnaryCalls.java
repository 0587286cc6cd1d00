package io.nova.gateway.errors;

import io.grpc.stub.StreamObserver;
import io.nova.protocol.errors.Errors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves a unary RPC: one answer or one typed error, and never an untranslated exception. */
public final class UnaryCalls {

  private static final Logger LOG = LoggerFactory.getLogger(UnaryCalls.class);

  private UnaryCalls() {}

  /**
   * Runs {@code handler} and completes {@code observer} with its answer. A {@link GatewayException}
   * becomes its documented status; anything else is a bug, logged and answered as INTERNAL.
   */
  public static <T> void serve(String rpc, StreamObserver<T> observer, Supplier<T> handler) {
    T answer;
    try {
      answer = handler.get();
    } catch (GatewayException e) {
      LOG.debug("{} rejected: {}", rpc, e.getMessage());
      observer.onError(StatusMapper.toStatusException(e.detail()));
      return;
    } catch (RuntimeException e) {
      LOG.error("{} failed with a bug", rpc, e);
      observer.onError(StatusMapper.toStatusException(
          Errors.internal(rpc + " failed inside the gateway: " + e)));
      return;
    }
    observer.onNext(answer);
    observer.onCompleted();
  }
}
