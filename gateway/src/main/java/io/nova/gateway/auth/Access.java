package io.nova.gateway.auth;

import io.nova.proto.v1.Operation;
import io.nova.protocol.auth.Operations;
import java.util.Optional;

/**
 * What one call needs: an operation on a stream, on a basin, or on the cluster. Immutable.
 *
 * @param operation the operation
 * @param kind what the resource is
 * @param basin the basin ("" for the cluster)
 * @param stream the stream ("" unless {@code kind} is {@link Kind#STREAM})
 */
public record Access(Operation operation, Kind kind, String basin, String stream) {

  /** The kinds of resource. */
  public enum Kind { STREAM, BASIN, CLUSTER }

  /** {@code operation} on stream {@code basin/stream}. */
  public static Access stream(Operation operation, String basin, String stream) {
    return new Access(operation, Kind.STREAM, basin, stream);
  }

  /** {@code operation} on the basin itself. */
  public static Access basin(Operation operation, String basin) {
    return new Access(operation, Kind.BASIN, basin, "");
  }

  /** {@code operation} on the whole cluster (status, node info, tokens, metrics). */
  public static Access cluster(Operation operation) {
    return new Access(operation, Kind.CLUSTER, "", "");
  }

  /** The resource as errors name it: {@code BASIN/STREAM}, {@code BASIN} or {@code cluster}. */
  public String resource() {
    return switch (kind) {
      case STREAM -> basin + "/" + stream;
      case BASIN -> basin;
      case CLUSTER -> "cluster";
    };
  }

  /** The operation as people write it ({@code cluster-admin}). */
  public String operationName() {
    return Operations.name(operation);
  }

  /** Why {@code scope} does not allow this access, or empty when it does. */
  public Optional<String> refusalBy(AccessScope scope) {
    return switch (kind) {
      case STREAM -> scope.refusalForStream(operation, basin, stream);
      case BASIN -> scope.refusalForBasin(operation, basin);
      case CLUSTER -> scope.refusalForCluster(operation);
    };
  }
}
