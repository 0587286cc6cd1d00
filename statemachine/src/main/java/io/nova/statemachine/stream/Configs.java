package io.nova.statemachine.stream;

import io.nova.proto.internal.ConfigureStreamCommand;
import io.nova.protocol.config.StreamConfigRules;

/**
 * How a configuration pushed by the meta group lands in a stream's state. Pure.
 *
 * <p>The gateway pushes a stream's whole configuration with the meta log index that produced it. Two
 * changes racing through different gateways may reach the shard in either order, so a push applies only
 * when its version is above the stream's: the shard ends at the meta group's latest configuration.
 */
final class Configs {
  private Configs() {}

  /** {@code state} with the pushed configuration, or {@code state} itself when the push is not newer. */
  static StreamState configured(StreamState state, ConfigureStreamCommand configure) {
    if (configure.getConfigVersion() <= state.configVersion()) {
      return state;
    }
    return state.withConfig(StreamConfigRules.normalized(configure.getConfig()), configure.getConfigVersion());
  }
}
