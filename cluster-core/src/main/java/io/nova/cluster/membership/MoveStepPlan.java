package io.nova.cluster.membership;

import io.nova.proto.internal.MoveStep;
import io.nova.proto.internal.ReplicaMove;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Decides the next action of one replica move (docs/adr/0028-placement-as-data.md) from its recorded step
 * and the group's Raft configuration as read just now. Pure: no Ratis, no I/O, no clock.
 *
 * <p>The driver calls {@link #next} before every Ratis action, so a step that crashed after its
 * configuration change committed but before the meta entry recorded it finds the change in the
 * configuration and is told to {@link Decision.Record record} it rather than redo it. Each action moves
 * the configuration one way only (the target in, then voting, then the source out), so reading it is
 * enough to know how far a move got.
 *
 * <p>Thread-safe (immutable).
 */
public final class MoveStepPlan {

  /** The most entries a new listener may trail the commit index by and count as caught up, by default. */
  public static final long CATCH_UP_ENTRIES_MAX_DEFAULT = 64;

  private final long catchUpEntriesMax;
  private final long responseAgeMaxMs;

  /**
   * @param catchUpEntriesMax how many entries a member may trail the group's commit index by and still count
   *     as caught up (0 to 1,000,000)
   * @param responseAgeMaxMs how long ago, in milliseconds, a member may have last answered its leader and
   *     still count as live (1 to 600,000); a node uses its minimum election timeout, the age after which
   *     its leader would stop counting it too
   * @throws IllegalArgumentException when either is outside its range
   */
  public MoveStepPlan(long catchUpEntriesMax, long responseAgeMaxMs) {
    if (catchUpEntriesMax < 0 || catchUpEntriesMax > 1_000_000) {
      throw new IllegalArgumentException("catchUpEntriesMax must be 0..1000000, was " + catchUpEntriesMax);
    }
    if (responseAgeMaxMs < 1 || responseAgeMaxMs > 600_000) {
      throw new IllegalArgumentException("responseAgeMaxMs must be 1..600000, was " + responseAgeMaxMs);
    }
    this.catchUpEntriesMax = catchUpEntriesMax;
    this.responseAgeMaxMs = responseAgeMaxMs;
  }

  /**
   * A group's configuration and progress as its leader reports them.
   *
   * @param voters the ids of the voting members (Raft followers and the leader)
   * @param listeners the ids of the listeners (non-voting members that receive the log)
   * @param leader the leader's id, empty when the group has none now
   * @param commitIndex the leader's commit index
   * @param targetMatchIndex the highest index the leader knows the move's target holds; empty when unknown
   * @param commitIndexes each member's commit index as the leader last heard it (the leader's own included);
   *     a member missing here counts as not caught up
   * @param responseAgesMs per member, how long ago it last answered the leader, in milliseconds (the leader
   *     itself 0); a member missing here counts as not live
   */
  public record GroupView(Set<String> voters, Set<String> listeners, Optional<String> leader, long commitIndex,
      OptionalLong targetMatchIndex, Map<String, Long> commitIndexes, Map<String, Long> responseAgesMs) {
    /** Copies the sets and maps; rejects nulls. */
    public GroupView {
      voters = Set.copyOf(voters);
      listeners = Set.copyOf(listeners);
      Objects.requireNonNull(leader, "leader");
      Objects.requireNonNull(targetMatchIndex, "targetMatchIndex");
      commitIndexes = Map.copyOf(commitIndexes);
      responseAgesMs = Map.copyOf(responseAgesMs);
    }
  }

  /** What the driver does next for one move. */
  public sealed interface Decision {
    /** The configuration already shows the next step: write {@code AdvanceReplicaMove(step → to)}. */
    record Record(MoveStep to) implements Decision {}

    /**
     * Ask the group's leader to commit a configuration of exactly these voters and listeners. In Ratis 3.3:
     * {@code admin().setConfiguration(SetConfigurationRequest.Arguments)} with {@code setServersInNewConf},
     * {@code setListenersInNewConf}, and {@code Mode.COMPARE_AND_SET} over the {@link GroupView} this
     * decision came from ({@code setServersInCurrentConf}, {@code setListenersInCurrentConf}), so a change
     * that raced it (a second driver after a meta leader change) is refused instead of overwritten. The
     * next call records it once it committed.
     */
    record SetConfiguration(List<String> voters, List<String> listeners) implements Decision {}

    /** Ask the leader to hand leadership to {@code to} (a voter other than the source). */
    record TransferLeadership(String to) implements Decision {}

    /** Nothing to do yet (no leader, or the target is still catching up): ask again later. */
    record Wait(String why) implements Decision {}

    /**
     * The cancelled move's target is out of the configuration: write {@code AbandonReplicaMove}, which
     * forgets the move and the group's learner.
     */
    record Abandon() implements Decision {}
  }

  /**
   * The next action for {@code move} given {@code group}, its configuration now.
   *
   * @throws IllegalArgumentException when the move is DONE or unspecified (a finished move is forgotten)
   */
  public Decision next(ReplicaMove move, GroupView group) {
    String from = move.getFromNode();
    String to = move.getToNode();
    boolean toVotes = group.voters().contains(to);
    boolean toListens = group.listeners().contains(to);
    boolean fromIn = group.voters().contains(from) || group.listeners().contains(from);
    if (move.getCancelled()) {
      return cancel(to, toVotes || toListens, group);
    }
    switch (move.getStep()) {
      case MOVE_STEP_PLANNED: {
        if (toVotes) {
          return new Decision.Record(MoveStep.MOVE_STEP_LEARNER_ADDED);
        }
        if (!toListens) {
          return new Decision.SetConfiguration(sorted(group.voters()), plus(group.listeners(), to));
        }
        OptionalLong match = group.targetMatchIndex();
        if (match.isEmpty() || !isCaughtUp(match.getAsLong(), group)) {
          return new Decision.Wait(to + " is catching up: holds " + (match.isEmpty() ? "unknown" : match.getAsLong())
              + " of " + group.commitIndex() + " entries");
        }
        return new Decision.Record(MoveStep.MOVE_STEP_LEARNER_ADDED);
      }
      case MOVE_STEP_LEARNER_ADDED:
        if (toVotes) {
          return new Decision.Record(MoveStep.MOVE_STEP_PROMOTED);
        }
        if (!toListens) {
          // A listener only leaves through an operator's own configuration change: add it back, then wait.
          return new Decision.SetConfiguration(sorted(group.voters()), plus(group.listeners(), to));
        }
        return withLiveQuorum(plus(group.voters(), to), minus(group.listeners(), to), group);
      case MOVE_STEP_PROMOTED:
        return leaderOff(from, to, group).orElse(new Decision.Record(MoveStep.MOVE_STEP_LEADER_MOVED));
      case MOVE_STEP_LEADER_MOVED: {
        if (!fromIn) {
          return new Decision.Record(MoveStep.MOVE_STEP_OLD_REMOVED);
        }
        Optional<Decision> leaderOff = leaderOff(from, to, group);
        if (leaderOff.isPresent()) {
          return leaderOff.get();
        }
        return withLiveQuorum(minus(group.voters(), from), minus(group.listeners(), from), group);
      }
      case MOVE_STEP_OLD_REMOVED:
        return fromIn ? withLiveQuorum(minus(group.voters(), from), minus(group.listeners(), from), group)
            : new Decision.Record(MoveStep.MOVE_STEP_DONE);
      default:
        throw new IllegalArgumentException("a move at step " + move.getStep() + " has nothing left to do");
    }
  }

  /**
   * Undoing a cancelled move: the target leaves the configuration (after handing leadership to a live,
   * caught-up voter if it leads: a move promoted in a race with the cancel), then the move is abandoned.
   */
  private Decision cancel(String to, boolean toIn, GroupView group) {
    if (!toIn) {
      return new Decision.Abandon();
    }
    if (group.leader().isEmpty()) {
      return new Decision.Wait("the group has no leader");
    }
    if (group.leader().get().equals(to)) {
      Optional<String> other = group.voters().stream().filter(v -> !v.equals(to) && isLiveAndCaughtUp(v, group))
          .sorted().findFirst();
      return other.<Decision>map(Decision.TransferLeadership::new)
          .orElse(new Decision.Wait("no other voter is live and caught up to take leadership from " + to));
    }
    return withLiveQuorum(minus(group.voters(), to), minus(group.listeners(), to), group);
  }

  /**
   * The change to {@code voters} and {@code listeners}, or a wait while fewer than a majority of the new voters
   * are live and caught up. Ratis commits a change through a joint configuration that needs a majority of the
   * old voters and of the new ones; a new set whose majority includes a lagging or silent member would stall
   * the group (no commits, no leader that can win both majorities) until that member recovers. Found by the
   * chaos suite: a listener promoted 148 entries behind while another voter was down.
   */
  private Decision withLiveQuorum(List<String> voters, List<String> listeners, GroupView group) {
    List<String> ready = voters.stream().filter(v -> isLiveAndCaughtUp(v, group)).toList();
    if (ready.size() <= voters.size() / 2) {
      return new Decision.Wait("only " + ready + " of the new voters " + voters + " are live and within "
          + catchUpEntriesMax + " entries of commit index " + group.commitIndex() + "; a majority must be");
    }
    return new Decision.SetConfiguration(voters, listeners);
  }

  private boolean isLiveAndCaughtUp(String member, GroupView group) {
    Long age = group.responseAgesMs().get(member);
    Long commit = group.commitIndexes().get(member);
    return age != null && age <= responseAgeMaxMs && commit != null && isCaughtUp(commit, group);
  }

  /** Whether a member holding {@code commit} trails the leader's commit index by at most the bound. */
  private boolean isCaughtUp(long commit, GroupView group) {
    return commit + catchUpEntriesMax >= group.commitIndex();
  }

  /** Empty when the source does not lead; else a transfer to the target (or a wait without a leader). */
  private static Optional<Decision> leaderOff(String from, String to, GroupView group) {
    if (group.leader().isEmpty()) {
      return Optional.of(new Decision.Wait("the group has no leader"));
    }
    if (!group.leader().get().equals(from)) {
      return Optional.empty();
    }
    return Optional.of(new Decision.TransferLeadership(to));
  }

  private static List<String> sorted(Set<String> ids) {
    return ids.stream().sorted().toList();
  }

  private static List<String> plus(Set<String> ids, String id) {
    Set<String> out = new LinkedHashSet<>(ids);
    out.add(id);
    return sorted(out);
  }

  private static List<String> minus(Set<String> ids, String id) {
    Set<String> out = new LinkedHashSet<>(ids);
    out.remove(id);
    return sorted(out);
  }
}
