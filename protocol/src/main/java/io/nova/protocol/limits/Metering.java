package io.nova.protocol.limits;

import com.google.protobuf.ByteString;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.Header;
import io.nova.proto.v1.SequencedRecord;
import java.util.List;

/**
 * The metered size of a record: the unit every batch, read and metrics limit of Nova is expressed in,
 * defined once here for the server, the SDK and the CLI.
 *
 * <p>The formula follows S2: {@code 8 + 2 * headerCount + sum(len(name) + len(value)) + len(body)} bytes.
 * The 8 stands for the seq_num and timestamp every record carries, the 2 per header for its framing. A
 * batch's metered size is the sum over its records. Protobuf framing is not counted, which is why
 * {@link Limits#COMMAND_SERIALIZED_BYTES_MAX} bounds a log entry separately. Stateless and thread-safe.
 */
public final class Metering {
  /** Bytes every record counts besides its headers and body (its seq_num and timestamp). */
  public static final int RECORD_OVERHEAD_BYTES = 8;
  /** Bytes every header counts besides its name and value. */
  public static final int HEADER_OVERHEAD_BYTES = 2;

  /**
   * How a record's metered size is counted, in words, for messages that explain a limit:
   * {@value}.
   */
  public static final String FORMULA =
      "8 + 2 per header + the bytes of every header name and value + the body's bytes";

  private Metering() {}

  /**
   * A record's metered size with its parts, for messages: e.g. {@code 1048590 metered bytes (8 + 2 x 1
   * header + 6 header bytes + 1048574 body bytes)}; without headers {@code 1048577 metered bytes (8 +
   * 1048569 body bytes)}.
   *
   * @throws IllegalArgumentException if any argument is negative
   */
  public static String breakdown(int headerCount, long headerNameAndValueBytes, long bodyBytes) {
    long total = meteredBytes(headerCount, headerNameAndValueBytes, bodyBytes);
    String headers = headerCount == 0 ? ""
        : " + " + HEADER_OVERHEAD_BYTES + " x " + headerCount + (headerCount == 1 ? " header" : " headers")
            + " + " + headerNameAndValueBytes + " header bytes";
    return total + " metered bytes (" + RECORD_OVERHEAD_BYTES + headers + " + " + bodyBytes + " body bytes)";
  }

  /**
   * The metered size of a record, in bytes.
   *
   * @param headerCount how many headers the record has; {@code >= 0}
   * @param headerNameAndValueBytes the lengths of every header name and value, summed; {@code >= 0}
   * @param bodyBytes the body's length; {@code >= 0}
   * @throws IllegalArgumentException if any argument is negative
   */
  public static long meteredBytes(int headerCount, long headerNameAndValueBytes, long bodyBytes) {
    if (headerCount < 0 || headerNameAndValueBytes < 0 || bodyBytes < 0) {
      throw new IllegalArgumentException("metered sizes are built from counts and lengths >= 0, got headerCount="
          + headerCount + ", headerNameAndValueBytes=" + headerNameAndValueBytes + ", bodyBytes=" + bodyBytes);
    }
    return RECORD_OVERHEAD_BYTES + (long) HEADER_OVERHEAD_BYTES * headerCount + headerNameAndValueBytes + bodyBytes;
  }

  /** The metered size of a record with these wire headers and body, in bytes. */
  public static long meteredBytes(List<Header> headers, ByteString body) {
    long headerBytes = 0;
    for (Header header : headers) {
      headerBytes += header.getName().size() + header.getValue().size();
    }
    return meteredBytes(headers.size(), headerBytes, body.size());
  }

  /** The metered size of a record as a writer submits it, in bytes. */
  public static long meteredBytes(AppendRecord record) {
    return meteredBytes(record.getHeadersList(), record.getBody());
  }

  /** The metered size of a committed record, in bytes (its seq_num and timestamp are the fixed 8). */
  public static long meteredBytes(SequencedRecord record) {
    return meteredBytes(record.getHeadersList(), record.getBody());
  }
}
