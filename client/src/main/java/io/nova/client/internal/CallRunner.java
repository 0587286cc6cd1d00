package io.nova.client.internal;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nova.client.errors.NovaException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that decides how many times, and where, a call goes on the wire. Every one-shot call of
 * the SDK runs here, asynchronously; the blocking forms wait for the same future ({@link Blocking}).
 *
 * <ul>
 *   <li>{@link CallKind#retried() Retried} calls start at {@link EndpointPool#pick()}; on UNAVAILABLE or
 *       DEADLINE_EXCEEDED they fail over to the next endpoint and try again after a {@link Backoff}
 *       delay, as long as the delay ends within the retry budget (measured from the call's start).
 *   <li>Other calls make one wire attempt. Only a failure that provably never reached a server
 *       ({@link ErrorMapper#provablyNotSent}) moves on to the next endpoint, at most once per endpoint.
 * </ul>
 *
 * <p>A whole call, its attempts and the waits between them, ends within its bound of its start: the longer
 * of the request timeout and the retry budget, plus what the call itself waits on the server (a long-polled
 * read). Each attempt's deadline is the sooner of its own and what is left of that bound, so an attempt
 * started late cannot run a whole request timeout past it.
 *
 * <p>Threads: an attempt's answer is handled on the gRPC thread that completed it (the channel's
 * executor), which also completes the returned future; a retry after a back-off starts on the shared
 * timer thread. Nothing here blocks a thread, except {@link EndpointPool.Endpoint#diagnose}'s bounded
 * probe after a silently closed plaintext connection. Every failure completes the future with a
 * {@link NovaException}; cancelling the future cancels the attempt on the wire. Thread-safe.
 */
public final class CallRunner {

    private static final Logger log = LoggerFactory.getLogger(CallRunner.class);

    /** Fires the calls' deadlines and back-off delays; one daemon thread for every client of the JVM. */
    private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "nova-client-call-timers");
        t.setDaemon(true);
        return t;
    });

    private final EndpointPool pool;
    private final long retryBudgetNanos;
    private final long callBoundNanos;
    private final Backoff backoff;

    /**
     * Runs calls on {@code pool}, retrying retried calls for at most {@code retryBudget}; a call ends within
     * the longer of {@code requestTimeout} and {@code retryBudget}.
     */
    public CallRunner(EndpointPool pool, Duration requestTimeout, Duration retryBudget, Backoff backoff) {
        this.pool = pool;
        this.retryBudgetNanos = retryBudget.toNanos();
        this.callBoundNanos = Math.max(requestTimeout.toNanos(), retryBudgetNanos);
        this.backoff = backoff;
    }

    /**
     * Runs {@code attempt} (one unary call on the given endpoint, started when it is applied) according to
     * {@code call.kind()}, for a call that also waits up to {@code serverWait} on the server (a long-polled
     * read; {@link Duration#ZERO} otherwise): its bound is that much longer.
     *
     * @param answer turns the response into what the future completes with (on the completing thread)
     * @return the answer, or a future completed with the {@link NovaException} the call failed with, itself
     *     (not wrapped in a {@code CompletionException})
     */
    public <R, T> CompletableFuture<T> run(CallInfo call, Duration serverWait,
            Function<EndpointPool.Endpoint, ListenableFuture<R>> attempt, Function<R, T> answer) {
        return run(call, serverWait, Optional.empty(), attempt, answer);
    }

    /**
     * As {@link #run(CallInfo, Duration, Function, Function)}, making the first attempt on {@code first}
     * when present (say, the node leading the call's stream) rather than the pool's current endpoint;
     * later attempts fail over through the pool as usual.
     */
    public <R, T> CompletableFuture<T> run(CallInfo call, Duration serverWait, Optional<EndpointPool.Endpoint> first,
            Function<EndpointPool.Endpoint, ListenableFuture<R>> attempt, Function<R, T> answer) {
        long now = System.nanoTime();
        Call<R, T> c = new Call<>(call, now + callBoundNanos + serverWait.toNanos(), now + retryBudgetNanos, attempt,
                answer);
        c.result.whenComplete((value, failure) -> {
            if (c.result.isCancelled()) {
                c.cancelInFlight();
            }
        });
        c.start(first.orElseGet(pool::pick));
        return c.result;
    }

    /**
     * One call: its attempts run one after another, so the fields below are only touched by the thread
     * handling the current attempt's end (each hand-over goes through the attempt's future or the timer).
     */
    private final class Call<R, T> {
        private final CallInfo info;
        private final long deadlineNanos;
        private final long retryDeadlineNanos;
        private final Function<EndpointPool.Endpoint, ListenableFuture<R>> attempt;
        private final Function<R, T> answer;
        private final CompletableFuture<T> result = new CompletableFuture<>();
        /** The deadline context of the attempt on the wire; cancelling it cancels that attempt. */
        private volatile Context.CancellableContext inFlight;
        private int failures;
        private boolean maybeSent;
        /**
         * The last failure a server answered: reported rather than a later refused connection, which only
         * says that endpoint is down, not why the node that did answer could not serve the call.
         */
        private StatusRuntimeException answered;

        Call(CallInfo info, long deadlineNanos, long retryDeadlineNanos,
                Function<EndpointPool.Endpoint, ListenableFuture<R>> attempt, Function<R, T> answer) {
            this.info = info;
            this.answer = answer;
            this.deadlineNanos = deadlineNanos;
            this.retryDeadlineNanos = retryDeadlineNanos;
            this.attempt = attempt;
        }

        /** Starts one attempt in a context whose deadline is the call's: gRPC uses the sooner of it and the stub's. */
        void start(EndpointPool.Endpoint endpoint) {
            if (result.isDone()) {
                return;
            }
            long leftNanos = Math.max(1, deadlineNanos - System.nanoTime());
            // From the root context, not the caller's: a call must not end because the caller's own gRPC
            // context (say, a server handler that called it) was cancelled once the future was handed over.
            Context.CancellableContext bounded = Context.ROOT.withDeadlineAfter(leftNanos, TimeUnit.NANOSECONDS,
                    TIMERS);
            inFlight = bounded;
            ListenableFuture<R> response;
            Context previous = bounded.attach();
            try {
                response = attempt.apply(endpoint);
            } catch (RuntimeException bug) {
                bounded.cancel(bug);
                result.completeExceptionally(bug);
                return;
            } finally {
                bounded.detach(previous);
            }
            if (result.isCancelled()) {
                bounded.cancel(null);
            }
            response.addListener(() -> finished(endpoint, bounded, response), Runnable::run);
        }

        void cancelInFlight() {
            Context.CancellableContext c = inFlight;
            if (c != null) {
                c.cancel(new CancellationException("the caller cancelled the call"));
            }
        }

        private void finished(EndpointPool.Endpoint endpoint, Context.CancellableContext bounded,
                ListenableFuture<R> response) {
            bounded.cancel(null);
            R value;
            try {
                value = response.get();
            } catch (ExecutionException e) {
                failed(endpoint, e.getCause());
                return;
            } catch (CancellationException | InterruptedException e) {
                // Only this class cancels an attempt, and only once the call is done; get() on a done
                // future does not wait, so an interrupt cannot arrive here.
                result.completeExceptionally(e);
                return;
            }
            try {
                result.complete(answer.apply(value));
            } catch (RuntimeException bug) {
                result.completeExceptionally(bug);
            }
        }

        private void failed(EndpointPool.Endpoint endpoint, Throwable cause) {
            if (result.isDone()) {
                return;
            }
            if (!(cause instanceof StatusRuntimeException failure)) {
                result.completeExceptionally(cause);
                return;
            }
            StatusRuntimeException e = endpoint.diagnose(failure);
            boolean notSent = ErrorMapper.provablyNotSent(e);
            int retry = failures++;
            if (info.kind().retried()) {
                retryOrFail(endpoint, e, notSent, retry);
            } else {
                nextEndpointOrFail(endpoint, e, notSent);
            }
        }

        private void retryOrFail(EndpointPool.Endpoint endpoint, StatusRuntimeException e, boolean notSent, int retry) {
            maybeSent |= !notSent;
            if (!notSent) {
                answered = e;
            }
            long delayNanos = backoff.delayNanos(Math.min(retry, 30));
            if (!isRetryable(e) || System.nanoTime() + delayNanos > retryDeadlineNanos) {
                result.completeExceptionally(notSent && answered != null ? ErrorMapper.map(answered, info, maybeSent)
                        : ErrorMapper.map(e, info, maybeSent, endpoint.hostPort()));
                return;
            }
            EndpointPool.Endpoint next = pool.failover(endpoint);
            log.debug("{} failed on {} ({}); retry {} on {} in {} ms", info.describe(), endpoint.hostPort(),
                    e.getStatus().getCode(), retry + 1, next.hostPort(), delayNanos / 1_000_000);
            TIMERS.schedule(() -> start(next), delayNanos, TimeUnit.NANOSECONDS);
        }

        private void nextEndpointOrFail(EndpointPool.Endpoint endpoint, StatusRuntimeException e, boolean notSent) {
            if (!notSent || failures >= pool.size()) {
                result.completeExceptionally(ErrorMapper.map(e, info, !notSent, endpoint.hostPort()));
                return;
            }
            EndpointPool.Endpoint next = pool.failover(endpoint);
            log.debug("{} could not connect to {}; trying {}", info.describe(), endpoint.hostPort(), next.hostPort());
            start(next);
        }
    }

    /**
     * Whether {@code e} says the endpoint is down or too slow rather than answering: UNAVAILABLE and
     * DEADLINE_EXCEEDED, but not a TLS handshake failure (that is a setting, not an outage).
     */
    public static boolean isRetryable(StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        return (code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED) && !TlsHandshake.failed(e);
    }
}
