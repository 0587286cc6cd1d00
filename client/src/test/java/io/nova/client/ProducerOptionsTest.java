package io.nova.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.protocol.limits.Limits;
import org.junit.jupiter.api.Test;

/**
 * Proves that a Producer is idempotent by default, that an idempotent one cannot be given more batches
 * in flight than a stream remembers per producer (with an error saying what to do), and that opting out
 * lifts that bound.
 */
class ProducerOptionsTest {

  @Test
  void idempotentByDefaultWithinTheWindow() {
    assertThat(ProducerOptions.defaults().idempotent()).isTrue();
    assertThat(ProducerOptions.builder().batchesInFlightMax(Limits.PRODUCER_WINDOW_BATCHES).build().idempotent())
        .isTrue();
    assertThatThrownBy(() -> ProducerOptions.builder().batchesInFlightMax(Limits.PRODUCER_WINDOW_BATCHES + 1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batchesInFlightMax is 6").hasMessageContaining("idempotent(false)");
  }

  @Test
  void atLeastOnceProducersMayPipelineDeeper() {
    ProducerOptions options = ProducerOptions.builder().idempotent(false).batchesInFlightMax(100).build();
    assertThat(options.idempotent()).isFalse();
    assertThat(options.batchesInFlightMax()).isEqualTo(100);
  }
}
