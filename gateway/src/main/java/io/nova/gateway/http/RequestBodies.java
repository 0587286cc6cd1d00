package io.nova.gateway.http;

import io.nova.protocol.limits.Limits;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.google.protobuf.ByteString;
import io.javalin.http.Context;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.Header;
import io.nova.proto.v1.StreamConfig;
import io.nova.protocol.errors.Quoting;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;

/**
 * The JSON request bodies of the HTTP API (snake_case fields, see nova-v1.json) and their translation
 * into the gRPC request messages. Only the HTTP-specific rules are checked here (required fields,
 * encodings, signs); the limits are checked by the data and control planes, like for gRPC.
 */
public final class RequestBodies {

  private RequestBodies() {}

  /**
   * The request body's bytes with its {@code Content-Encoding} undone ({@link ContentEncoding}), at most
   * {@code max} ({@code NodeTuning.httpRequestBodyBytesMax}) both as sent and decoded. Read here rather
   * than with Javalin's {@code bodyAsBytes()}, which logs a WARN for every oversized body: that is a
   * client error, answered 413 and logged at DEBUG like every other (docs/operations.md).
   *
   * @throws ApiError 413 {@code payload_too_large} when the body is larger; 415
   *     {@code unsupported_encoding} or 400 from {@link ContentEncoding#decode}
   */
  public static byte[] read(Context ctx, int max) {
    return ContentEncoding.decode(ctx, readRaw(ctx, max), max);
  }

  private static byte[] readRaw(Context ctx, int max) {
    // Read up to the limit even when Content-Length already says too much: answering before the client
    // has sent its body makes it see a reset connection (broken pipe) instead of the 413.
    try {
      byte[] body = ctx.req().getInputStream().readNBytes(max + 1);
      if (body.length > max) {
        throw ErrorMapper.payloadTooLarge(max);
      }
      return body;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code POST /v1/basins}, with the optional configuration its streams get by default. */
  record CreateBasin(String basin, Config defaultStreamConfig) {
    String checkedBasin() {
      return required(basin, "basin");
    }

    StreamConfig checkedDefaults() {
      return defaultStreamConfig == null ? StreamConfig.getDefaultInstance()
          : defaultStreamConfig.toProto("default_stream_config.");
    }
  }

  /** {@code POST /v1/cluster/nodes}: the node to register (ADR 0028). */
  record AddNode(String nodeId, String raftAddress, String apiAddress, String httpAddress) {
    io.nova.proto.v1.AddNodeRequest toProto() {
      return io.nova.proto.v1.AddNodeRequest.newBuilder().setNodeId(required(nodeId, "node_id"))
          .setRaftAddress(required(raftAddress, "raft_address")).setApiAddress(required(apiAddress, "api_address"))
          .setHttpAddress(required(httpAddress, "http_address")).build();
    }
  }

  /** {@code POST /v1/cluster/moves}: move {@code group}'s replica from node {@code from} to node {@code to}. */
  record MoveReplica(String group, String from, String to) {
    io.nova.proto.v1.MoveReplicaRequest toProto() {
      return io.nova.proto.v1.MoveReplicaRequest.newBuilder().setGroup(required(group, "group"))
          .setFromNode(required(from, "from")).setToNode(required(to, "to")).build();
    }
  }

  /** {@code POST /v1/cluster/nodes/{node_id}/replace}: the registered node that takes the lost one's replicas. */
  record ReplaceNode(String newNodeId) {
    io.nova.proto.v1.ReplaceNodeRequest toProto(String oldNodeId) {
      return io.nova.proto.v1.ReplaceNodeRequest.newBuilder().setOldNodeId(oldNodeId)
          .setNewNodeId(required(newNodeId, "new_node_id")).build();
    }
  }

  /**
   * {@code POST /v1/cluster/shards}: how many shard groups to add ({@code count}, required, 1 to 64) and,
   * optionally, how many the cluster must hold now ({@code expected_shard_count}, 0 or more).
   */
  record AddShards(Long count, Long expectedShardCount) {
    io.nova.proto.v1.AddShardsRequest toProto() {
      if (count == null) {
        throw ApiError.invalidArgument("count", "required", "count is missing from the request body; send "
            + "{\"count\": N} to add N shard groups");
      }
      io.nova.statemachine.meta.ShardAddition.countError(count).ifPresent(e -> {
        throw ApiError.invalidArgument("count", "1.." + io.nova.statemachine.meta.ShardAddition.COUNT_MAX,
            e.getMessage());
      });
      var request = io.nova.proto.v1.AddShardsRequest.newBuilder().setCount(count.intValue());
      if (expectedShardCount != null) {
        if (expectedShardCount < 0 || expectedShardCount > Integer.MAX_VALUE) {
          throw ApiError.invalidArgument("expected_shard_count", "0.." + Integer.MAX_VALUE,
              "expected_shard_count is " + expectedShardCount + "; send the shard count cluster status shows");
        }
        request.setExpectedShardCount(expectedShardCount.intValue());
      }
      return request.build();
    }
  }

  /** {@code POST /v1/basins/{basin}/streams}, with an optional configuration over the basin's defaults. */
  record CreateStream(String stream, Config config) {
    String checkedStream() {
      return required(stream, "stream");
    }

    StreamConfig checkedConfig() {
      return config == null ? StreamConfig.getDefaultInstance() : config.toProto("config.");
    }
  }

  /**
   * A stream configuration ({@code PATCH .../config}, and inside the creates): each field given replaces the
   * stored one (0 clears that limit); {@code retention_infinite: true} clears every retention limit (not
   * {@code delete_on_empty_min_age_ms}). Limits and contradictions are checked by the control plane, like for
   * gRPC; only signs are checked here.
   */
  record Config(Long retentionAgeMs, Long retentionBytes, Long retentionRecords, Boolean retentionInfinite,
      Long deleteOnEmptyMinAgeMs) {
    StreamConfig toProto(String prefix) {
      StreamConfig.Builder out = StreamConfig.newBuilder();
      if (retentionAgeMs != null) {
        out.setRetentionAgeMs(notNegative(prefix + "retention_age_ms", retentionAgeMs));
      }
      if (retentionBytes != null) {
        out.setRetentionBytes(notNegative(prefix + "retention_bytes", retentionBytes));
      }
      if (retentionRecords != null) {
        out.setRetentionRecords(notNegative(prefix + "retention_records", retentionRecords));
      }
      if (retentionInfinite != null) {
        out.setRetentionInfinite(retentionInfinite);
      }
      if (deleteOnEmptyMinAgeMs != null) {
        out.setDeleteOnEmptyMinAgeMs(notNegative(prefix + "delete_on_empty_min_age_ms", deleteOnEmptyMinAgeMs));
      }
      return out.build();
    }

    private static long notNegative(String field, long value) {
      if (value < 0) {
        throw ApiError.invalidArgument(field, ">= 0", field + " is " + value + "; it must be 0 (off) or more");
      }
      return value;
    }
  }

  /** {@code PUT .../fence}: the token to install; {@code ""} clears. */
  record Fence(String fencingToken) {
    String checkedToken() {
      return required(fencingToken, "fencing_token");
    }
  }

  /**
   * {@code POST .../trim}: the new first retained seq_num ({@code seq_num}, required, 0 or more) and an
   * optional {@code fencing_token} presented as by an append.
   */
  record Trim(Long seqNum, String fencingToken) {
    long checkedSeqNum() {
      if (seqNum == null) {
        throw ApiError.invalidArgument("seq_num", "required", "seq_num is missing from the request body; send "
            + "{\"seq_num\": N} to trim every record below N");
      }
      if (seqNum < 0) {
        throw ApiError.invalidArgument("seq_num", ">= 0", "seq_num is " + seqNum + "; it must be 0 or more");
      }
      return seqNum;
    }
  }

  /** One header of an append: a {@code [name, value]} pair or a {@code {name, value}} object ({@link HeaderJson}). */
  @JsonDeserialize(using = HeaderJson.class)
  record HeaderBody(String name, String value, boolean pair) {

    /** The path of the name ({@code [0]} or {@code .name}) under the header's own path. */
    String namePath(String header) {
      return header + (pair ? "[0]" : ".name");
    }

    /** The path of the value ({@code [1]} or {@code .value}) under the header's own path. */
    String valuePath(String header) {
      return header + (pair ? "[1]" : ".value");
    }
  }

  /**
   * One record of an append. {@code body} and {@code headers} are in the request's {@link BodyEncoding};
   * {@code body_base64} and {@code headers_base64} are base64 whatever it is (the CLI's JSON record shape),
   * each instead of its plain twin, never beside it.
   */
  record RecordBody(Long timestamp, List<HeaderBody> headers, String body, String bodyBase64,
      List<HeaderBody> headersBase64) {}

  /**
   * {@code POST .../records}: one batch. {@code producer_id} (a UUID in its 36-character text form) with
   * {@code producer_batch_seq} makes it an idempotent append (docs/http-api.md).
   */
  record Append(List<RecordBody> records, Long matchSeqNum, String fencingToken, String producerId,
      Long producerBatchSeq) {

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
      if (producerId != null) {
        input.setProducerId(producerIdBytes(producerId));
        input.setProducerBatchSeq(nonNegative(producerBatchSeq == null ? 0 : producerBatchSeq, "producer_batch_seq"));
      } else if (producerBatchSeq != null) {
        throw ApiError.invalidArgument("producer_batch_seq", "only with producer_id",
            "producer_batch_seq is set without producer_id: send both for an idempotent append, or neither");
      }
      return input.build();
    }

    private static ByteString producerIdBytes(String text) {
      UUID id;
      try {
        // UUID.fromString accepts short groups ("1-1-1-1-1"); only the canonical 36-character form is taken.
        id = text.length() == 36 ? UUID.fromString(text) : null;
      } catch (IllegalArgumentException e) {
        id = null;
      }
      if (id == null) {
        throw ApiError.invalidArgument("producer_id", "a UUID (36 characters)", "producer_id "
            + Quoting.quoted(text) + " is not a UUID such as 3f2c1e9a-6b7d-4e2f-9a1b-0c8d7e6f5a4b: generate a"
            + " random one per producer");
      }
      return ByteString.copyFrom(ByteBuffer.allocate(16).putLong(id.getMostSignificantBits())
          .putLong(id.getLeastSignificantBits()).array());
    }

    private static AppendRecord toRecord(RecordBody r, String path, BodyEncoding encoding) {
      if (r == null) {
        throw ApiError.invalidArgument(path, "an object", path + " is null; send {\"body\": \"...\"}");
      }
      AppendRecord.Builder b = AppendRecord.newBuilder().setBody(body(r, path, encoding));
      if (r.timestamp() != null) {
        b.setTimestamp(nonNegative(r.timestamp(), path + ".timestamp"));
      }
      onlyOne(r.headers(), r.headersBase64(), path + ".headers");
      boolean base64 = r.headersBase64() != null;
      String key = path + (base64 ? ".headers_base64" : ".headers");
      List<HeaderBody> headers = base64 ? r.headersBase64() : r.headers() == null ? List.of() : r.headers();
      for (int j = 0; j < headers.size(); j++) {
        b.addHeaders(header(headers.get(j), key + "[" + j + "]", base64 ? null : encoding));
      }
      return b.build();
    }

    private static ByteString body(RecordBody r, String path, BodyEncoding encoding) {
      onlyOne(r.body(), r.bodyBase64(), path + ".body");
      return r.bodyBase64() != null ? BodyEncoding.base64Field(r.bodyBase64(), path + ".body_base64")
          : encoding.decode(r.body(), path + ".body");
    }

    /** One header, its strings in {@code encoding}, or in base64 for {@code headers_base64} (null). */
    private static Header header(HeaderBody h, String path, BodyEncoding encoding) {
      if (h == null) {
        throw ApiError.invalidArgument(path, HeaderJson.SHAPE, path + " is null; send [\"name\", \"value\"]");
      }
      checkObjectComplete(h, path);
      return Header.newBuilder()
          .setName(encoding == null ? BodyEncoding.base64Field(h.name(), h.namePath(path))
              : encoding.decode(h.name(), h.namePath(path)))
          .setValue(encoding == null ? BodyEncoding.base64Field(h.value(), h.valuePath(path))
              : encoding.decode(h.value(), h.valuePath(path)))
          .build();
    }

    /**
     * Refuses a header object without a string name or value: reading the missing one as empty would
     * store a header the client did not mean (a typo such as {@code "vaule"} is refused as unknown, but
     * a forgotten key would pass silently). An empty name or value is written {@code ""}.
     */
    private static void checkObjectComplete(HeaderBody h, String path) {
      for (String key : new String[] {"name", "value"}) {
        if ((key.equals("name") ? h.name() : h.value()) == null && !h.pair()) {
          throw ApiError.invalidArgument(path, "{\"name\": string, \"value\": string}", path + " has no \"" + key
              + "\" (missing or null); a header object needs both name and value as strings (\"\" for an empty"
              + " one), or send the pair [\"name\", \"value\"]");
        }
      }
    }

    /** Refuses a plain field given beside its base64 twin ({@code body} and {@code body_base64}). */
    private static void onlyOne(Object plain, Object base64, String field) {
      if (plain != null && base64 != null) {
        throw ApiError.invalidArgument(field + "_base64", "not with " + field.substring(field.lastIndexOf('.') + 1),
            "give " + field + " or " + field + "_base64, not both");
      }
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
