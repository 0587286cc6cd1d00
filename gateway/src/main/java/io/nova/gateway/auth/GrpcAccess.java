package io.nova.gateway.auth;

import io.nova.proto.v1.AppendRequest;
import io.nova.proto.v1.AppendSessionRequest;
import io.nova.proto.v1.CheckTailRequest;
import io.nova.proto.v1.CreateBasinRequest;
import io.nova.proto.v1.CreateStreamRequest;
import io.nova.proto.v1.DeleteBasinRequest;
import io.nova.proto.v1.DeleteStreamRequest;
import io.nova.proto.v1.FenceRequest;
import io.nova.proto.v1.GetFencingTokenRequest;
import io.nova.proto.v1.GetStreamConfigRequest;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.SetStreamConfigRequest;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListStreamsRequest;
import io.nova.proto.v1.Operation;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadSessionRequest;
import io.nova.proto.v1.TrimRequest;
import java.util.Optional;

/**
 * The {@link Access} each gRPC request needs, read from its first message. A list request needs
 * {@code read} on what it lists (ListStreams: on the basin; ListBasins: on no particular basin, its prefix
 * is narrowed to the scope instead, see {@link AccessScope#basinListPrefix}). An append session needs
 * {@code append} on the stream its open message names; a first message that is not an open is left to the
 * session, which refuses it. Every other message (cluster status, node info, token administration, and
 * anything not listed) needs {@code cluster-admin}: unknown calls fail closed. Stateless.
 */
final class GrpcAccess {

  private GrpcAccess() {}

  /** What {@code message} needs; empty when the call itself will refuse it (a session without an open). */
  static Optional<Access> of(Object message) {
    if (message instanceof AppendRequest r) {
      return stream(Operation.OPERATION_APPEND, r.getBasin(), r.getStream());
    } else if (message instanceof AppendSessionRequest r) {
      return r.hasOpen() ? stream(Operation.OPERATION_APPEND, r.getOpen().getBasin(), r.getOpen().getStream())
          : Optional.empty();
    } else if (message instanceof ReadRequest r) {
      return stream(Operation.OPERATION_READ, r.getBasin(), r.getStream());
    } else if (message instanceof ReadSessionRequest r) {
      return stream(Operation.OPERATION_READ, r.getBasin(), r.getStream());
    } else if (message instanceof CheckTailRequest r) {
      return stream(Operation.OPERATION_READ, r.getBasin(), r.getStream());
    } else if (message instanceof GetFencingTokenRequest r) {
      return stream(Operation.OPERATION_READ, r.getBasin(), r.getStream());
    } else if (message instanceof FenceRequest r) {
      return stream(Operation.OPERATION_FENCE, r.getBasin(), r.getStream());
    } else if (message instanceof TrimRequest r) {
      return stream(Operation.OPERATION_TRIM, r.getBasin(), r.getStream());
    } else if (message instanceof CreateStreamRequest r) {
      return stream(Operation.OPERATION_CREATE, r.getBasin(), r.getStream());
    } else if (message instanceof DeleteStreamRequest r) {
      return stream(Operation.OPERATION_DELETE, r.getBasin(), r.getStream());
    } else if (message instanceof GetStreamRequest r) {
      return stream(Operation.OPERATION_READ, r.getBasin(), r.getStream());
    } else if (message instanceof GetStreamConfigRequest r) {
      return stream(Operation.OPERATION_READ, r.getBasin(), r.getStream());
    } else if (message instanceof SetStreamConfigRequest r) {
      return stream(Operation.OPERATION_CONFIGURE, r.getBasin(), r.getStream());
    } else if (message instanceof CreateBasinRequest r) {
      return Optional.of(Access.basin(Operation.OPERATION_CREATE, r.getBasin()));
    } else if (message instanceof DeleteBasinRequest r) {
      return Optional.of(Access.basin(Operation.OPERATION_DELETE, r.getBasin()));
    } else if (message instanceof ListStreamsRequest r) {
      return Optional.of(Access.basin(Operation.OPERATION_READ, r.getBasin()));
    } else if (message instanceof ListBasinsRequest) {
      // Any basin in scope will do: the listing is narrowed to the scope.
      return Optional.of(Access.cluster(Operation.OPERATION_READ));
    }
    return Optional.of(Access.cluster(Operation.OPERATION_CLUSTER_ADMIN));
  }

  private static Optional<Access> stream(Operation operation, String basin, String stream) {
    return Optional.of(Access.stream(operation, basin, stream));
  }
}
