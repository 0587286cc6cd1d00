package io.nova.statemachine.meta;

import io.nova.proto.internal.MetaCommand;
import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.auth.TokenRules;
import io.nova.protocol.config.StreamConfigRules;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.names.Names;
import java.util.Optional;

/** Validates the names and stream configurations in a meta command; used before the log (startTransaction) and again at apply. */
public final class MetaValidation {
  /** The kinds a meta command may have, as an error names them. */
  private static final String KINDS = "create_basin, delete_basin, create_stream, configure_stream, delete_stream,"
      + " issue_token, revoke_token, seed_placement, register_node, remove_node, begin_replica_move,"
      + " advance_replica_move, drain_node, replace_node, add_shards, activate_shard, cancel_replica_move,"
      + " abandon_replica_move";

  private MetaValidation() {}

  private static Optional<ErrorDetail> groupNameError(String group) {
    return group.isEmpty()
        ? Optional.of(Errors.invalidArgument("group", "\"meta\" or \"shard-N\"", "the command names no group"))
        : Optional.empty();
  }

  /** The first invalid name (or a missing kind) in {@code command} as INVALID_ARGUMENT, or empty. */
  public static Optional<ErrorDetail> commandError(MetaCommand command) {
    switch (command.getKindCase()) {
      case CREATE_BASIN:
        return Names.basinNameError(command.getCreateBasin().getBasin())
            .or(() -> StreamConfigRules.error(command.getCreateBasin().getDefaultStreamConfig(),
                "default_stream_config."));
      case DELETE_BASIN:
        return Names.basinNameError(command.getDeleteBasin().getBasin());
      case CREATE_STREAM:
        return Names.basinNameError(command.getCreateStream().getBasin())
            .or(() -> Names.streamNameError(command.getCreateStream().getStream()))
            .or(() -> StreamConfigRules.error(command.getCreateStream().getConfig(), "config."));
      case CONFIGURE_STREAM:
        return Names.basinNameError(command.getConfigureStream().getBasin())
            .or(() -> Names.streamNameError(command.getConfigureStream().getStream()))
            .or(() -> StreamConfigRules.error(command.getConfigureStream().getConfig(), "config."));
      case DELETE_STREAM:
        return Names.basinNameError(command.getDeleteStream().getBasin())
            .or(() -> Names.streamNameError(command.getDeleteStream().getStream()));
      case ISSUE_TOKEN: {
        var info = command.getIssueToken().getToken().getInfo();
        return TokenRules.idError(info.getId())
            .or(() -> TokenRules.scopeError(info.getScope(), info.getDescription()))
            .or(() -> command.getIssueToken().getToken().getSecretSha256().size() == 32 ? Optional.empty()
                : Optional.of(Errors.invalidArgument("secret_sha256", "32 bytes", "a stored token carries the"
                    + " 32-byte SHA-256 of its secret")));
      }
      case REVOKE_TOKEN:
        return TokenRules.idError(command.getRevokeToken().getId());
      case SEED_PLACEMENT:
        return PlacementRules.error(command.getSeedPlacement().getPlacement());
      case REGISTER_NODE:
        return PlacementRules.newNodeError(command.getRegisterNode().getNode());
      case REMOVE_NODE:
        return PlacementRules.nodeIdError(command.getRemoveNode().getNodeId());
      case BEGIN_REPLICA_MOVE:
        return PlacementRules.nodeIdError(command.getBeginReplicaMove().getFromNode())
            .or(() -> PlacementRules.nodeIdError(command.getBeginReplicaMove().getToNode()));
      case DRAIN_NODE:
        return PlacementRules.nodeIdError(command.getDrainNode().getNodeId());
      case REPLACE_NODE:
        return PlacementRules.replaceError(command.getReplaceNode().getOldNodeId(),
            command.getReplaceNode().getNewNodeId());
      case CANCEL_REPLICA_MOVE:
        return groupNameError(command.getCancelReplicaMove().getGroup());
      case ABANDON_REPLICA_MOVE:
        return groupNameError(command.getAbandonReplicaMove().getGroup());
      case ADD_SHARDS:
        return ShardAddition.countError(Integer.toUnsignedLong(command.getAddShards().getCount()));
      case ACTIVATE_SHARD:
        return command.getActivateShard().getGroup().isEmpty()
            ? Optional.of(Errors.invalidArgument("group", "\"shard-N\"", "an activation names its group"))
            : Optional.empty();
      case ADVANCE_REPLICA_MOVE: {
        var advance = command.getAdvanceReplicaMove();
        return advance.getFromStep().getNumber() >= io.nova.proto.internal.MoveStep.MOVE_STEP_PLANNED_VALUE
            && advance.getToStep().getNumber() <= io.nova.proto.internal.MoveStep.MOVE_STEP_DONE_VALUE
            ? Optional.empty()
            : Optional.of(Errors.invalidArgument("from_step", "planned..old_removed, to_step the next",
                "a move cannot advance from " + advance.getFromStep() + " to " + advance.getToStep()));
      }
      default:
        return Optional.of(Errors.invalidArgument("kind", "one of " + KINDS, "the meta command has no kind: set"
            + " one of " + KINDS));
    }
  }
}
