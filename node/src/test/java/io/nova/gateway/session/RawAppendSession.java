package io.nova.gateway.session;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.AppendSessionRequest;
import io.nova.proto.v1.AppendSessionResponse;
import io.nova.proto.v1.DataPlaneGrpc;
import io.nova.proto.v1.OpenAppendSession;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** An append session driven at the wire level, for tests of the gateway's side of the protocol. */
final class RawAppendSession implements AutoCloseable {

  private final LinkedBlockingQueue<AppendSessionResponse> responses = new LinkedBlockingQueue<>();
  /** Completes with the status the server ended the call with (OK on completion). */
  final CompletableFuture<Status> ended = new CompletableFuture<>();
  private final StreamObserver<AppendSessionRequest> requests;

  RawAppendSession(ManagedChannel channel, String basin, String stream, String token) {
    requests = DataPlaneGrpc.newStub(channel).appendSession(new StreamObserver<>() {
      @Override
      public void onNext(AppendSessionResponse value) {
        responses.add(value);
      }

      @Override
      public void onError(Throwable t) {
        ended.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        ended.complete(Status.OK);
      }
    });
    OpenAppendSession.Builder open = OpenAppendSession.newBuilder().setBasin(basin).setStream(stream);
    if (token != null) {
      open.setFencingToken(token);
    }
    requests.onNext(AppendSessionRequest.newBuilder().setOpen(open).build());
  }

  /** Sends a batch of {@code count} records with bodies {@code prefix-i}; {@code match} may be null. */
  synchronized void send(String prefix, int count, Long match) {
    requests.onNext(AppendSessionRequest.newBuilder().setInput(input(prefix, count, match)).build());
  }

  /** {@link #send} as batch {@code batchSeq} of the idempotent producer {@code producerId} (16 bytes). */
  synchronized void sendIdempotent(String prefix, int count, Long match, byte[] producerId, long batchSeq) {
    requests.onNext(AppendSessionRequest.newBuilder().setInput(input(prefix, count, match)
        .setProducerId(ByteString.copyFrom(producerId)).setProducerBatchSeq(batchSeq)).build());
  }

  private static AppendInput.Builder input(String prefix, int count, Long match) {
    AppendInput.Builder input = AppendInput.newBuilder();
    for (int i = 0; i < count; i++) {
      input.addRecords(AppendRecord.newBuilder().setBody(ByteString.copyFromUtf8(prefix + "-" + i)));
    }
    if (match != null) {
      input.setMatchSeqNum(match);
    }
    return input;
  }

  /** The next {@code n} responses, in arrival order, waiting up to {@code timeout} for all of them. */
  List<AppendSessionResponse> take(int n, Duration timeout) throws InterruptedException {
    List<AppendSessionResponse> got = new ArrayList<>(n);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (got.size() < n) {
      AppendSessionResponse r = responses.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (r == null) {
        throw new AssertionError("only " + got.size() + " of " + n + " responses within " + timeout
            + (ended.isDone() ? "; the call ended " + ended.join() : ""));
      }
      got.add(r);
    }
    return got;
  }

  /** Half-closes the request side. */
  synchronized void finish() {
    requests.onCompleted();
  }

  @Override
  public synchronized void close() {
    if (!ended.isDone()) {
      requests.onError(Status.CANCELLED.asRuntimeException());
    }
  }
}
