package io.nova.cluster.metrics;

import com.codahale.metrics.Counter;
import java.util.function.LongSupplier;

/**
 * A Dropwizard {@link Counter} whose count is kept elsewhere (a monotonic count another component
 * owns), so that it is exposed with counter semantics (Prometheus {@code counter}, JMX {@code Count})
 * rather than as a gauge. Read-only: {@code inc}/{@code dec} throw.
 */
final class ObservedCount extends Counter {

  private final LongSupplier source;

  ObservedCount(LongSupplier source) {
    this.source = source;
  }

  @Override
  public long getCount() {
    return source.getAsLong();
  }

  @Override
  public void inc(long n) {
    throw new UnsupportedOperationException("an observed count is read-only");
  }

  @Override
  public void dec(long n) {
    throw new UnsupportedOperationException("an observed count is read-only");
  }
}
