package io.nova.client.internal;

import io.nova.client.errors.ErrorCode;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.NovaInternalException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The blocking form of an asynchronous call: waits for its future and throws what it failed with, so the
 * blocking and the asynchronous verbs share one attempt loop ({@link CallRunner}) and one error mapping.
 * Stateless and thread-safe.
 */
public final class Blocking {

    private Blocking() {
    }

    /**
     * Waits for {@code future} and returns its value.
     *
     * <p>A future failed with a {@link NovaException} throws that exception, with a suppressed
     * {@link WaitedHere} that holds the waiting thread's stack (the exception itself was made on the
     * thread that handled the answer). Any other unchecked failure is thrown as it is.
     *
     * @throws NovaInternalException with {@link ErrorCode#CANCELLED} when the thread is interrupted: the
     *     call is cancelled, the interrupt flag stays set, and the call may have taken effect
     */
    public static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new NovaInternalException("interrupted while waiting for the answer; the call was cancelled, and a"
                    + " write may still have taken effect", ErrorCode.CANCELLED, true, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof NovaException nova) {
                nova.addSuppressed(new WaitedHere());
                throw nova;
            }
            if (cause instanceof RuntimeException unchecked) {
                throw unchecked;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("a Nova call failed with an unexpected checked exception", cause);
        }
    }

    /** Marks where a blocking call waited for the answer that failed; only its stack trace matters. */
    public static final class WaitedHere extends RuntimeException {
        WaitedHere() {
            super("the blocking call waited for this answer here");
        }
    }
}
