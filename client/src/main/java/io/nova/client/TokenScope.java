package io.nova.client;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Where an access token applies. A basin is in scope when {@code BASIN + "/"} starts with
 * {@code basinPrefix} ({@code "team-a/"} is exactly the basin team-a, {@code "team-"} every basin starting
 * with it, {@code ""} every basin); a stream when its name starts with {@code streamPrefix}. The cluster
 * checks the prefixes' characters (INVALID_ARGUMENT).
 *
 * @param basinPrefix the basin prefix; "" for every basin
 * @param streamPrefix the stream prefix; "" for every stream
 * @param operations what the token may do; at least one
 */
public record TokenScope(String basinPrefix, String streamPrefix, Set<TokenOperation> operations) {

    public TokenScope {
        Objects.requireNonNull(basinPrefix, "basinPrefix");
        Objects.requireNonNull(streamPrefix, "streamPrefix");
        Objects.requireNonNull(operations, "operations");
        if (operations.isEmpty()) {
            throw new IllegalArgumentException("a token scope needs at least one operation");
        }
        operations = Set.copyOf(EnumSet.copyOf(operations));
    }

    io.nova.proto.v1.AccessTokenScope toProto() {
        return io.nova.proto.v1.AccessTokenScope.newBuilder().setBasinPrefix(basinPrefix).setStreamPrefix(streamPrefix)
                .addAllOperations(EnumSet.copyOf(operations).stream().map(TokenOperation::toProto).toList()).build();
    }

    static TokenScope of(io.nova.proto.v1.AccessTokenScope scope) {
        Set<TokenOperation> ops = EnumSet.noneOf(TokenOperation.class);
        scope.getOperationsList().forEach(o -> ops.add(TokenOperation.of(o)));
        return new TokenScope(scope.getBasinPrefix(), scope.getStreamPrefix(), ops);
    }
}
