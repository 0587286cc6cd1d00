package io.nova.cli.io;

import io.nova.client.AppendRecord;
import io.nova.client.Header;
import io.nova.client.SequencedRecord;
import java.util.List;

/**
 * The metered size of a record, the unit in which Nova's batch and read limits are expressed:
 * {@code 8 + 2 * headers + sum(name and value lengths) + body length}.
 */
public final class Metering {

  /** The largest metered size of one record, and of one batch: 1 MiB. */
  public static final long RECORD_BYTES_MAX = 1024 * 1024;
  /** The largest metered size of one batch: 1 MiB. */
  public static final long BATCH_BYTES_MAX = 1024 * 1024;
  /** The most records in one batch. */
  public static final int BATCH_RECORDS_MAX = 1000;
  /** The fixed per-record overhead counted by metering. */
  public static final long RECORD_OVERHEAD_BYTES = 8;

  private Metering() {}

  public static long meteredBytes(List<Header> headers, byte[] body) {
    long size = RECORD_OVERHEAD_BYTES + 2L * headers.size() + body.length;
    for (Header h : headers) {
      size += h.name().length + h.value().length;
    }
    return size;
  }

  public static long meteredBytes(AppendRecord record) {
    return meteredBytes(record.headers() == null ? List.of() : record.headers(), record.body());
  }

  public static long meteredBytes(SequencedRecord record) {
    return meteredBytes(record.headers() == null ? List.of() : record.headers(), record.body());
  }
}
