package io.nova.statemachine.stream;

import io.nova.proto.v1.StreamConfig;
import io.nova.proto.v1.StreamPosition;
import java.util.Objects;

/**
 * The state of one stream inside a shard: an immutable mirror of {@code io.nova.proto.internal.StreamState}.
 *
 * <p>Invariant: {@code nextSeqNum >= 0} and {@code lastTimestampMs >= 0} (both are u64 on the wire and never
 * exceed {@link Long#MAX_VALUE} in practice); {@code 0 <= firstSeqNum <= nextSeqNum}; {@code fencingToken} is
 * never null, {@code ""} meaning none.
 *
 * @param streamId the cluster-unique stream id (the meta group's log index that created it)
 * @param basin the basin name
 * @param stream the stream name
 * @param nextSeqNum the seq_num the next record receives (the tail)
 * @param lastTimestampMs the timestamp of the last record in ms since the epoch, 0 when empty
 * @param fencingToken the installed fencing token, {@code ""} when none
 * @param createdAtMs creation time in ms since the epoch
 * @param deleted whether the stream was deleted (its id is never reused)
 * @param producers what the stream remembers of its idempotent producers (persisted with the rest, so it
 *     is in every snapshot); at the cursor it also holds admitted batches not yet applied, without timestamps
 * @param firstSeqNum the first retained seq_num: records below it were trimmed and are never served again
 *     (0 until the first trim); moved only by trim entries at apply, so every replica agrees on it
 * @param config the stream's configuration as the meta group last pushed it (normalized; retention limits)
 * @param configVersion the version of {@code config} (a meta log index); a push applies only above it
 * @param appendedBytes the metered bytes of every record ever appended to the stream
 * @param trimmedBytes the metered bytes of the trimmed records (those below {@code firstSeqNum}); the
 *     stream retains {@code appendedBytes - trimmedBytes}
 * @param lastAppendMs the arrival time (leader's clock, ms since the epoch) of the last appended batch, 0 when
 *     none; delete-on-empty ages the stream from it (from {@code createdAtMs} when 0)
 */
public record StreamState(long streamId, String basin, String stream, long nextSeqNum, long lastTimestampMs,
    String fencingToken, long createdAtMs, boolean deleted, ProducerWindows producers, long firstSeqNum,
    StreamConfig config, long configVersion, long appendedBytes, long trimmedBytes, long lastAppendMs) {

  public StreamState {
    Objects.requireNonNull(basin, "basin");
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(fencingToken, "fencingToken");
    Objects.requireNonNull(producers, "producers");
    Objects.requireNonNull(config, "config");
    if (firstSeqNum < 0 || firstSeqNum > nextSeqNum) {
      throw new IllegalArgumentException("stream " + streamId + ": first retained seq_num " + firstSeqNum
          + " outside [0, tail " + nextSeqNum + "]");
    }
    if (trimmedBytes < 0 || trimmedBytes > appendedBytes) {
      throw new IllegalArgumentException("stream " + streamId + ": trimmed bytes " + trimmedBytes
          + " outside [0, appended bytes " + appendedBytes + "]");
    }
  }

  /** A state that was never appended to since it tracked append times. */
  public StreamState(long streamId, String basin, String stream, long nextSeqNum, long lastTimestampMs,
      String fencingToken, long createdAtMs, boolean deleted, ProducerWindows producers, long firstSeqNum,
      StreamConfig config, long configVersion, long appendedBytes, long trimmedBytes) {
    this(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted, producers,
        firstSeqNum, config, configVersion, appendedBytes, trimmedBytes, 0);
  }

  /** A state without byte counts. */
  public StreamState(long streamId, String basin, String stream, long nextSeqNum, long lastTimestampMs,
      String fencingToken, long createdAtMs, boolean deleted, ProducerWindows producers, long firstSeqNum,
      StreamConfig config, long configVersion) {
    this(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted, producers,
        firstSeqNum, config, configVersion, 0, 0);
  }

  /** A state without a configuration (no retention limits). */
  public StreamState(long streamId, String basin, String stream, long nextSeqNum, long lastTimestampMs,
      String fencingToken, long createdAtMs, boolean deleted, ProducerWindows producers, long firstSeqNum) {
    this(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted, producers,
        firstSeqNum, StreamConfig.getDefaultInstance(), 0);
  }

  /** A state that has never been trimmed. */
  public StreamState(long streamId, String basin, String stream, long nextSeqNum, long lastTimestampMs,
      String fencingToken, long createdAtMs, boolean deleted, ProducerWindows producers) {
    this(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted, producers, 0);
  }

  /** A state that remembers no idempotent producers. */
  public StreamState(long streamId, String basin, String stream, long nextSeqNum, long lastTimestampMs,
      String fencingToken, long createdAtMs, boolean deleted) {
    this(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted,
        ProducerWindows.EMPTY);
  }

  /** A new, empty, live stream. */
  public static StreamState created(long streamId, String basin, String stream, long createdAtMs) {
    return new StreamState(streamId, basin, stream, 0, 0, "", createdAtMs, false);
  }

  /** The tail: {seq_num the next record receives, timestamp of the last record}. */
  public StreamPosition tail() {
    return StreamPosition.newBuilder().setSeqNum(nextSeqNum).setTimestamp(lastTimestampMs).build();
  }

  /** This state with the tail moved to {@code nextSeqNum} / {@code lastTimestampMs}. */
  public StreamState withTail(long nextSeqNum, long lastTimestampMs) {
    return new StreamState(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted,
        producers, firstSeqNum, config, configVersion, appendedBytes, trimmedBytes, lastAppendMs);
  }

  /** This state with {@code windows} as its idempotent producers. */
  public StreamState withProducers(ProducerWindows windows) {
    return new StreamState(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted,
        windows, firstSeqNum, config, configVersion, appendedBytes, trimmedBytes, lastAppendMs);
  }

  /** This state with {@code token} installed ({@code ""} clears). */
  public StreamState withFencingToken(String token) {
    return new StreamState(streamId, basin, stream, nextSeqNum, lastTimestampMs, token, createdAtMs, deleted,
        producers, firstSeqNum, config, configVersion, appendedBytes, trimmedBytes, lastAppendMs);
  }

  /** This state marked deleted. */
  public StreamState asDeleted() {
    return new StreamState(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, true,
        producers, firstSeqNum, config, configVersion, appendedBytes, trimmedBytes, lastAppendMs);
  }

  /** This state with {@code firstSeqNum} as its first retained seq_num. */
  public StreamState withFirstSeqNum(long firstSeqNum) {
    return new StreamState(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted,
        producers, firstSeqNum, config, configVersion, appendedBytes, trimmedBytes, lastAppendMs);
  }

  /** This state with {@code config} (normalized) at {@code configVersion}. */
  public StreamState withConfig(StreamConfig config, long configVersion) {
    return new StreamState(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted,
        producers, firstSeqNum, config, configVersion, appendedBytes, trimmedBytes, lastAppendMs);
  }

  /** This state with {@code appendedBytes} and {@code trimmedBytes} as its byte counts. */
  public StreamState withBytes(long appendedBytes, long trimmedBytes) {
    return new StreamState(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted,
        producers, firstSeqNum, config, configVersion, appendedBytes, trimmedBytes, lastAppendMs);
  }

  /** This state with {@code lastAppendMs} as the arrival time of its last appended batch. */
  public StreamState withLastAppendMs(long lastAppendMs) {
    return new StreamState(streamId, basin, stream, nextSeqNum, lastTimestampMs, fencingToken, createdAtMs, deleted,
        producers, firstSeqNum, config, configVersion, appendedBytes, trimmedBytes, lastAppendMs);
  }

  /** When the stream was last written: its last append's arrival, or its creation when never appended to. */
  public long lastActivityMs() {
    return lastAppendMs != 0 ? lastAppendMs : createdAtMs;
  }

  /** The metered bytes of the records the stream retains. */
  public long retainedBytes() {
    return appendedBytes - trimmedBytes;
  }

  /** How many records the stream retains. */
  public long retainedRecords() {
    return nextSeqNum - firstSeqNum;
  }

  /** The name used in NOT_FOUND errors: {@code basin/stream}, or {@code id N} when the names are unknown. */
  public static String displayName(StreamState state, long streamId) {
    return state == null || state.basin.isEmpty() ? "id " + streamId : state.basin + "/" + state.stream;
  }

  /** The protobuf form. */
  public io.nova.proto.internal.StreamState toProto() {
    return io.nova.proto.internal.StreamState.newBuilder()
        .setStreamId(streamId).setBasin(basin).setStream(stream)
        .setNextSeqNum(nextSeqNum).setLastTimestamp(lastTimestampMs)
        .setFencingToken(fencingToken).setCreatedAtMs(createdAtMs).setDeleted(deleted)
        .addAllProducers(producers.toProto())
        .setFirstSeqNum(firstSeqNum)
        .setConfig(config).setConfigVersion(configVersion)
        .setAppendedBytes(appendedBytes).setTrimmedBytes(trimmedBytes)
        .setLastAppendMs(lastAppendMs)
        .build();
  }

  /** Reads the protobuf form. */
  public static StreamState fromProto(io.nova.proto.internal.StreamState proto) {
    return new StreamState(proto.getStreamId(), proto.getBasin(), proto.getStream(), proto.getNextSeqNum(),
        proto.getLastTimestamp(), proto.getFencingToken(), proto.getCreatedAtMs(), proto.getDeleted(),
        ProducerWindows.fromProto(proto.getProducersList()), proto.getFirstSeqNum(), proto.getConfig(),
        proto.getConfigVersion(), proto.getAppendedBytes(), proto.getTrimmedBytes(), proto.getLastAppendMs());
  }
}
