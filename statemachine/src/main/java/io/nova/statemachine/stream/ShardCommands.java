package io.nova.statemachine.stream;

import io.nova.proto.internal.ShardCommand;

/** Accessors common to every kind of shard command. Stateless and thread-safe. */
public final class ShardCommands {
  private ShardCommands() {}

  /**
   * The id of the stream {@code command} targets.
   *
   * @throws IllegalArgumentException if the command's kind is not set
   */
  public static long streamIdOf(ShardCommand command) {
    switch (command.getKindCase()) {
      case APPEND:
        return command.getAppend().getStreamId();
      case FENCE:
        return command.getFence().getStreamId();
      case CREATE_STREAM:
        return command.getCreateStream().getStreamId();
      case DELETE_STREAM:
        return command.getDeleteStream().getStreamId();
      case TRIM:
        return command.getTrim().getStreamId();
      case CONFIGURE_STREAM:
        return command.getConfigureStream().getStreamId();
      default:
        throw new IllegalArgumentException("shard command without a kind: " + command.getKindCase());
    }
  }
}
