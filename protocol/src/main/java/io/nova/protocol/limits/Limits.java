package io.nova.protocol.limits;

import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.errors.Errors;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Nova's size limits and the checks that enforce them; shared by the gateway (to fail fast) and the state
 * machines (which re-check before anything enters the log).
 *
 * <p>Record and batch sizes are metered bytes ({@link Metering}).
 *
 * <p>Every {@code *Error} method returns the first violation as an INVALID_ARGUMENT {@link ErrorDetail}
 * (field path, limit, a sentence saying what to do), or empty when the input is valid. Stateless and
 * thread-safe.
 */
public final class Limits {
  /** Largest metered size of one record, in bytes (1 MiB). */
  public static final int RECORD_METERED_BYTES_MAX = 1 << 20;
  /** Most records in one batch. */
  public static final int BATCH_RECORDS_MAX = 1000;
  /** Largest metered size of one batch, in bytes (1 MiB). */
  public static final int BATCH_METERED_BYTES_MAX = 1 << 20;
  /** Longest fencing token, in UTF-8 bytes. */
  public static final int FENCING_TOKEN_BYTES_MAX = 36;
  /** Default and maximum number of records one read returns. */
  public static final int READ_RECORDS_MAX = 1000;
  /** Default and maximum metered bytes one read returns (1 MiB). */
  public static final int READ_METERED_BYTES_MAX = 1 << 20;
  /** Most batches one append session may have in flight (sent, not yet answered). */
  public static final int SESSION_BATCHES_IN_FLIGHT_MAX = 1000;
  /** Default and maximum number of basins or streams one list call returns. */
  public static final int LIST_LIMIT_MAX = 1000;
  /** Longest a read query parks in a shard waiting for a record ({@code ReadQuery.wait_ms}), in ms. */
  public static final int READ_PARK_MS_MAX = 10_000;
  /** Longest a one-shot read waits for its first record ({@code ReadRequest.wait_secs}), in seconds. */
  public static final int READ_WAIT_SECS_MAX = 60;
  /** Shortest heartbeat interval a read session may ask for ({@code heartbeat_ms}), in ms. */
  public static final int READ_SESSION_HEARTBEAT_MS_MIN = 100;
  /** Longest heartbeat interval a read session may ask for, in ms: one shard park, so each idle read beats. */
  public static final int READ_SESSION_HEARTBEAT_MS_MAX = READ_PARK_MS_MAX;
  /**
   * Largest serialized log entry a state machine admits, in bytes (1.5 MiB). Metering undercounts protobuf
   * framing (a batch of many tiny headers serializes to several times its metered size), and Ratis refuses
   * oversized entries only after the assignment cursor has moved, so entries are bounded here, below the
   * 2 MiB appender buffer the cluster configures.
   */
  public static final int COMMAND_SERIALIZED_BYTES_MAX = 3 << 19;
  /** Exact length of an idempotent producer's id ({@code producer_id}), in bytes: 128 random bits, a UUID. */
  public static final int PRODUCER_ID_BYTES = 16;
  /**
   * How many of an idempotent producer's latest batches a stream remembers the acks of (5): a resend of
   * any of them is answered with its original ack. An idempotent Producer keeps at most this many
   * batches in flight, so every batch it may resend after a reconnect is still remembered. Kafka uses 5
   * for the same reason; more costs state-write bytes on every append for no gain at today's defaults.
   */
  public static final int PRODUCER_WINDOW_BATCHES = 5;
  /**
   * How many idempotent producers one stream remembers (32). When a new producer would exceed it, the
   * one whose newest batch landed earliest (lowest seq_num, i.e. least recently admitted) is forgotten:
   * the choice depends only on the log, so every replica evicts the same one. The windows are stored
   * inside the stream's state, which is rewritten on every append (about 200 bytes per producer), so the
   * bound keeps that write small while covering many concurrent writers; a forgotten producer that
   * resends gets a definite UNKNOWN_PRODUCER refusal, never a duplicate.
   */
  public static final int PRODUCERS_PER_STREAM_MAX = 32;

  private Limits() {}

  /** Checks that {@code token} is at most {@value #FENCING_TOKEN_BYTES_MAX} UTF-8 bytes (field {@code fencing_token}). */
  public static Optional<ErrorDetail> fencingTokenError(String token) {
    int bytes = token.getBytes(StandardCharsets.UTF_8).length;
    if (bytes <= FENCING_TOKEN_BYTES_MAX) {
      return Optional.empty();
    }
    return Optional.of(Errors.invalidArgument("fencing_token", "<= " + FENCING_TOKEN_BYTES_MAX + " UTF-8 bytes",
        "the fencing token (fencing_token) is " + bytes + " UTF-8 bytes; the limit is " + FENCING_TOKEN_BYTES_MAX
            + " bytes: use a shorter token"));
  }

  /**
   * What checking a batch found: its metered size, in bytes, when it is valid ({@code error} empty; 0
   * otherwise), or the first limit it breaks. Checking has to sum the records' metered sizes anyway, so a
   * caller that also counts them (the gateway's metrics) takes the sum from here instead of walking the
   * records again.
   */
  public record BatchMeasure(long meteredBytes, Optional<ErrorDetail> error) {
    static BatchMeasure invalid(ErrorDetail error) {
      return new BatchMeasure(0, Optional.of(error));
    }
  }

  /** Checks the records of {@code input} (see {@link #recordsError}) and its presented fencing token. */
  public static Optional<ErrorDetail> appendInputError(AppendInput input) {
    return measureAppendInput(input).error();
  }

  /** Checks {@code input} as {@link #appendInputError} does and measures its records in the same walk. */
  public static BatchMeasure measureAppendInput(AppendInput input) {
    BatchMeasure records = measureRecords(input.getRecordsList());
    if (records.error().isPresent()) {
      return records;
    }
    Optional<ErrorDetail> producer = input.hasProducerId() ? producerIdError(input.getProducerId().size())
        : Optional.empty();
    if (producer.isPresent()) {
      return BatchMeasure.invalid(producer.get());
    }
    if (!input.hasFencingToken()) {
      return records;
    }
    return fencingTokenError(input.getFencingToken()).map(BatchMeasure::invalid).orElse(records);
  }

  /** Checks that a {@code producer_id} of {@code bytes} bytes is exactly {@value #PRODUCER_ID_BYTES} bytes. */
  public static Optional<ErrorDetail> producerIdError(int bytes) {
    if (bytes == PRODUCER_ID_BYTES) {
      return Optional.empty();
    }
    return Optional.of(Errors.invalidArgument("producer_id", "exactly " + PRODUCER_ID_BYTES + " bytes",
        "the producer id (producer_id) is " + bytes + " bytes; it must be exactly " + PRODUCER_ID_BYTES
            + " random bytes (e.g. a UUID's): generate one per producer, or leave it unset for a plain append"));
  }

  /**
   * Checks one batch: 1 to {@value #BATCH_RECORDS_MAX} records (field {@code records}), each at most
   * {@value #RECORD_METERED_BYTES_MAX} metered bytes (field {@code records[i].body} when the body would
   * not fit even without headers, else {@code records[i]}), and at most {@value #BATCH_METERED_BYTES_MAX} metered bytes in all.
   */
  public static Optional<ErrorDetail> recordsError(List<AppendRecord> records) {
    return measureRecords(records).error();
  }

  /** Checks one batch as {@link #recordsError} does and measures it in the same walk. */
  public static BatchMeasure measureRecords(List<AppendRecord> records) {
    if (records.isEmpty() || records.size() > BATCH_RECORDS_MAX) {
      return BatchMeasure.invalid(Errors.invalidArgument("records", "1.." + BATCH_RECORDS_MAX + " records",
          "a batch must hold 1 to " + BATCH_RECORDS_MAX + " records but holds " + records.size()
              + ": split it or add a record"));
    }
    long batchBytes = 0;
    for (int i = 0; i < records.size(); i++) {
      AppendRecord record = records.get(i);
      long recordBytes = Metering.meteredBytes(record);
      if (recordBytes > RECORD_METERED_BYTES_MAX) {
        // Blame the body when it could not fit even without headers.
        String field = Metering.meteredBytes(0, 0, record.getBody().size()) > RECORD_METERED_BYTES_MAX
            ? "records[" + i + "].body" : "records[" + i + "]";
        return BatchMeasure.invalid(Errors.invalidArgument(field, "<= " + RECORD_METERED_BYTES_MAX + " metered bytes",
            field + " is " + recordBytes + " metered bytes; a record may be at most " + RECORD_METERED_BYTES_MAX
                + " metered bytes: split the payload across records"));
      }
      batchBytes += recordBytes;
    }
    if (batchBytes > BATCH_METERED_BYTES_MAX) {
      return BatchMeasure.invalid(Errors.invalidArgument("records", "<= " + BATCH_METERED_BYTES_MAX + " metered bytes",
          "the batch's records are " + batchBytes + " metered bytes; a batch may be at most " + BATCH_METERED_BYTES_MAX
              + " metered bytes: split it into smaller batches"));
    }
    return new BatchMeasure(batchBytes, Optional.empty());
  }

  /** Checks that a serialized log entry of {@code bytes} is at most {@value #COMMAND_SERIALIZED_BYTES_MAX}. */
  public static Optional<ErrorDetail> commandBytesError(int bytes) {
    if (bytes <= COMMAND_SERIALIZED_BYTES_MAX) {
      return Optional.empty();
    }
    return Optional.of(Errors.invalidArgument("records", "<= " + COMMAND_SERIALIZED_BYTES_MAX + " serialized bytes",
        "the batch serializes to " + bytes + " bytes; the limit is " + COMMAND_SERIALIZED_BYTES_MAX
            + " bytes (many small headers cost more than they meter): use fewer headers or smaller batches"));
  }
}
