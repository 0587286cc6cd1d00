package io.nova.client.internal;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nova.client.errors.NovaException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that decides how many times, and where, a call goes on the wire.
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
 * <p>Every failure leaves as a {@link NovaException}. Thread-safe.
 */
public final class CallRunner {

    private static final Logger log = LoggerFactory.getLogger(CallRunner.class);

    /** Fires the calls' whole-call deadlines; one daemon thread for every client of the JVM. */
    private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "nova-client-call-deadlines");
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
     * Runs {@code attempt} (one wire call on the given endpoint) according to {@code call.kind()}.
     *
     * @throws NovaException when the call fails for good
     */
    public <T> T run(CallInfo call, Function<EndpointPool.Endpoint, T> attempt) {
        return run(call, Duration.ZERO, attempt);
    }

    /**
     * As {@link #run(CallInfo, Function)} for a call that also waits up to {@code serverWait} on the server
     * (a long-polled read): its bound is that much longer. {@code attempt} must be a unary call: its
     * deadline's context is cancelled when it returns.
     */
    public <T> T run(CallInfo call, Duration serverWait, Function<EndpointPool.Endpoint, T> attempt) {
        long deadlineNanos = System.nanoTime() + callBoundNanos + serverWait.toNanos();
        Function<EndpointPool.Endpoint, T> bounded = endpoint -> withinDeadline(deadlineNanos, attempt, endpoint);
        return call.kind().retried() ? runRetrying(call, bounded) : runOnce(call, bounded);
    }

    /** Runs one attempt in a context whose deadline is the call's: gRPC uses the sooner of it and the stub's. */
    private static <T> T withinDeadline(long deadlineNanos, Function<EndpointPool.Endpoint, T> attempt,
            EndpointPool.Endpoint endpoint) {
        long leftNanos = Math.max(1, deadlineNanos - System.nanoTime());
        Context.CancellableContext bounded = Context.current().withDeadlineAfter(leftNanos, TimeUnit.NANOSECONDS,
                DEADLINES);
        Context previous = bounded.attach();
        try {
            return attempt.apply(endpoint);
        } finally {
            bounded.detach(previous);
            bounded.cancel(null);
        }
    }

    private <T> T runRetrying(CallInfo call, Function<EndpointPool.Endpoint, T> attempt) {
        long deadline = System.nanoTime() + retryBudgetNanos;
        boolean maybeSent = false;
        // The last failure a server answered: reported rather than a later refused connection, which only
        // says that endpoint is down, not why the node that did answer could not serve the call.
        StatusRuntimeException answered = null;
        EndpointPool.Endpoint endpoint = pool.pick();
        for (int retry = 0; ; retry++) {
            try {
                return attempt.apply(endpoint);
            } catch (StatusRuntimeException failure) {
                StatusRuntimeException e = endpoint.diagnose(failure);
                boolean notSent = ErrorMapper.provablyNotSent(e);
                maybeSent |= !notSent;
                if (!notSent) {
                    answered = e;
                }
                long delayNanos = backoff.delayNanos(Math.min(retry, 30));
                if (!isRetryable(e) || System.nanoTime() + delayNanos > deadline) {
                    throw notSent && answered != null ? ErrorMapper.map(answered, call, maybeSent)
                            : ErrorMapper.map(e, call, maybeSent, endpoint.hostPort());
                }
                EndpointPool.Endpoint next = pool.failover(endpoint);
                log.debug("{} failed on {} ({}); retry {} on {} in {} ms", call.describe(), endpoint.hostPort(),
                        e.getStatus().getCode(), retry + 1, next.hostPort(), delayNanos / 1_000_000);
                endpoint = next;
                if (!sleep(delayNanos)) {
                    throw ErrorMapper.map(e, call, maybeSent);
                }
            }
        }
    }

    private <T> T runOnce(CallInfo call, Function<EndpointPool.Endpoint, T> attempt) {
        EndpointPool.Endpoint endpoint = pool.pick();
        for (int tried = 1; ; tried++) {
            try {
                return attempt.apply(endpoint);
            } catch (StatusRuntimeException failure) {
                StatusRuntimeException e = endpoint.diagnose(failure);
                boolean notSent = ErrorMapper.provablyNotSent(e);
                if (!notSent || tried >= pool.size()) {
                    throw ErrorMapper.map(e, call, !notSent, endpoint.hostPort());
                }
                EndpointPool.Endpoint next = pool.failover(endpoint);
                log.debug("{} could not connect to {}; trying {}", call.describe(), endpoint.hostPort(),
                        next.hostPort());
                endpoint = next;
            }
        }
    }

    /** UNAVAILABLE and DEADLINE_EXCEEDED, but not a TLS handshake failure: that is a setting, not an outage. */
    private static boolean isRetryable(StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        return (code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED) && !TlsHandshake.failed(e);
    }

    /** Sleeps; false (with the interrupt flag restored) if interrupted. */
    private static boolean sleep(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
            return true;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
