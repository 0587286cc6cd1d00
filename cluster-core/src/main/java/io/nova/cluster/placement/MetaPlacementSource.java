package io.nova.cluster.placement;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.proto.internal.Done;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.SeedPlacementCommand;
import io.nova.statemachine.MetaStateMachine;
import java.io.IOException;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Reads and seeds the placement in the meta group (ADR 0028), for {@link PlacementReconciler}.
 *
 * <p>A node hosting a voting meta replica reads that replica's applied state: no Raft round trip, possibly a
 * few entries behind the leader, which the next pass corrects (and a ready leader's state holds every
 * committed entry, so "none yet" on the leader means none). A node without one asks the meta group
 * (a linearizable read). Seeds go to the meta group's leader as a log entry. Every remote call is
 * bounded by the clients {@code clients} builds (request timeout and retries). Thread-safe.
 */
public final class MetaPlacementSource implements PlacementReconciler.Source {
  private final RaftServer server;
  private final Supplier<ClusterLayout> layout;
  private final Function<RaftGroup, RaftClient> clients;

  /**
   * @param server this node's Raft server
   * @param layout the node's current layout (where the meta group is)
   * @param clients builds a bounded client of a group (closed after each call)
   */
  public MetaPlacementSource(RaftServer server, Supplier<ClusterLayout> layout,
      Function<RaftGroup, RaftClient> clients) {
    this.server = server;
    this.layout = layout;
    this.clients = clients;
  }

  @Override
  public Optional<Placement> read() throws IOException {
    Optional<MetaStateMachine> local = localMeta();
    if (local.isPresent()) {
      return local.get().placement();
    }
    return readFromGroup();
  }

  /**
   * The placement as of now, for a decision that must not act on an outdated one (the leader balance must
   * never hand a leadership to a node that has just become draining). When this node's meta replica is the
   * group's ready leader, its applied state: every entry acknowledged to a client was applied there first,
   * so a change already answered to its caller is in it. Otherwise a linearizable read of the meta group,
   * never a follower's own state, which may trail by a few entries. Bounded as {@link #read()}.
   *
   * @return the placement; empty when the meta group holds none yet
   * @throws IOException when the meta group did not answer in time
   */
  public Optional<Placement> readCurrent() throws IOException {
    Optional<MetaStateMachine> leader = leadingMeta();
    if (leader.isPresent()) {
      return leader.get().placement();
    }
    return readFromGroup();
  }

  /** A linearizable read of the meta group, through its leader. */
  private Optional<Placement> readFromGroup() throws IOException {
    MetaQuery query = MetaQuery.newBuilder().setGetPlacement(Done.getDefaultInstance()).build();
    try (RaftClient client = clients.apply(layout.get().meta().group())) {
      MetaQueryResult result = parse(client.io().sendReadOnly(message(query)), MetaQueryResult.parser());
      if (result.hasPlacement()) {
        return Optional.of(result.getPlacement());
      }
      if (result.getError().hasNotFound()) {
        return Optional.empty();
      }
      throw new IOException("the meta group refused the placement query: " + result.getError().getMessage());
    }
  }

  /**
   * The placement as one of the meta group's other replicas last applied it (a stale read of that
   * replica's own state: no leader is needed, and any seeded placement is nearer the truth than a
   * configuration's layout), asking them in turn; empty when none holds one or none answers. For a node
   * about to open its groups for the first time: it must not open those its configuration's layout places
   * on it when the cluster's placement says otherwise (ADR 0028).
   *
   * @param meta the meta group as the configuration's layout places it
   * @param self this node, not asked
   * @param clients builds a client of a group with the given single peer; each is closed after its call
   */
  public static Optional<Placement> readFromReplicas(RaftGroup meta, RaftPeerId self,
      Function<RaftGroup, RaftClient> clients) {
    MetaQuery query = MetaQuery.newBuilder().setGetPlacement(Done.getDefaultInstance()).build();
    for (RaftPeer peer : meta.getPeers()) {
      if (peer.getId().equals(self)) {
        continue;
      }
      try (RaftClient client = clients.apply(RaftGroup.valueOf(meta.getGroupId(), peer))) {
        MetaQueryResult result = parse(client.io().sendStaleRead(message(query), 0, peer.getId()),
            MetaQueryResult.parser());
        if (result.hasPlacement()) {
          return Optional.of(result.getPlacement());
        }
      } catch (IOException | RuntimeException e) {
        // Not running yet, no meta replica, or unreachable: ask the next one.
      }
    }
    return Optional.empty();
  }

  @Override
  public boolean leadsMeta() {
    try {
      var info = server.getDivision(layout.get().meta().group().getGroupId()).getInfo();
      return info.isAlive() && info.isLeader() && info.isLeaderReady();
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public Placement seed(Placement seed) throws IOException {
    MetaCommand command = MetaCommand.newBuilder()
        .setSeedPlacement(SeedPlacementCommand.newBuilder().setPlacement(seed)).build();
    try (RaftClient client = clients.apply(layout.get().meta().group())) {
      MetaResult result = parse(client.io().send(message(command)), MetaResult.parser());
      if (!result.hasPlacement()) {
        throw new IOException("the meta group refused the seed placement: " + result.getError().getMessage());
      }
      return result.getPlacement();
    }
  }

  /**
   * This node's meta replica, when it is a voter of a configuration that is not joint. A replica moved away
   * (ADR 0028) is left with the joint configuration as its last one and receives no more of the log, so its
   * state would show a placement frozen mid-move for ever; a listener still catching up may be far behind.
   * Either reads the placement from the group instead.
   */
  private Optional<MetaStateMachine> localMeta() {
    try {
      RaftServer.Division division = server.getDivision(layout.get().meta().group().getGroupId());
      var conf = division.getRaftConf();
      boolean settledVoter = conf.getPreviousPeers().isEmpty()
          && conf.getCurrentPeers().stream().anyMatch(p -> p.getId().equals(server.getId()));
      return settledVoter && division.getInfo().isAlive()
          && division.getStateMachine() instanceof MetaStateMachine meta ? Optional.of(meta) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** This node's meta replica, when it is the group's ready leader. */
  private Optional<MetaStateMachine> leadingMeta() {
    try {
      RaftServer.Division division = server.getDivision(layout.get().meta().group().getGroupId());
      var info = division.getInfo();
      return info.isAlive() && info.isLeader() && info.isLeaderReady()
          && division.getStateMachine() instanceof MetaStateMachine meta ? Optional.of(meta) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static Message message(MessageLite m) {
    return Message.valueOf(ByteString.copyFrom(m.toByteArray()));
  }

  private static <T> T parse(RaftClientReply reply, com.google.protobuf.Parser<T> parser) throws IOException {
    if (!reply.isSuccess()) {
      throw reply.getException() != null ? reply.getException()
          : new IOException("unsuccessful reply from the meta group without an exception");
    }
    try {
      return parser.parseFrom(reply.getMessage().getContent().toByteArray());
    } catch (InvalidProtocolBufferException e) {
      throw new IOException("undecodable reply from the meta group", e);
    }
  }
}
