package io.nova.statemachine.store;

import io.nova.proto.internal.Placement;
import io.nova.proto.internal.StoredToken;
import io.nova.proto.v1.BasinInfo;
import io.nova.proto.v1.StreamInfo;
import io.nova.statemachine.meta.MetaChange;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The RocksDB store of one meta-group replica: basins, streams and the applied index.
 *
 * <p>Key layout: {@code 0x00} → applied (term, index); {@code 'b' basin} → {@code nova.v1.BasinInfo};
 * {@code 't' basin '/' stream} → {@code nova.v1.StreamInfo} ({@code /} cannot occur in a basin name, so
 * keys of different basins never interleave); {@code 'k' id} → {@code StoredToken} (an access token: its public
 * part and the hash of its secret, never the secret); {@code 'p'} → {@code Placement} (the node registry and group
 * placement, ADR 0028; absent in a store written before it). Per-shard stream counts are not stored: they are derived
 * from the streams at load, so they can never disagree with them.
 *
 * <p>Thread-safety: one writer (the apply thread); reads happen only at load. See {@link RocksStore} for
 * durability.
 */
public final class MetaStore extends RocksStore {
  private static final byte BASIN_PREFIX = 'b';
  private static final byte STREAM_PREFIX = 't';
  private static final byte TOKEN_PREFIX = 'k';
  /** The one key of the placement; no other key is a single byte 'p' (every other key has a name). */
  private static final byte[] PLACEMENT_KEY = {'p'};

  /** Opens (creating if missing) the store in {@code dir}. */
  public MetaStore(Path dir) {
    super(dir);
  }

  /** Every basin, in name order. */
  public List<BasinInfo> loadBasins() {
    List<BasinInfo> basins = new ArrayList<>();
    scanPrefix(new byte[] {BASIN_PREFIX}, (key, value) -> basins.add(ShardStore.parse(value, BasinInfo.parser())));
    return basins;
  }

  /** Every stream, in (basin, name) order. */
  public List<StreamInfo> loadStreams() {
    List<StreamInfo> streams = new ArrayList<>();
    scanPrefix(new byte[] {STREAM_PREFIX},
        (key, value) -> streams.add(ShardStore.parse(value, StreamInfo.parser())));
    return streams;
  }

  /** Every access token, in id order. */
  public List<StoredToken> loadTokens() {
    List<StoredToken> tokens = new ArrayList<>();
    scanPrefix(new byte[] {TOKEN_PREFIX}, (key, value) -> tokens.add(ShardStore.parse(value, StoredToken.parser())));
    return tokens;
  }

  /** The stored placement, absent in a store written before ADR 0028 until it is seeded. */
  public Optional<Placement> loadPlacement() {
    List<Placement> found = new ArrayList<>(1);
    scanPrefix(PLACEMENT_KEY, (key, value) -> {
      if (key.length == PLACEMENT_KEY.length) {
        found.add(ShardStore.parse(value, Placement.parser()));
      }
    });
    return found.stream().findFirst();
  }

  /** Writes {@code change} atomically with {@code applied}, which must be above the current applied index. */
  public void applyBatch(AppliedIndex applied, MetaChange change) {
    try (WriteBatch batch = new WriteBatch()) {
      if (change instanceof MetaChange.BasinPut put) {
        batch.put(basinKey(put.basin().getName()), put.basin().toByteArray());
      } else if (change instanceof MetaChange.BasinDeleted deleted) {
        batch.delete(basinKey(deleted.basin()));
      } else if (change instanceof MetaChange.StreamPut put) {
        batch.put(streamKey(put.stream()), put.stream().toByteArray());
      } else if (change instanceof MetaChange.StreamDeleted deleted) {
        batch.delete(streamKey(deleted.stream()));
      } else if (change instanceof MetaChange.TokenPut put) {
        batch.put(key(TOKEN_PREFIX, put.token().getInfo().getId()), put.token().toByteArray());
      } else if (change instanceof MetaChange.PlacementPut put) {
        batch.put(PLACEMENT_KEY, put.placement().toByteArray());
      }
      commit(batch, applied);
    } catch (RocksDBException e) {
      throw storageFailure("build batch at " + applied, e);
    }
  }

  private static byte[] basinKey(String basin) {
    return key(BASIN_PREFIX, basin);
  }

  private static byte[] streamKey(StreamInfo stream) {
    return key(STREAM_PREFIX, stream.getBasin() + "/" + stream.getName());
  }

  private static byte[] key(byte prefix, String name) {
    byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
    byte[] key = new byte[nameBytes.length + 1];
    key[0] = prefix;
    System.arraycopy(nameBytes, 0, key, 1, nameBytes.length);
    return key;
  }
}
