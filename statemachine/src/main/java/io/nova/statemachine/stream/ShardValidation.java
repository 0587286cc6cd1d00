package io.nova.statemachine.stream;

import io.nova.proto.internal.ShardCommand;
import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.config.StreamConfigRules;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.limits.Limits;
import io.nova.protocol.names.Names;
import java.util.Optional;

/**
 * Validates a shard command before it may reach the assignment cursor: limits, token length, names and
 * entry size. Runs in startTransaction, because a refusal after the cursor moved would corrupt it.
 */
public final class ShardValidation {
  private ShardValidation() {}

  /**
   * The first violation in {@code command} as INVALID_ARGUMENT, or empty.
   *
   * @param serializedBytes the size of the log entry the command becomes, in bytes
   */
  public static Optional<ErrorDetail> commandError(ShardCommand command, int serializedBytes) {
    switch (command.getKindCase()) {
      case APPEND:
        return Limits.recordsError(command.getAppend().getRecordsList())
            .or(() -> command.getAppend().hasFencingToken()
                ? Limits.fencingTokenError(command.getAppend().getFencingToken()) : Optional.empty())
            .or(() -> command.getAppend().hasProducerId()
                ? Limits.producerIdError(command.getAppend().getProducerId().size()) : Optional.empty())
            .or(() -> Limits.commandBytesError(serializedBytes));
      case FENCE:
        return Limits.fencingTokenError(command.getFence().getFencingToken());
      case CREATE_STREAM:
        return Names.basinNameError(command.getCreateStream().getBasin())
            .or(() -> Names.streamNameError(command.getCreateStream().getStream()))
            .or(() -> StreamConfigRules.error(command.getCreateStream().getConfig(), "config."));
      case DELETE_STREAM:
        return Optional.empty();
      case TRIM:
        return command.getTrim().hasFencingToken()
            ? Limits.fencingTokenError(command.getTrim().getFencingToken()) : Optional.empty();
      case CONFIGURE_STREAM:
        return StreamConfigRules.error(command.getConfigureStream().getConfig(), "config.");
      default:
        return Optional.of(Errors.invalidArgument("kind", "one of append, fence, create_stream, delete_stream, trim,"
            + " configure_stream", "the shard command has no kind: set one of append, fence, create_stream,"
            + " delete_stream, trim, configure_stream"));
    }
  }
}
