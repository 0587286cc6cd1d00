package io.nova.cluster.raft;

import java.util.Optional;
import java.util.function.Function;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.Status;

/** The listener the Raft server interceptors of this package share: it ends a call at its first refused message. */
final class RefusingCalls {

  private RefusingCalls() {
  }

  /**
   * Starts {@code call} and passes its messages on until {@code refusal} answers a status for one: the call
   * is then closed with that status and nothing more of it reaches the server.
   */
  static <Q, R> ServerCall.Listener<Q> guard(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next,
      Function<Object, Optional<Status>> refusal) {
    return new SimpleForwardingServerCallListener<Q>(next.startCall(call, headers)) {
      private boolean refused;

      @Override
      public void onMessage(Q message) {
        if (refused) {
          return;
        }
        Optional<Status> status = refusal.apply(message);
        if (status.isPresent()) {
          refused = true;
          call.close(status.get(), new Metadata());
          return;
        }
        super.onMessage(message);
      }

      @Override
      public void onHalfClose() {
        if (!refused) {
          super.onHalfClose();
        }
      }
    };
  }
}
