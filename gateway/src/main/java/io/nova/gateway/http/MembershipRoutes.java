package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.controlplane.Membership;
import io.nova.proto.v1.CancelReplicaMoveRequest;
import io.nova.proto.v1.DrainNodeRequest;
import io.nova.proto.v1.GroupStatus;
import io.nova.proto.v1.NodeStatus;
import io.nova.proto.v1.RemoveNodeRequest;
import io.nova.proto.v1.ReplicaMoveStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code /v1/cluster/nodes} and {@code /v1/cluster/moves}: the membership verbs over HTTP (docs/http-api.md,
 * Membership), served by the same {@link Membership} as the gRPC AddNode, RemoveNode, DrainNode,
 * ReplaceNode and MoveReplica. No route claims an access level, so with access tokens on they need {@code cluster-admin} (the
 * fail-closed default). Stateless and thread-safe.
 *
 * <ul>
 *   <li>{@code POST /v1/cluster/nodes} with {@code {"node_id", "raft_address", "api_address",
 *       "http_address"}}: 201 with the node as registered ({@code member_state} "up" or "joining").
 *   <li>{@code DELETE /v1/cluster/nodes/{node_id}}: 200 with the node ({@code member_state} "removed").
 *   <li>{@code POST /v1/cluster/nodes/{node_id}/drain}: 200 with the node ({@code member_state} "draining").
 *   <li>{@code POST /v1/cluster/nodes/{node_id}/replace} with {@code {"new_node_id"}}: 200 with the replaced
 *       node ({@code member_state} "draining"); as a drain, its moves go on after the answer.
 *   <li>{@code POST /v1/cluster/moves} with {@code {"group", "from", "to"}}: 202 (the move goes on after the
 *       answer) with {@code group, from, to, step, placement_version}.
 *   <li>{@code DELETE /v1/cluster/moves/{group}}: 202 (the target leaves the group after the answer) with the
 *       move as {@code POST /v1/cluster/moves} answers it, {@code step} "cancelling".
 *   <li>{@code POST /v1/cluster/shards} with {@code {"count", "expected_shard_count"?}}: 202 (the groups take
 *       streams once they lead) with {@code groups} (name, group_id, replicas, provisioning),
 *       {@code shard_count, placement_version}.
 * </ul>
 * Errors as the gRPC verbs', through {@link ErrorMapper}: 400, 404, 409 ({@code already_exists},
 * {@code membership_refused}), 503.
 */
public final class MembershipRoutes implements HttpRoutes {

  private final Membership membership;
  private final int bodyBytesMax;

  /** @param bodyBytesMax the largest request body read, in bytes (413 beyond) */
  public MembershipRoutes(Membership membership, int bodyBytesMax) {
    this.membership = membership;
    this.bodyBytesMax = bodyBytesMax;
  }

  @Override
  public void register(RoutesConfig routes) {
    routes.post("/v1/cluster/nodes", this::add);
    routes.delete("/v1/cluster/nodes/{node_id}", this::remove);
    routes.post("/v1/cluster/nodes/{node_id}/drain", this::drain);
    routes.post("/v1/cluster/nodes/{node_id}/replace", this::replace);
    routes.post("/v1/cluster/moves", this::move);
    routes.delete("/v1/cluster/moves/{group}", this::cancelMove);
    routes.post("/v1/cluster/shards", this::addShards);
  }

  private void add(Context ctx) {
    byte[] body = RequestBodies.read(ctx, bodyBytesMax);
    QueryParams.of(ctx, Set.of());
    var added = membership.addNode(Json.parse(body, RequestBodies.AddNode.class).toProto());
    Json.respond(ctx, 201, node(added.getNode(), added.getPlacementVersion()));
  }

  private void remove(Context ctx) {
    QueryParams.of(ctx, Set.of());
    var removed = membership.removeNode(RemoveNodeRequest.newBuilder().setNodeId(ctx.pathParam("node_id")).build());
    Json.respond(ctx, 200, node(removed.getNode(), removed.getPlacementVersion()));
  }

  private void drain(Context ctx) {
    QueryParams.of(ctx, Set.of());
    var drained = membership.drainNode(DrainNodeRequest.newBuilder().setNodeId(ctx.pathParam("node_id")).build());
    Json.respond(ctx, 200, node(drained.getNode(), drained.getPlacementVersion()));
  }

  private void replace(Context ctx) {
    byte[] body = RequestBodies.read(ctx, bodyBytesMax);
    QueryParams.of(ctx, Set.of());
    var replaced = membership.replaceNode(Json.parse(body, RequestBodies.ReplaceNode.class)
        .toProto(ctx.pathParam("node_id")));
    Json.respond(ctx, 200, node(replaced.getNode(), replaced.getPlacementVersion()));
  }

  private void move(Context ctx) {
    byte[] body = RequestBodies.read(ctx, bodyBytesMax);
    QueryParams.of(ctx, Set.of());
    var begun = membership.moveReplica(Json.parse(body, RequestBodies.MoveReplica.class).toProto());
    Json.respond(ctx, 202, move(begun.getMove(), begun.getPlacementVersion()));
  }

  private void cancelMove(Context ctx) {
    QueryParams.of(ctx, Set.of());
    var cancelled = membership.cancelReplicaMove(CancelReplicaMoveRequest.newBuilder()
        .setGroup(ctx.pathParam("group")).build());
    Json.respond(ctx, 202, move(cancelled.getMove(), cancelled.getPlacementVersion()));
  }

  private static Map<String, Object> move(ReplicaMoveStatus move, long placementVersion) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("group", move.getGroup());
    out.put("from", move.getFromNode());
    out.put("to", move.getToNode());
    out.put("step", move.getStep());
    out.put("placement_version", placementVersion);
    return out;
  }

  private void addShards(Context ctx) {
    byte[] body = RequestBodies.read(ctx, bodyBytesMax);
    QueryParams.of(ctx, Set.of());
    var added = membership.addShards(Json.parse(body, RequestBodies.AddShards.class).toProto());
    List<Map<String, Object>> groups = new ArrayList<>();
    for (GroupStatus group : added.getGroupsList()) {
      Map<String, Object> g = new LinkedHashMap<>();
      g.put("name", group.getName());
      g.put("group_id", group.getGroupId());
      g.put("replicas", group.getReplicasList());
      g.put("provisioning", group.getProvisioning());
      groups.add(g);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("groups", groups);
    out.put("shard_count", added.getShardCount());
    out.put("placement_version", added.getPlacementVersion());
    Json.respond(ctx, 202, out);
  }

  private static Map<String, Object> node(NodeStatus node, long placementVersion) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("node_id", node.getNodeId());
    out.put("raft_address", node.getRaftAddress());
    out.put("api_address", node.getApiAddress());
    out.put("http_address", node.getHttpAddress());
    out.put("member_state", node.getMemberState());
    out.put("placement_version", placementVersion);
    return out;
  }
}
