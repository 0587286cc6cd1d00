package io.nova.gateway.http;

import io.nova.protocol.limits.Limits;
import io.javalin.http.Context;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.Header;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The JSON request bodies of the HTTP API (snake_case fields, see nova-v1.json) and their translation
 * into the gRPC request messages. Only the HTTP-specific rules are checked here (required fields,
 * encodings, signs); the limits are checked by the data and control planes, like for gRPC.
 */
final class RequestBodies {

  private RequestBodies() {}

  /**
   * The request body's bytes with its {@code Content-Encoding} undone ({@link ContentEncoding}), at most
   * {@link HttpServer#REQUEST_BODY_BYTES_MAX} both as sent and decoded. Read here rather than with
   * Javalin's {@code bodyAsBytes()}, which logs a WARN for every oversized body: that is a client error,
   * answered 413 and logged at DEBUG like every other (docs/operations.md).
   *
   * @throws ApiError 413 {@code payload_too_large} when the body is larger; 415
   *     {@code unsupported_encoding} or 400 from {@link ContentEncoding#decode}
   */
  static byte[] read(Context ctx) {
    return ContentEncoding.decode(ctx, readRaw(ctx));
  }

  private static byte[] readRaw(Context ctx) {
    int max = HttpServer.REQUEST_BODY_BYTES_MAX;
    // Read up to the limit even when Content-Length already says too much: answering before the client
    // has sent its body makes it see a reset connection (broken pipe) instead of the 413.
    try {
      byte[] body = ctx.req().getInputStream().readNBytes(max + 1);
      if (body.length > max) {
        throw ErrorMapper.payloadTooLarge();
      }
      return body;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code POST /v1/basins}. */
  record CreateBasin(String basin) {
    String checkedBasin() {
      return required(basin, "basin");
    }
  }

  /** {@code POST /v1/basins/{basin}/streams}. */
  record CreateStream(String stream) {
    String checkedStream() {
      return required(stream, "stream");
    }
  }

  /** {@code PUT .../fence}: the token to install; {@code ""} clears. */
  record Fence(String fencingToken) {
    String checkedToken() {
      return required(fencingToken, "fencing_token");
    }
  }

  record HeaderBody(String name, String value) {}

  record RecordBody(Long timestamp, List<HeaderBody> headers, String body) {}

  /** {@code POST .../records}: one batch. */
  record Append(List<RecordBody> records, Long matchSeqNum, String fencingToken) {

    /** The batch as the data plane takes it, bodies and headers decoded with {@code encoding}. */
    AppendInput toInput(BodyEncoding encoding) {
      if (records == null) {
        throw ApiError.invalidArgument("records", "1.." + Limits.BATCH_RECORDS_MAX + " records",
            "records is missing; send {\"records\": [{\"body\": \"...\"}]}");
      }
      AppendInput.Builder input = AppendInput.newBuilder();
      for (int i = 0; i < records.size(); i++) {
        input.addRecords(toRecord(records.get(i), "records[" + i + "]", encoding));
      }
      if (matchSeqNum != null) {
        input.setMatchSeqNum(nonNegative(matchSeqNum, "match_seq_num"));
      }
      if (fencingToken != null) {
        input.setFencingToken(fencingToken);
      }
      return input.build();
    }

    private static AppendRecord toRecord(RecordBody r, String path, BodyEncoding encoding) {
      if (r == null) {
        throw ApiError.invalidArgument(path, "an object", path + " is null; send {\"body\": \"...\"}");
      }
      AppendRecord.Builder b = AppendRecord.newBuilder().setBody(encoding.decode(r.body(), path + ".body"));
      if (r.timestamp() != null) {
        b.setTimestamp(nonNegative(r.timestamp(), path + ".timestamp"));
      }
      List<HeaderBody> headers = r.headers() == null ? List.of() : r.headers();
      for (int j = 0; j < headers.size(); j++) {
        String hp = path + ".headers[" + j + "]";
        HeaderBody h = headers.get(j);
        if (h == null) {
          throw ApiError.invalidArgument(hp, "an object", hp + " is null; send {\"name\": ..., \"value\": ...}");
        }
        b.addHeaders(Header.newBuilder()
            .setName(encoding.decode(h.name(), hp + ".name"))
            .setValue(encoding.decode(h.value(), hp + ".value")));
      }
      return b.build();
    }
  }

  private static String required(String value, String field) {
    if (value == null) {
      throw ApiError.invalidArgument(field, "required", field + " is missing from the request body");
    }
    return value;
  }

  private static long nonNegative(long value, String field) {
    if (value < 0) {
      throw ApiError.invalidArgument(field, ">= 0", field + " is " + value + "; it must be 0 or more");
    }
    return value;
  }
}
