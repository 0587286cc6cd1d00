package io.nova.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Checks a chaos history against the final contents of every stream, one linear pass per stream plus
 * sorted sweeps for the real-time rules. The invariants (numbered as in docs/testing.md):
 *
 * <ol>
 *   <li>every acknowledged append is present at exactly its acked seq_nums;
 *   <li>each stream is dense from 0 to its tail, and identical through every node's gateway;
 *   <li>no payload appears twice (the client never resends, so no duplicate is excusable), and nothing
 *       appears that no one wrote;
 *   <li>a conditional success landed exactly at its match_seq_num;
 *   <li>a definite failure had no effect;
 *   <li>every record a reader saw is in the final stream at the same seq_num;
 *   <li>an append acked before another was invoked has the smaller seq_num, and a read or check-tail
 *       invoked after an ack reports a tail covering it;
 *   <li>after {@code Fence(T)} returned boundary f, every record at or after f was written presenting T
 *       or a later token (tokens are {@code gen-N}, installed in increasing N);
 *   <li>each process's observed tails of a stream never decrease;
 *   <li>after healing, every group had a leader within 10 s and an append succeeded within 30 s;
 *   <li>the final first retained seq_num is at least every acknowledged trim point and at most the
 *       highest trim point anyone asked for (nothing above the trim point is lost);
 *   <li>no read invoked after a trim was acknowledged returned a record below that trim point;
 *   <li>while a group's leader was paused, an append through the other nodes committed within
 *       {@link PauseProbe#FIRST_COMMIT_AFTER_ELECTION_MS_MAX} ms of the new leader being seen
 *       ({@link #checkPauses}; the target is less, see {@link PauseProbe}).
 *   <li>a chain stream holds each life of its advancing-match writer as one unbroken run: that life's
 *       appends whole, in the order it made them, a prefix of what it staged (no append of a life after
 *       one of the same life that is missing: the hole a pipelined batch behind a miss would leave).
 *   <li>a stream with a retention limit of N records ({@link RetainedStream}), with final tail T and first
 *       retained seq_num F: F is at most {@code max(0, T - N)} (retention never drops a record within the
 *       limit: no slack, see {@link #checkRetention}) and, as the runner waited for a pass after the writers
 *       stopped, at least that (enforced); every acknowledged record at or above {@code max(0, T - N)} is
 *       at its acked seq_num; and a final read from seq_num 0 with clamp returned nothing below F.
 * </ol>
 *
 * <p>Records below a stream's final first retained seq_num were trimmed: an acked append there, or a
 * record a reader saw there, cannot be compared with the final contents and is excused from (1) and (6).
 *
 * <p>Stateless and thread-safe.
 */
public final class Checker {

  public static final long LEADER_AFTER_HEAL_MS_MAX = 10_000;
  /** Prefix of the error of an operation whose answer broke the API contract (e.g. a non-dense read). */
  public static final String MALFORMED = "MALFORMED ANSWER: ";
  public static final long APPEND_AFTER_HEAL_MS_MAX = 30_000;

  /**
   * The final contents of one stream as read through each node's gateway.
   *
   * @param byNode node id to the bodies at seq_num first, first + 1, ... (every retained record up to the
   *               tail it reported), with the tail reported, whether the read's seq_nums were dense, and
   *               the first retained seq_num it reported (absent: 0)
   */
  public record FinalStream(Map<String, List<String>> byNode, Map<String, Long> tailByNode,
      Map<String, Boolean> denseByNode, Map<String, Long> firstByNode) {

    /** A stream that was never trimmed. */
    public FinalStream(Map<String, List<String>> byNode, Map<String, Long> tailByNode,
        Map<String, Boolean> denseByNode) {
      this(byNode, tailByNode, denseByNode, Map.of());
    }

    long firstOf(String node) {
      return firstByNode.getOrDefault(node, 0L);
    }
  }

  /**
   * What the runner knows of a stream created with a retention limit by record count (rule 15).
   *
   * @param limitRecords the stream's {@code retention_records}: it keeps at most this many newest records
   * @param lowestReadByNode per node, the lowest seq_num that a final read from seq_num 0 with clamp
   *     returned (absent: that read returned nothing or failed)
   */
  public record RetainedStream(long limitRecords, Map<String, Long> lowestReadByNode) {
    public RetainedStream {
      if (limitRecords < 1) {
        throw new IllegalArgumentException("limitRecords must be >= 1, got " + limitRecords);
      }
      lowestReadByNode = Map.copyOf(lowestReadByNode);
    }
  }

  /** Recovery after the last heal; -1 means it never happened within the bounds. */
  public record Recovery(long leaderAfterHealMs, long appendAfterHealMs) {}

  public Verdict check(History history, Map<String, FinalStream> finals, Recovery recovery) {
    return check(history, finals, recovery, Map.of());
  }

  /**
   * Checks every rule; {@code retained} names the streams with a retention limit (by stream name), which
   * rule 15 checks instead of rule 11 (their first retained seq_num is moved by retention, not by trims).
   */
  public Verdict check(History history, Map<String, FinalStream> finals, Recovery recovery,
      Map<String, RetainedStream> retained) {
    Verdict v = new Verdict();
    List<Op> ops = history.ops();
    Map<String, List<Op>> byStream = new HashMap<>();
    for (Op op : ops) {
      byStream.computeIfAbsent(op.stream(), s -> new ArrayList<>()).add(op);
    }
    for (Map.Entry<String, FinalStream> e : finals.entrySet()) {
      checkStream(v, e.getKey(), byStream.getOrDefault(e.getKey(), List.of()), e.getValue(),
          retained.get(e.getKey()));
    }
    for (String stream : byStream.keySet()) {
      v.check("2 stream read back", finals.containsKey(stream), stream + " has operations but no final read");
    }
    if (recovery != null) {
      v.check("10 leader within 10s of heal", recovery.leaderAfterHealMs() >= 0
          && recovery.leaderAfterHealMs() <= LEADER_AFTER_HEAL_MS_MAX,
          "a group had no leader " + recovery.leaderAfterHealMs() + " ms after healing");
      v.check("10 append within 30s of heal", recovery.appendAfterHealMs() >= 0
          && recovery.appendAfterHealMs() <= APPEND_AFTER_HEAL_MS_MAX,
          "no append succeeded " + recovery.appendAfterHealMs() + " ms after healing");
    }
    return v;
  }

  /**
   * (13) A paused leader costs writes its election and a little more (issue #8): no pause may have
   * {@link PauseProbe.Outcome#STALLED}. Late pauses (beyond the target, within the maximum) pass but are
   * logged as such; an inconclusive one (the new leader seen too near the resume) proves nothing and is
   * not counted.
   */
  void checkPauses(Verdict v, List<PauseProbe.Measurement> pauses) {
    for (PauseProbe.Measurement m : pauses) {
      PauseProbe.Outcome outcome = m.outcome();
      if (outcome != PauseProbe.Outcome.INCONCLUSIVE) {
        v.check("13 commit soon after a paused leader's successor", outcome != PauseProbe.Outcome.STALLED,
            m + (m.waitedOutThePause() ? ", writes waited out the pause" : "") + "; appends (ms from the pause): "
                + m.timeline());
      }
    }
  }

  private void checkStream(Verdict v, String stream, List<Op> ops, FinalStream fin, RetainedStream retention) {
    // (2) dense and identical on every gateway; the first node's copy is the reference.
    List<String> ref = null;
    String refNode = null;
    for (Map.Entry<String, List<String>> e : fin.byNode().entrySet()) {
      String node = e.getKey();
      long firstOfNode = fin.firstOf(node);
      v.check("2 dense from 0 to tail", Boolean.TRUE.equals(fin.denseByNode().get(node))
          && Objects.equals(fin.tailByNode().get(node), firstOfNode + e.getValue().size()),
          stream + " via " + node + ": " + e.getValue().size() + " records from " + firstOfNode + ", tail "
              + fin.tailByNode().get(node) + ", dense " + fin.denseByNode().get(node));
      // Indexed by seq_num: null below the first retained seq_num (trimmed).
      List<String> copy = new ArrayList<>(java.util.Collections.nCopies((int) firstOfNode, (String) null));
      copy.addAll(e.getValue());
      if (ref == null) {
        ref = copy;
        refNode = node;
      } else {
        v.check("2 identical on every gateway", ref.equals(copy), stream + ": " + node + " differs from "
            + refNode + " (" + copy.size() + " vs " + ref.size() + " records, first difference at "
            + firstDifference(ref, copy) + ")");
      }
    }
    if (ref == null) {
      v.anomaly("2 stream read back", stream + " could not be read through any gateway");
      return;
    }
    final List<String> stored = ref;
    final long first = fin.firstOf(refNode);
    // (3) each payload once, and only payloads someone wrote.
    Map<String, Op> writer = new HashMap<>();
    for (Op op : ops) {
      if (op.isAppend()) {
        op.bodies().forEach(b -> writer.put(b, op));
      }
    }
    Map<String, Long> position = new HashMap<>();
    for (int i = (int) first; i < stored.size(); i++) {
      String body = stored.get(i);
      Long previous = position.putIfAbsent(body, (long) i);
      v.check("3 no payload twice", previous == null,
          stream + ": '" + body + "' at " + previous + " and " + i);
      v.check("3 no payload from nowhere", writer.containsKey(body),
          stream + ": '" + body + "' at " + i + " was never written");
    }
    for (Op op : ops) {
      v.check("6 reads see committed data", !op.error().startsWith(MALFORMED), stream + ": op " + op.id()
          + " " + op.error());
      if (op.isAppend()) {
        checkAppend(v, stream, op, stored, position, first);
      } else if (op.kind() == Op.Kind.READ && op.ok()) {
        // (6) what a reader saw is committed where it saw it (unless trimmed since).
        for (int k = 0; k < op.bodies().size(); k++) {
          long seq = op.start() + k;
          if (seq < first) {
            continue;
          }
          v.check("6 reads see committed data", seq < stored.size() && stored.get((int) seq).equals(op.bodies().get(k)),
              stream + ": op " + op.id() + " read '" + op.bodies().get(k) + "' at " + seq + ", final has "
                  + (seq < stored.size() ? "'" + stored.get((int) seq) + "'" : "nothing"));
        }
        v.check("6 reads see committed data", op.tail() <= stored.size(),
            stream + ": op " + op.id() + " saw tail " + op.tail() + " beyond the final " + stored.size());
      } else if (op.kind() == Op.Kind.CHECK_TAIL && op.ok()) {
        v.check("6 reads see committed data", op.tail() <= stored.size(),
            stream + ": op " + op.id() + " saw tail " + op.tail() + " beyond the final " + stored.size());
      }
    }
    checkRealTime(v, stream, ops);
    checkFences(v, stream, ops, stored, writer);
    checkMonotonic(v, stream, ops);
    if (retention == null) {
      checkTrims(v, stream, ops, first);
    } else {
      checkRetention(v, stream, ops, stored, first, retention);
    }
    checkChains(v, stream, ops, stored, first);
  }

  /**
   * (15) Retention by record count. The leader computes a count trim point as its applied tail at the pass
   * minus the limit, and the tail only grows, so no pass ever asks for more than {@code max(0, T - N)} of
   * the final tail T: enforcement can lag (a pass per {@code retentionPassIntervalMs}, none while the group
   * has no leader), which only leaves F lower, so the upper bound needs no slack. The lower bound holds
   * because the runner, after the writers stopped, waited (bounded) until a pass had caught up; a stream
   * still short of it is reported as unenforced.
   */
  private void checkRetention(Verdict v, String stream, List<Op> ops, List<String> stored, long first,
      RetainedStream retention) {
    long tail = stored.size();
    long floor = Math.max(0, tail - retention.limitRecords());
    v.check("15 retention keeps its limit", first <= floor, stream + ": first retained seq_num " + first
        + " above max(0, tail " + tail + " - limit " + retention.limitRecords() + ") = " + floor);
    v.check("15 retention enforced after the writers stopped", first >= floor, stream + ": first retained seq_num "
        + first + " still below " + floor + " (tail " + tail + ", limit " + retention.limitRecords() + ")");
    for (Op op : ops) {
      if (!op.isAppend() || !op.ok()) {
        continue;
      }
      for (int k = 0; k < op.bodies().size(); k++) {
        long seq = op.start() + k;
        if (seq >= floor) {
          v.check("15 nothing within the retention limit lost", seq < tail && op.bodies().get(k).equals(stored.get((int) seq)),
              stream + ": op " + op.id() + " acked '" + op.bodies().get(k) + "' at " + seq + " (within the last "
                  + retention.limitRecords() + " of tail " + tail + "), final has "
                  + (seq < tail ? "'" + stored.get((int) seq) + "'" : "nothing"));
        }
      }
    }
    for (Map.Entry<String, Long> lowest : retention.lowestReadByNode().entrySet()) {
      v.check("15 no read below the first retained seq_num", lowest.getValue() >= first, stream + " via "
          + lowest.getKey() + ": a read from 0 with clamp returned seq_num " + lowest.getValue() + " below " + first);
    }
  }

  /** (14) Each life of a chain writer (bodies {@code aw-S#LIFE#COUNTER#K}) is one prefix run, see above. */
  private void checkChains(Verdict v, String stream, List<Op> ops, List<String> stored, long first) {
    Map<String, List<Op>> lives = new HashMap<>();
    for (Op op : ops) {
      if (op.isAppend() && op.process().startsWith(Workload.CHAIN_WRITER_PREFIX) && !op.bodies().isEmpty()) {
        lives.computeIfAbsent(lifeOf(op.bodies().get(0)), l -> new ArrayList<>()).add(op);
      }
    }
    for (Map.Entry<String, List<Op>> life : lives.entrySet()) {
      List<Op> appends = new ArrayList<>(life.getValue());
      appends.sort(Comparator.comparingLong(op -> Long.parseLong(op.bodies().get(0).split("#")[2])));
      List<String> staged = new ArrayList<>();
      List<Integer> boundaries = new ArrayList<>(List.of(0));
      for (Op op : appends) {
        staged.addAll(op.bodies());
        boundaries.add(staged.size());
      }
      List<String> landed = new ArrayList<>();
      int firstAt = -1;
      int lastAt = -1;
      boolean unbroken = true;
      for (int i = (int) first; i < stored.size(); i++) {
        if (stored.get(i).startsWith(life.getKey() + "#")) {
          unbroken &= lastAt < 0 || lastAt == i - 1;
          firstAt = firstAt < 0 ? i : firstAt;
          lastAt = i;
          landed.add(stored.get(i));
        }
      }
      boolean prefix = landed.size() <= staged.size() && landed.equals(staged.subList(0, landed.size()))
          && boundaries.contains(landed.size());
      v.check("14 an advancing chain has no hole", unbroken && prefix, stream + ": life " + life.getKey() + " landed "
          + landed.size() + " of " + staged.size() + " staged records at " + firstAt + ".." + lastAt
          + (unbroken ? "" : ", interrupted by other records") + (prefix ? "" : ", not a whole-append prefix of what it staged: "
          + landed.subList(0, Math.min(8, landed.size())) + " vs " + staged.subList(0, Math.min(8, staged.size()))));
    }
  }

  /** {@code aw-S#LIFE} of a chain writer's body {@code aw-S#LIFE#COUNTER#K}. */
  private static String lifeOf(String body) {
    return body.substring(0, body.indexOf('#', body.indexOf('#') + 1));
  }

  /** (11) The final trim point is one that was asked for and covers every acked one; (12) no trimmed read. */
  private void checkTrims(Verdict v, String stream, List<Op> ops, long first) {
    List<Op> trims = ops.stream().filter(o -> o.kind() == Op.Kind.TRIM).toList();
    long ackedMax = trims.stream().filter(Op::ok).mapToLong(Op::start).max().orElse(0);
    // A trim whose outcome is unknown may have landed; a definite failure did not.
    long askedMax = trims.stream().filter(o -> o.outcome() != Op.Outcome.FAIL).mapToLong(Op::match).max().orElse(0);
    v.check("11 trim point exact", first >= ackedMax && first <= askedMax,
        stream + ": final first retained seq_num " + first + ", acked trims reached " + ackedMax
            + ", highest trim asked " + askedMax);
    List<Op> acked = trims.stream().filter(Op::ok).sorted(Comparator.comparingLong(Op::completeNs)).toList();
    List<Op> reads = ops.stream().filter(o -> o.kind() == Op.Kind.READ && o.ok() && !o.bodies().isEmpty())
        .sorted(Comparator.comparingLong(Op::invokeNs)).toList();
    int next = 0;
    long trimmedBelow = 0;
    Op by = null;
    for (Op read : reads) {
      while (next < acked.size() && acked.get(next).completeNs() < read.invokeNs()) {
        Op t = acked.get(next++);
        if (t.start() > trimmedBelow) {
          trimmedBelow = t.start();
          by = t;
        }
      }
      v.check("12 no read below an acked trim", read.start() >= trimmedBelow,
          stream + ": op " + read.id() + " read from " + read.start() + " after trim op "
              + (by == null ? "?" : by.id()) + " was acked at " + trimmedBelow);
    }
  }

  private void checkAppend(Verdict v, String stream, Op op, List<String> stored, Map<String, Long> position,
      long first) {
    if (op.ok()) {
      // (1) acked at exactly its seq_nums, unless trimmed since.
      for (int k = 0; k < op.bodies().size(); k++) {
        String body = op.bodies().get(k);
        long want = op.start() + k;
        if (want < first) {
          v.check("1 acked present at acked seq_num", !position.containsKey(body),
              stream + ": op " + op.id() + " acked '" + body + "' at trimmed " + want + ", found at " + position.get(body));
          continue;
        }
        v.check("1 acked present at acked seq_num", Long.valueOf(want).equals(position.get(body)),
            stream + ": op " + op.id() + " acked '" + body + "' at " + want + ", found at " + position.get(body));
      }
      v.check("1 acked present at acked seq_num", op.tail() >= op.ackEnd(),
          stream + ": op " + op.id() + " acked tail " + op.tail() + " before its end " + op.ackEnd());
      if (op.kind() == Op.Kind.APPEND_MATCH) {
        // (4) a conditional success is exactly at its match.
        v.check("4 conditional success at match", op.start() == op.match(),
            stream + ": op " + op.id() + " matched " + op.match() + " but landed at " + op.start());
      }
    } else if (op.outcome() == Op.Outcome.FAIL) {
      // (5) a definite failure had no effect.
      for (String body : op.bodies()) {
        v.check("5 definite failure had no effect", !position.containsKey(body),
            stream + ": op " + op.id() + " failed definitely (" + op.error() + ") but '" + body + "' is at "
                + position.get(body));
      }
    } else {
      // Indefinite: either all of the batch landed, contiguously, or none of it; a trim may have removed a
      // prefix of it, and then what is left starts at the first retained seq_num.
      List<Long> at = op.bodies().stream().map(position::get).toList();
      boolean none = at.stream().allMatch(Objects::isNull);
      int firstPresent = (int) at.stream().takeWhile(Objects::isNull).count();
      List<Long> rest = at.subList(firstPresent, at.size());
      boolean all = firstPresent == 0 && !none && rest.stream().noneMatch(Objects::isNull);
      boolean contiguous = !none && rest.stream().noneMatch(Objects::isNull)
          && java.util.stream.IntStream.range(0, rest.size()).allMatch(k -> rest.get(k) == rest.get(0) + k)
          && (firstPresent == 0 || rest.get(0) == first);
      v.check("1 batches land whole or not at all", none || contiguous,
          stream + ": indefinite op " + op.id() + " landed partly or scattered: " + at);
      if (all && op.kind() == Op.Kind.APPEND_MATCH) {
        v.check("4 conditional success at match", at.get(0) == op.match(),
            stream + ": indefinite op " + op.id() + " matched " + op.match() + " but landed at " + at.get(0));
      }
    }
  }

  /** (7) Real-time order, by one sweep over the ops sorted by invocation. */
  private void checkRealTime(Verdict v, String stream, List<Op> ops) {
    List<Op> acked = ops.stream().filter(o -> o.isAppend() && o.ok()).sorted(Comparator.comparingLong(Op::completeNs)).toList();
    List<Op> observers = ops.stream().filter(Op::ok).sorted(Comparator.comparingLong(Op::invokeNs)).toList();
    int next = 0;
    long maxStart = -1;
    long maxEnd = 0;
    Op maxStartOp = null;
    for (Op b : observers) {
      while (next < acked.size() && acked.get(next).completeNs() < b.invokeNs()) {
        Op a = acked.get(next++);
        if (a.start() > maxStart) {
          maxStart = a.start();
          maxStartOp = a;
        }
        maxEnd = Math.max(maxEnd, a.ackEnd());
      }
      if (b.isAppend()) {
        v.check("7 acked before invoked => smaller seq_num", b.start() > maxStart,
            stream + ": op " + b.id() + " landed at " + b.start() + " although op "
                + (maxStartOp == null ? "?" : maxStartOp.id()) + " was acked at " + maxStart + " before it began");
      } else if (b.kind() == Op.Kind.READ || b.kind() == Op.Kind.CHECK_TAIL) {
        v.check("7 read after ack sees it", b.tail() >= maxEnd,
            stream + ": op " + b.id() + " (" + b.kind() + ") reported tail " + b.tail() + " after an ack up to " + maxEnd);
      }
    }
  }

  /** (8) After Fence(gen-N) returned boundary f, every record at or after f presented gen-M, M >= N. */
  private void checkFences(Verdict v, String stream, List<Op> ops, List<String> stored, Map<String, Op> writer) {
    List<Op> fences = ops.stream().filter(o -> o.kind() == Op.Kind.FENCE && o.ok()).toList();
    if (fences.isEmpty()) {
      return;
    }
    for (Op fence : fences) {
      long gen = generation(fence.token());
      v.check("8 fence boundary within the stream", fence.start() <= stored.size(),
          stream + ": fence " + fence.token() + " boundary " + fence.start() + " beyond the final tail " + stored.size());
      for (long seq = Math.max(0, fence.start()); seq < stored.size(); seq++) {
        if (stored.get((int) seq) == null) {
          continue; // trimmed
        }
        Op w = writer.get(stored.get((int) seq));
        long presented = w == null ? -1 : generation(w.token());
        if (presented < gen) {
          v.anomaly("8 no older token after a fence", stream + ": '" + stored.get((int) seq) + "' at " + seq
              + " presented '" + (w == null ? "?" : w.token()) + "' after fence " + fence.token()
              + " (op " + fence.id() + ") returned boundary " + fence.start());
          break;
        }
      }
      v.checked("8 no older token after a fence");
    }
  }

  /** (9) Per process, the tails it observed of this stream never decrease. */
  private void checkMonotonic(Verdict v, String stream, List<Op> ops) {
    Map<String, Long> last = new HashMap<>();
    for (Op op : ops.stream().filter(o -> o.ok() && o.tail() >= 0).sorted(Comparator.comparingLong(Op::invokeNs)).toList()) {
      Long before = last.put(op.process(), op.tail());
      v.check("9 monotonic tails per process", before == null || op.tail() >= before,
          stream + ": " + op.process() + " saw tail " + op.tail() + " after " + before + " (op " + op.id() + ")");
    }
  }

  /** The N of a {@code gen-N} token; -1 for no token. */
  static long generation(String token) {
    if (token == null || token.isEmpty()) {
      return -1;
    }
    return Long.parseLong(token.substring(token.lastIndexOf('-') + 1));
  }

  private static int firstDifference(List<String> a, List<String> b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      if (!Objects.equals(a.get(i), b.get(i))) {
        return i;
      }
    }
    return n;
  }
}
