package io.nova.cluster.placement;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nova.proto.internal.Placement;
import io.nova.statemachine.meta.PlacementRules;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last placement a node read from the meta group, kept in its data folder ({@value #FILE_NAME}) so
 * that a restart opens the groups that placement puts here, even before the meta group answers and even
 * when they are not in the configuration's seed layout (shard groups added later). The meta group stays
 * the authority: the cache is only the starting point, replaced by the first placement read after start.
 *
 * <p>Written atomically (a temporary file, fsynced, renamed over the old one); an unreadable or invalid
 * file is ignored with a warning (the node starts from its configuration's layout, as before ADR 0028).
 * Thread-safe for one writer.
 */
public final class PlacementCache {
  /** The cache's file name in the data folder. */
  public static final String FILE_NAME = "placement.pb";
  private static final Logger LOG = LoggerFactory.getLogger(PlacementCache.class);

  private final Path file;

  /** The cache of the node whose data folder is {@code dataDir}. */
  public PlacementCache(Path dataDir) {
    this.file = dataDir.resolve(FILE_NAME);
  }

  /** The cached placement; empty when there is none, or it cannot be read or breaks {@link PlacementRules}. */
  public Optional<Placement> read() {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      Placement placement = Placement.parseFrom(Files.readAllBytes(file));
      Optional<String> invalid = PlacementRules.error(placement).map(e -> e.getMessage());
      if (invalid.isPresent()) {
        LOG.warn("ignoring the cached placement {}: {}", file, invalid.get());
        return Optional.empty();
      }
      return Optional.of(placement);
    } catch (InvalidProtocolBufferException e) {
      LOG.warn("ignoring the cached placement {}: not a placement ({})", file, e.getMessage());
      return Optional.empty();
    } catch (IOException e) {
      LOG.warn("ignoring the cached placement {}: {}", file, e.toString());
      return Optional.empty();
    }
  }

  /**
   * Replaces the cached placement with {@code placement}, atomically and durably.
   *
   * @throws IOException when the file cannot be written (the old one is then kept)
   */
  public void write(Placement placement) throws IOException {
    Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
    Files.write(tmp, placement.toByteArray());
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException e) {
      // Some file systems refuse to open a directory; the rename is then as durable as they make it.
      LOG.debug("could not fsync {}: {}", file.getParent(), e.toString());
    }
  }
}
