package io.nova.cli.io;

import io.nova.protocol.limits.Limits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Groups input records, in order, into batches of at most {@code recordsMax} records and
 * {@code bytesMax} metered bytes. A batch is cut when the next record would break either limit, so every
 * batch is non-empty and no record is split or reordered.
 *
 * <p>Not thread-safe. Holds at most one batch plus one record in memory.
 */
public final class Batcher {

  private final RecordSource source;
  private final int recordsMax;
  private final long bytesMax;
  private InputRecord pending;

  /** Batches with Nova's limits: {@value Limits#BATCH_RECORDS_MAX} records and 1 MiB. */
  public Batcher(RecordSource source) {
    this(source, Limits.BATCH_RECORDS_MAX, Limits.BATCH_METERED_BYTES_MAX);
  }

  public Batcher(RecordSource source, int recordsMax, long bytesMax) {
    if (recordsMax < 1 || bytesMax < 1) {
      throw new IllegalArgumentException("batch limits must be positive");
    }
    this.source = source;
    this.recordsMax = recordsMax;
    this.bytesMax = bytesMax;
  }

  /** The next batch, or {@code null} when the input is exhausted. */
  public List<InputRecord> next() throws IOException {
    List<InputRecord> batch = new ArrayList<>();
    long bytes = 0;
    while (batch.size() < recordsMax) {
      InputRecord record = pending != null ? pending : source.next();
      pending = null;
      if (record == null) {
        break;
      }
      if (!batch.isEmpty() && bytes + record.meteredBytes() > bytesMax) {
        pending = record;
        break;
      }
      batch.add(record);
      bytes += record.meteredBytes();
    }
    return batch.isEmpty() ? null : batch;
  }
}
