package io.nova.statemachine.snapshot;

import io.nova.statemachine.store.AppliedIndex;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.io.file.PathUtils;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshots of one replica: RocksDB checkpoints of its store, one directory per snapshot named
 * {@code snapshot.<term>_<index>} (or {@code snapshot.<term>_<index>.<generation>} for a checkpoint retaken
 * at the same index, see {@link #retake}), in the state machine's snapshot area (Ratis' {@code sm} directory of
 * the group, so that Ratis' snapshot transfer ships them to a lagging follower under the same relative
 * names and, on that follower, publishes them into the same place).
 *
 * <p>Crash safety: a checkpoint is written under a {@code tmp-} name and renamed into place atomically,
 * so a directory named like a snapshot is complete; a snapshot directory is also only taken for one
 * when its RocksDB {@code CURRENT} file names a manifest that exists. Anything else in the area (a
 * half-written checkpoint left by a crash, a damaged directory) is ignored and removed at open.
 *
 * <p>Retention: the newest {@link #KEPT} snapshots; older ones are deleted after each new one. Deleting
 * a snapshot that a leader is still sending fails that transfer, and Ratis retries with the newest one.
 *
 * <p>Thread-safety: not thread-safe; the owning state machine serializes calls (see
 * {@code ReplayingStateMachine}). {@link #latest()} may be read from any thread.
 */
public final class CheckpointSnapshots {
  /** How many snapshots are kept. Two, so the previous one survives while the newest is being sent. */
  public static final int KEPT = 2;

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointSnapshots.class);
  private static final String PREFIX = "snapshot.";
  private static final Pattern NAME = Pattern.compile("snapshot\\.(\\d+)_(\\d+)(?:\\.(\\d+))?");
  /** Newest last: by index, then by generation (a retake at the same index is newer). */
  private static final Comparator<Snapshot> AGE =
      Comparator.comparingLong(Snapshot::index).thenComparingLong(Snapshot::generation);
  private static final String TMP_PREFIX = "tmp-";
  /** Files Ratis writes next to every received file (their MD5); not part of the checkpoint. */
  private static final String MD5_SUFFIX = ".md5";

  private final Path area;
  private volatile Optional<Snapshot> latest = Optional.empty();
  /** {@link #latest}'s files as listed when it became the newest; null when that listing failed. */
  private volatile Listed listed;
  /** Checkpoints written by this object, so a caller can tell whether one was taken after a point in time. */
  private volatile long checkpointsWritten;

  /**
   * One complete snapshot: its directory, the (term, index) of the last entry it holds, and its generation
   * (0, or how many times a checkpoint was retaken at that index).
   */
  record Snapshot(Path dir, long term, long index, long generation) {}

  /** A snapshot and its files as listed once. */
  private record Listed(Snapshot snapshot, SnapshotInfo info) {}

  /** Makes {@code newest} the newest snapshot, and lists its files now, while nothing else moves them. */
  private void becomeLatest(Optional<Snapshot> newest) {
    latest = newest;
    listed = newest.flatMap(n -> info(n).map(i -> new Listed(n, i))).orElse(null);
  }

  /**
   * Opens the snapshot area {@code area} (created if missing), removing leftovers of interrupted
   * checkpoints and damaged snapshot directories, and finds the newest complete snapshot.
   *
   * @throws UncheckedIOException if the area cannot be read or created
   */
  public CheckpointSnapshots(Path area) {
    this.area = area;
    rescan();
  }

  /**
   * Finds the newest complete snapshot again (after Ratis published a received one), removing anything
   * in the area that is not a complete snapshot.
   */
  public void rescan() {
    try {
      Files.createDirectories(area);
      List<Snapshot> found = new ArrayList<>();
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(area)) {
        for (Path entry : entries) {
          Optional<Snapshot> snapshot = parse(entry);
          if (snapshot.isPresent()) {
            found.add(snapshot.get());
          } else {
            LOG.warn("removing {}: not a complete snapshot (an interrupted checkpoint or a damaged copy)", entry);
            // PathUtils.delete (here and below): a file or a whole tree; a path that is gone is no error.
            PathUtils.delete(entry);
          }
        }
      }
      becomeLatest(found.stream().max(AGE));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the snapshot area " + area, e);
    }
  }

  /**
   * The newest complete snapshot, for Ratis: every file of the checkpoint, by absolute path. Empty when
   * there is none. When its directory cannot be listed now (Ratis moved the area aside to publish the next
   * snapshot it received, right after the one it just installed), its files as listed when it became the
   * newest: Ratis reads the term and index of the snapshot it installed at once, and an empty answer
   * there closes the replica (a wiped node's rejoin met this in the chaos suite, WIPE_RESTART).
   */
  public Optional<SnapshotInfo> latest() {
    Optional<Snapshot> seen = latest;
    if (seen.isEmpty()) {
      return Optional.empty();
    }
    Optional<SnapshotInfo> now = info(seen.get());
    if (now.isPresent()) {
      return now;
    }
    Listed known = listed;
    return known != null && known.snapshot().equals(seen.get()) ? Optional.of(known.info()) : Optional.empty();
  }

  /** The index of the newest complete snapshot; {@code -1} when there is none. */
  public long latestIndex() {
    return latest.map(Snapshot::index).orElse(-1L);
  }

  /** How many checkpoints {@link #take} and {@link #retake} have written since this object was made. */
  public long checkpointsWritten() {
    return checkpointsWritten;
  }

  /**
   * Takes a snapshot with {@code checkpoint}, which must write a consistent copy of the store into the
   * directory it is given (which does not exist) and return the applied index that copy holds; then
   * publishes it and deletes all but the newest {@link #KEPT}. Nothing is written when the store holds
   * nothing yet or nothing since the newest snapshot.
   *
   * @return the index of the newest snapshot after the call; {@code -1} when there is none
   * @throws UncheckedIOException if the checkpoint cannot be written or published
   */
  public long take(Function<Path, AppliedIndex> checkpoint, AppliedIndex storeApplied) {
    if (storeApplied.index() < 0 || storeApplied.index() <= latestIndex()) {
      return latestIndex();
    }
    return write(checkpoint, storeApplied);
  }

  /**
   * Takes a snapshot as {@link #take} does, and also when the store holds nothing since the newest one:
   * then the new checkpoint is the next generation at the same index, and replaces it as the newest. For a
   * store whose files changed without a new entry (a compaction of trimmed records): the newest snapshot
   * still links the files the compaction replaced, and no new entry may ever come to take a later one.
   * Nothing is written when the store holds nothing yet, or less than the newest snapshot.
   *
   * @return the index of the newest snapshot after the call; {@code -1} when there is none
   * @throws UncheckedIOException if the checkpoint cannot be written or published
   */
  public long retake(Function<Path, AppliedIndex> checkpoint, AppliedIndex storeApplied) {
    if (storeApplied.index() < 0 || storeApplied.index() < latestIndex()) {
      return latestIndex();
    }
    return write(checkpoint, storeApplied);
  }

  private long write(Function<Path, AppliedIndex> checkpoint, AppliedIndex storeApplied) {
    long startNanos = System.nanoTime();
    Path tmp = area.resolve(TMP_PREFIX + PREFIX + storeApplied.term() + "_" + storeApplied.index());
    try {
      PathUtils.delete(tmp);
      AppliedIndex held = checkpoint.apply(tmp);
      long generation = latest.filter(newest -> newest.index() == held.index()).map(newest -> newest.generation() + 1)
          .orElse(0L);
      Path dir = area.resolve(PREFIX + held.term() + "_" + held.index() + (generation == 0 ? "" : "." + generation));
      Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
      fsyncDirectory(area);
      becomeLatest(Optional.of(new Snapshot(dir, held.term(), held.index(), generation)));
      checkpointsWritten++;
      LOG.info("snapshot taken at index {} (term {}{}) in {} ms: {} bytes", held.index(), held.term(),
          generation == 0 ? "" : ", generation " + generation, (System.nanoTime() - startNanos) / 1_000_000,
          sizeOf(dir));
      deleteAllButNewest();
      return held.index();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write snapshot " + tmp, e);
    }
  }

  /**
   * Deletes every snapshot but the newest: after a snapshot taken to reclaim the space of trimmed
   * records, the one before it still links the store files that held them, and keeping it would keep
   * those bytes on disk until the next snapshot. A transfer of the deleted one in progress fails, and
   * Ratis retries with the newest (as when {@link #KEPT} newer ones were taken meanwhile).
   *
   * @throws UncheckedIOException if the area cannot be read
   */
  public void keepOnlyNewest() {
    try {
      deleteAllBut(1);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prune the snapshot area " + area, e);
    }
  }

  /**
   * Replaces the store in {@code storeDir} (which must be closed) with a copy of the newest snapshot:
   * staged next to it (SST files hard-linked, being immutable; the rest copied and fsynced), then the old
   * store is deleted and the staged one renamed into place. A crash at any step leaves either the old
   * store or none; either holds less than the snapshot, so the next open restores again.
   *
   * @throws IllegalStateException if there is no snapshot
   * @throws UncheckedIOException if the copy fails
   */
  public void restoreStore(Path storeDir) {
    Snapshot snapshot = latest.orElseThrow(() -> new IllegalStateException("no snapshot in " + area));
    Path staging = storeDir.resolveSibling(storeDir.getFileName() + ".restoring");
    try {
      PathUtils.delete(staging);
      Files.createDirectories(staging);
      for (Path file : files(snapshot.dir())) {
        Path target = staging.resolve(snapshot.dir().relativize(file).toString());
        Files.createDirectories(target.getParent());
        if (!file.getFileName().toString().endsWith(".sst") || !tryLink(target, file)) {
          Files.copy(file, target);
          fsyncFile(target);
        }
      }
      fsyncDirectory(staging);
      PathUtils.delete(storeDir);
      Files.move(staging, storeDir, StandardCopyOption.ATOMIC_MOVE);
      fsyncDirectory(storeDir.getParent());
      LOG.info("store {} restored from snapshot at index {} (term {})", storeDir, snapshot.index(),
          snapshot.term());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot restore store " + storeDir + " from " + snapshot.dir(), e);
    }
  }

  private void deleteAllButNewest() throws IOException {
    deleteAllBut(KEPT);
  }

  /** Deletes all complete snapshots but the newest {@code kept}. */
  private void deleteAllBut(int kept) throws IOException {
    List<Snapshot> all = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(area)) {
      for (Path entry : entries) {
        parse(entry).ifPresent(all::add);
      }
    }
    all.sort(AGE.reversed());
    for (Snapshot old : all.subList(Math.min(kept, all.size()), all.size())) {
      PathUtils.delete(old.dir());
    }
  }

  /** The snapshot {@code entry} holds, if it is a complete one. */
  private static Optional<Snapshot> parse(Path entry) throws IOException {
    Matcher m = NAME.matcher(entry.getFileName().toString());
    if (!m.matches() || !Files.isDirectory(entry)) {
      return Optional.empty();
    }
    Path current = entry.resolve("CURRENT");
    if (!Files.isRegularFile(current)) {
      return Optional.empty();
    }
    String manifest = new String(Files.readAllBytes(current), StandardCharsets.UTF_8).trim();
    if (manifest.isEmpty() || manifest.contains("/") || !Files.isRegularFile(entry.resolve(manifest))) {
      return Optional.empty();
    }
    return Optional.of(new Snapshot(entry, Long.parseLong(m.group(1)), Long.parseLong(m.group(2)),
        m.group(3) == null ? 0 : Long.parseLong(m.group(3))));
  }

  private static Optional<SnapshotInfo> info(Snapshot snapshot) {
    try {
      List<FileInfo> files = new ArrayList<>();
      for (Path file : files(snapshot.dir())) {
        // No digest: Ratis computes each file's MD5 while sending it, and the receiver checks it.
        files.add(new FileInfo(file.toAbsolutePath(), null));
      }
      return Optional.of(new FileListSnapshotInfo(files, snapshot.term(), snapshot.index()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list snapshot " + snapshot.dir(), e);
    }
  }

  /**
   * The checkpoint's files (not Ratis' {@code .md5} companions), in name order.
   *
   * @throws NoSuchFileException when the directory, or a file in it, went away during the listing: Ratis
   *     publishing a received snapshot moves the whole area aside, and a newer snapshot's retention deletes
   *     older ones
   */
  private static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().endsWith(MD5_SUFFIX))
          .sorted().toList();
    } catch (UncheckedIOException e) {
      // The walk reports what failed after it started this way; a vanished file is the expected case.
      throw e.getCause();
    }
  }

  private static boolean tryLink(Path link, Path existing) {
    try {
      Files.createLink(link, existing);
      return true;
    } catch (IOException | UnsupportedOperationException e) {
      return false; // another filesystem: copy instead
    }
  }

  private static long sizeOf(Path dir) throws IOException {
    long bytes = 0;
    for (Path file : files(dir)) {
      bytes += Files.size(file);
    }
    return bytes;
  }

  private static void fsyncFile(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
  }

  private static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Some filesystems refuse to fsync a directory; the rename is still atomic there.
      LOG.debug("cannot fsync directory {}", dir, e);
    }
  }
}
