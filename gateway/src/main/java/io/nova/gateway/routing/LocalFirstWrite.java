package io.nova.gateway.routing;

import com.codahale.metrics.Counter;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.raft.RaftTuning;
import io.nova.cluster.raft.WriteRetryPolicy;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.rpc.CallId;

/**
 * A write to a group this node leads, submitted to the node's own Raft server instead of through a Ratis
 * client: no gRPC hop from the gateway to its own process (issue #10 measured that hop at ~4 ms of a
 * one-at-a-time append).
 *
 * <p><b>Resends.</b> The request gets a call id from Ratis' process-wide counter and this gateway's own
 * client id, so it is one invocation the retry caches of every replica recognise. If the local leader
 * fails it in any way but a state machine's refusal (it stepped down with the write pending, it was
 * closed), the <em>same</em> invocation is resent to the group's new leader over the network until it is
 * answered or the write's admission deadline passes: the argument of {@link WriteRetryPolicy} that a
 * resend with the same call id takes effect at most once applies unchanged, and the failures are recorded
 * in the write's {@link WriteRetryPolicy.Attempts} the same way.
 *
 * <p>While the local attempt is unanswered it is waited for in slices of {@link #POLL_NANOS}: a leader
 * that still leads is given until the deadline (a slow commit is not a failure), one that lost the
 * leadership makes the write move on to the new leader without waiting for the step-down's answer.
 *
 * <p>Thread-safe; a call blocks its thread until the write is answered.
 */
final class LocalFirstWrite {

  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long RESEND_SLEEP_MS = RaftTuning.LEADER_WAIT_SLEEP.toLong(TimeUnit.MILLISECONDS);

  /** The client id of every local write of this gateway: with Ratis' call ids, unique invocations. */
  private final ClientId clientId = ClientId.randomId();
  private final LocalLeaders localLeaders;
  /** Counts the writes that had to be resent after their local attempt failed. */
  private final Counter resends;

  LocalFirstWrite(LocalLeaders localLeaders, Counter resends) {
    this.localLeaders = localLeaders;
    this.resends = resends;
  }

  /**
   * Appends {@code message} to the log of {@code local}, this node's leading replica of {@code spec}, and
   * returns the attempt; the append happens on the calling thread, so writes started one after another
   * from one thread enter the log in that order. {@link #finish} waits for it.
   */
  Attempt start(GroupSpec spec, LocalLeaders.LocalLeader local, Message message) {
    RaftClientRequest request = RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setLeaderId(local.self())
        .setGroupId(spec.group().getGroupId())
        .setCallId(CallId.getAndIncrement())
        .setMessage(message)
        .setType(RaftClientRequest.writeRequestType())
        .build();
    long termBefore = local.currentTerm().getAsLong();
    CompletableFuture<RaftClientReply> reply;
    try {
      reply = local.server().submitClientRequestAsync(request);
    } catch (IOException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    long term = local.currentTerm().getAsLong() == termBefore ? termBefore : UNKNOWN_TERM;
    return new Attempt(spec, local, request, reply, term);
  }

  /** {@link Attempt#term()} when the leader's term changed while the attempt was being appended. */
  static final long UNKNOWN_TERM = -1;

  /**
   * One write's first attempt, on this node's own leader.
   *
   * @param request the invocation (client id, call id) every resend repeats
   * @param reply the local leader's reply
   * @param term the leader's term throughout the append, or {@link #UNKNOWN_TERM} when it changed
   *     meanwhile. Two attempts of the same term entered one leader's log in the order they were started,
   *     so if the earlier one never commits, neither does the later one.
   */
  record Attempt(GroupSpec spec, LocalLeaders.LocalLeader local, RaftClientRequest request,
      CompletableFuture<RaftClientReply> reply, long term) {

    /** The local reply when it has come and settles the write (a success or the state machine's refusal). */
    Optional<RaftClientReply> answered() {
      RaftClientReply r = reply.isDone() && !reply.isCompletedExceptionally() ? reply.join() : null;
      return r != null && LocalFirstWrite.answered(r) ? Optional.of(r) : Optional.empty();
    }
  }

  /**
   * Writes {@code message} to {@code spec}'s group through {@code local}, resending as above.
   *
   * @param rpc the group's network client, for resends (its request timeout bounds each one)
   * @return the reply that answered the write (successful, or carrying the state machine's refusal)
   * @throws IOException the last attempt's failure when no attempt was answered before the deadline
   */
  RaftClientReply send(GroupSpec spec, LocalLeaders.LocalLeader local, Message message, WriteDeadline deadline,
      WriteRetryPolicy.Attempts attempts, Supplier<RaftClientRpc> rpc) throws IOException {
    return finish(start(spec, local, message), deadline, attempts, rpc);
  }

  /**
   * Waits for {@code attempt}'s local reply and, unless it settles the write, resends the same invocation
   * as above; blocks the calling thread.
   *
   * @return the reply that answered the write (successful, or carrying the state machine's refusal)
   * @throws IOException the last attempt's failure when no attempt was answered before the deadline
   */
  RaftClientReply finish(Attempt attempt, WriteDeadline deadline, WriteRetryPolicy.Attempts attempts,
      Supplier<RaftClientRpc> rpc) throws IOException {
    return finish(attempt, deadline, attempts, rpc, true);
  }

  /**
   * As {@link #finish(Attempt, WriteDeadline, WriteRetryPolicy.Attempts, Supplier)}; with {@code resend}
   * false a failed local attempt is not resent: its failure is thrown (recorded in {@code attempts}).
   */
  RaftClientReply finish(Attempt attempt, WriteDeadline deadline, WriteRetryPolicy.Attempts attempts,
      Supplier<RaftClientRpc> rpc, boolean resend) throws IOException {
    Throwable failure;
    try {
      RaftClientReply reply = awaitLocal(attempt.spec(), attempt.local(), attempt.reply(), deadline);
      if (reply != null && answered(reply)) {
        return reply;
      }
      failure = reply == null ? new TimeoutIOException("the local leader lost its leadership before answering")
          : reply.getException();
    } catch (IOException e) {
      failure = e;
    }
    if (!resend) {
      attempts.recordFailure(failure);
      throw failure instanceof IOException io ? io : new IOException(failure);
    }
    return resend(attempt.spec(), attempt.request(), failure, deadline, attempts, rpc);
  }

  /**
   * The local attempt's reply; null when the local replica stopped leading before it answered.
   *
   * @throws TimeoutIOException when the admission deadline passed unanswered while it still led
   */
  private RaftClientReply awaitLocal(GroupSpec spec, LocalLeaders.LocalLeader local,
      CompletableFuture<RaftClientReply> reply, WriteDeadline deadline) throws IOException {
    while (true) {
      try {
        return reply.get(POLL_NANOS, TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        Optional<LocalLeaders.LocalLeader> now = localLeaders.readyLocalLeader(spec);
        if (now.isEmpty() || now.get().server() != local.server()) {
          return null;
        }
        if (deadline.admissionClosed()) {
          throw new TimeoutIOException("no answer from the local leader before the write's deadline", e);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for the local leader");
      } catch (ExecutionException e) {
        throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
      }
    }
  }

  /** Whether {@code reply} settles the write: a success, or a refusal of the state machine's own. */
  private static boolean answered(RaftClientReply reply) {
    return reply.isSuccess() || reply.getException() instanceof StateMachineException;
  }

  /** Resends {@code request}, same invocation, to the group's leader until answered or past the deadline. */
  private RaftClientReply resend(GroupSpec spec, RaftClientRequest request, Throwable firstFailure,
      WriteDeadline deadline, WriteRetryPolicy.Attempts attempts, Supplier<RaftClientRpc> rpc) throws IOException {
    resends.inc();
    Throwable failure = firstFailure;
    int rotation = 0;
    for (int resends = 0; ; resends++) {
      attempts.recordFailure(failure);
      RaftPeerId target = suggestedLeader(failure);
      // Straight to a named successor the first time; after that every resend waits a little, so two
      // peers that each name the other (mid-election) are not asked in a tight loop.
      if (target == null || resends > 0) {
        if (deadline.admissionClosed()) {
          throw failure instanceof IOException io ? io : new IOException(failure);
        }
        sleep();
      }
      if (target == null) {
        target = localLeaders.leadership(spec).map(LocalLeaders.Leadership::leader)
            .orElse(peer(spec.group().getPeers().stream().map(RaftPeer::getId).toList(), rotation++));
      }
      if (deadline.admissionClosed()) {
        throw failure instanceof IOException io ? io : new IOException(failure);
      }
      try {
        RaftClientReply reply = rpc.get().sendRequest(RaftClientRequest.newBuilder().set(request)
            .setLeaderId(target).build());
        if (answered(reply)) {
          return reply;
        }
        failure = reply.getException();
      } catch (GroupMismatchException e) {
        // That peer has no copy of the group (it appended nothing): try the next one.
        failure = e;
        rotation++;
      } catch (IOException e) {
        failure = e;
      }
    }
  }

  private static RaftPeerId suggestedLeader(Throwable failure) {
    return failure instanceof NotLeaderException nle && nle.getSuggestedLeader() != null
        ? nle.getSuggestedLeader().getId() : null;
  }

  private static RaftPeerId peer(List<RaftPeerId> peers, int rotation) {
    return peers.get(Math.floorMod(rotation, peers.size()));
  }

  private static void sleep() throws InterruptedIOException {
    try {
      Thread.sleep(RESEND_SLEEP_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while resending a write");
    }
  }
}
