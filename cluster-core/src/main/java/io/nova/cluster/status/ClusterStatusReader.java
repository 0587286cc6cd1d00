package io.nova.cluster.status;

import io.nova.cluster.config.HostPort;
import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.node.NovaNode;
import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.GetNodeInfoResponse;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Builds the cluster status a node reports ({@code GetClusterStatus}): asks every other node for its
 * own view ({@link NodeInfoSource}) while probing every Raft port, reads its own view locally, and
 * combines them ({@link StatusAssembly} has the rules). The nodes and groups are those of the placement
 * this node last read from the meta group (ADR 0028), with its version and each node's registry state;
 * before it has read one, its configuration's. A node that does not answer within the
 * source's deadline is reported down, so one call takes at most about that deadline
 * ({@value #ANSWER_WAIT_MS} ms at most). Thread-safe; each call does fresh I/O.
 */
public final class ClusterStatusReader {

  /** How long a Raft port probe may take, in milliseconds (all nodes are probed at once). */
  static final int PROBE_TIMEOUT_MS = 500;
  /**
   * How long to wait for the other nodes' answers in all, in milliseconds: a backstop above the
   * source's own deadline, so a source that never completes cannot hang the call.
   */
  static final long ANSWER_WAIT_MS = 2_000;

  private final NovaNode node;
  private final NodeInfoReader local;
  private final NodeInfoSource peers;

  /**
   * @param node this node
   * @param local reads this node's own view
   * @param peers asks the other nodes for theirs
   */
  public ClusterStatusReader(NovaNode node, NodeInfoReader local, NodeInfoSource peers) {
    this.node = node;
    this.local = local;
    this.peers = peers;
  }

  public GetClusterStatusResponse read() {
    String selfId = node.config().nodeId();
    // One layout for the whole answer: a placement adopted meanwhile shows in the next one.
    var placement = node.placement();
    var layout = node.layout();
    Map<String, CompletableFuture<GetNodeInfoResponse>> asked = new LinkedHashMap<>();
    Map<String, HostPort> raftPorts = new HashMap<>();
    for (PeerAddress peer : layout.nodes()) {
      if (!peer.id().equals(selfId)) {
        asked.put(peer.id(), peers.nodeInfo(peer));
        raftPorts.put(peer.id(), HostPort.parse(peer.raftAddress(), "raft-address"));
      }
    }
    Set<String> reachable = new HashSet<>(PortProbe.reachable(raftPorts, PROBE_TIMEOUT_MS));
    reachable.add(selfId);
    Map<String, GetNodeInfoResponse> answered = new HashMap<>();
    answered.put(selfId, local.read());
    long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_WAIT_MS);
    for (Map.Entry<String, CompletableFuture<GetNodeInfoResponse>> e : asked.entrySet()) {
      await(e.getValue(), deadlineNanos).ifPresent(info -> answered.put(e.getKey(), info));
    }
    return StatusAssembly.withPlacement(
        StatusAssembly.assemble(selfId, layout.nodes(), layout.allGroups(), answered, reachable), placement);
  }

  private static Optional<GetNodeInfoResponse> await(
      CompletableFuture<GetNodeInfoResponse> answer, long deadlineNanos) {
    try {
      return Optional.of(answer.get(Math.max(0, deadlineNanos - System.nanoTime()),
          TimeUnit.NANOSECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      answer.cancel(true);
      return Optional.empty();
    } catch (ExecutionException | TimeoutException e) {
      answer.cancel(true);
      return Optional.empty();
    }
  }
}
