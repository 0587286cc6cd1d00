package io.nova.client.internal;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nova.client.errors.NovaException;
import java.time.Duration;
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
 * <p>Every failure leaves as a {@link NovaException}. Thread-safe.
 */
public final class CallRunner {

    private static final Logger log = LoggerFactory.getLogger(CallRunner.class);

    private final EndpointPool pool;
    private final long retryBudgetNanos;
    private final Backoff backoff;

    /** Runs calls on {@code pool}, retrying retried calls for at most {@code retryBudget}. */
    public CallRunner(EndpointPool pool, Duration retryBudget, Backoff backoff) {
        this.pool = pool;
        this.retryBudgetNanos = retryBudget.toNanos();
        this.backoff = backoff;
    }

    /**
     * Runs {@code attempt} (one wire call on the given endpoint) according to {@code call.kind()}.
     *
     * @throws NovaException when the call fails for good
     */
    public <T> T run(CallInfo call, Function<EndpointPool.Endpoint, T> attempt) {
        return call.kind().retried() ? runRetrying(call, attempt) : runOnce(call, attempt);
    }

    private <T> T runRetrying(CallInfo call, Function<EndpointPool.Endpoint, T> attempt) {
        long deadline = System.nanoTime() + retryBudgetNanos;
        boolean maybeSent = false;
        EndpointPool.Endpoint endpoint = pool.pick();
        for (int retry = 0; ; retry++) {
            try {
                return attempt.apply(endpoint);
            } catch (StatusRuntimeException e) {
                maybeSent |= !ErrorMapper.provablyNotSent(e);
                long delayNanos = backoff.delayNanos(Math.min(retry, 30));
                if (!isRetryable(e) || System.nanoTime() + delayNanos > deadline) {
                    throw ErrorMapper.map(e, call, maybeSent);
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
            } catch (StatusRuntimeException e) {
                boolean notSent = ErrorMapper.provablyNotSent(e);
                if (!notSent || tried >= pool.size()) {
                    throw ErrorMapper.map(e, call, !notSent);
                }
                EndpointPool.Endpoint next = pool.failover(endpoint);
                log.debug("{} could not connect to {}; trying {}", call.describe(), endpoint.hostPort(),
                        next.hostPort());
                endpoint = next;
            }
        }
    }

    private static boolean isRetryable(StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
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
