/**
 * The SDK's typed, unchecked exceptions. Every operating error a {@code NovaClient} call can raise is
 * a {@link io.nova.client.errors.NovaException}; catch the subclass that carries what you act on
 * (the committed tail, the installed token, the offending field) instead of parsing messages.
 *
 * <p>{@link io.nova.client.errors.NovaException#mayHaveTakenEffect()} says whether the failed call may
 * nevertheless have changed the cluster. It is false (the error is definite: nothing happened) for
 * precondition, argument, not-found, already-exists and resource-exhausted errors; for unavailable,
 * deadline and internal errors it depends on the call and is documented on each class.
 */
package io.nova.client.errors;
