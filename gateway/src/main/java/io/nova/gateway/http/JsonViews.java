package io.nova.gateway.http;

import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.BasinInfo;
import io.nova.proto.v1.Header;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.SequencedRecord;
import io.nova.proto.v1.StreamConfig;
import io.nova.proto.v1.StreamInfo;
import io.nova.proto.v1.CheckTailResponse;
import io.nova.proto.v1.StreamPosition;
import io.nova.proto.v1.TrimResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON shape of each gRPC answer: the same field names as the proto messages (snake_case), in a
 * stable order. Every {@code uint64} is below 2^63 and rendered as a JSON integer. Stateless.
 */
public final class JsonViews {

  private JsonViews() {}

  /** {@code {"seq_num": n, "timestamp": ms}}. */
  public static Map<String, Object> position(StreamPosition p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seq_num", p.getSeqNum());
    m.put("timestamp", p.getTimestamp());
    return m;
  }

  /**
   * {@code {"start": pos, "end": pos, "tail": pos}}: records [start, end) landed; plus
   * {@code "deduplicated": true} when an idempotent resend was answered with its original ack.
   */
  static Map<String, Object> ack(AppendAck ack) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("start", position(ack.getStart()));
    m.put("end", position(ack.getEnd()));
    m.put("tail", position(ack.getTail()));
    if (ack.getDeduplicated()) {
      m.put("deduplicated", true);
    }
    return m;
  }

  static Map<String, Object> tail(StreamPosition tail) {
    return Map.of("tail", position(tail));
  }

  /** Check-tail: the tail, the first retained seq_num (records below it were trimmed) and the retained bytes. */
  static Map<String, Object> tail(CheckTailResponse response) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("tail", position(response.getTail()));
    m.put("first_seq_num", response.getFirstSeqNum());
    m.put("retained_bytes", response.getRetainedBytes());
    return m;
  }

  /** A trim's answer: where the stream starts now, the tail, and whether the start moved. */
  static Map<String, Object> trim(TrimResponse response) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("first_seq_num", response.getFirstSeqNum());
    m.put("tail", position(response.getTail()));
    m.put("moved", response.getMoved());
    return m;
  }

  /** One record in {@code shape} ({@link RecordShape}); strings in {@code encoding}. */
  static Map<String, Object> record(SequencedRecord r, BodyEncoding encoding, RecordShape shape) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seq_num", r.getSeqNum());
    m.put("timestamp", r.getTimestamp());
    if (shape == RecordShape.OBJECTS) {
      List<Map<String, Object>> headers = new ArrayList<>();
      for (Header h : r.getHeadersList()) {
        Map<String, Object> hm = new LinkedHashMap<>();
        hm.put("name", encoding.encode(h.getName()));
        hm.put("value", encoding.encode(h.getValue()));
        headers.add(hm);
      }
      m.put("headers", headers);
      m.put("body", encoding.encode(r.getBody()));
      return m;
    }
    // In utf8, bytes that are not UTF-8 go to the base64 twin rather than being lost to U+FFFD.
    boolean headersAsText = encoding == BodyEncoding.BASE64
        || r.getHeadersList().stream().allMatch(h -> h.getName().isValidUtf8() && h.getValue().isValidUtf8());
    BodyEncoding headerEncoding = headersAsText ? encoding : BodyEncoding.BASE64;
    List<List<String>> pairs = new ArrayList<>();
    for (Header h : r.getHeadersList()) {
      pairs.add(List.of(headerEncoding.encode(h.getName()), headerEncoding.encode(h.getValue())));
    }
    m.put(headersAsText ? "headers" : "headers_base64", pairs);
    boolean bodyAsText = encoding == BodyEncoding.BASE64 || r.getBody().isValidUtf8();
    m.put(bodyAsText ? "body" : "body_base64", (bodyAsText ? encoding : BodyEncoding.BASE64).encode(r.getBody()));
    return m;
  }

  /** {@code {"records": [...], "tail": pos}}. */
  static Map<String, Object> read(ReadResponse read, BodyEncoding encoding, RecordShape shape) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("records", read.getRecordsList().stream().map(r -> record(r, encoding, shape)).toList());
    m.put("tail", position(read.getTail()));
    return m;
  }

  static Map<String, Object> basin(BasinInfo b) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", b.getName());
    m.put("created_at_ms", b.getCreatedAtMs());
    m.put("default_stream_config", config(b.getDefaultStreamConfig()));
    return m;
  }

  /** A stored configuration: every retention limit and delete-on-empty's min age, 0 meaning none. */
  static Map<String, Object> config(StreamConfig c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("retention_age_ms", c.getRetentionAgeMs());
    m.put("retention_bytes", c.getRetentionBytes());
    m.put("retention_records", c.getRetentionRecords());
    m.put("delete_on_empty_min_age_ms", c.getDeleteOnEmptyMinAgeMs());
    return m;
  }

  /** {@code GET} or {@code PATCH .../config}: the configuration and its version. */
  static Map<String, Object> config(StreamConfig c, long version) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("config", config(c));
    m.put("config_version", version);
    return m;
  }

  static Map<String, Object> stream(StreamInfo s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("basin", s.getBasin());
    m.put("name", s.getName());
    m.put("created_at_ms", s.getCreatedAtMs());
    m.put("shard", s.getShard());
    m.put("stream_id", s.getStreamId());
    m.put("config", config(s.getConfig()));
    m.put("config_version", s.getConfigVersion());
    return m;
  }
}
