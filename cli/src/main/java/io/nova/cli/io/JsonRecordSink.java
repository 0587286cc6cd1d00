package io.nova.cli.io;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nova.client.Header;
import io.nova.client.SequencedRecord;
import io.nova.protocol.encoding.Base64Text;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * JSON output: one object per line,
 * {@code {"seq_num":0,"timestamp":1700000000000,"headers":[["n","v"]],"body":"..."}}. A body that is
 * not valid UTF-8 is written as {@code "body_base64"} instead of {@code "body"}; when any header name or
 * value is not valid UTF-8, all headers are written as {@code "headers_base64"} (base64 pairs).
 */
public final class JsonRecordSink implements RecordSink {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final OutputStream out;

  public JsonRecordSink(OutputStream out) {
    this.out = out;
  }

  @Override
  public void write(SequencedRecord record) throws IOException {
    out.write(MAPPER.writeValueAsBytes(toJson(record)));
    out.write('\n');
  }

  static ObjectNode toJson(SequencedRecord record) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("seq_num", record.seqNum());
    node.put("timestamp", record.timestampMs());
    List<Header> headers = record.headers() == null ? List.of() : record.headers();
    boolean headersUtf8 = headers.stream().allMatch(h -> isUtf8(h.name()) && isUtf8(h.value()));
    ArrayNode array = node.putArray(headersUtf8 ? "headers" : "headers_base64");
    for (Header h : headers) {
      array.addArray().add(encode(h.name(), headersUtf8)).add(encode(h.value(), headersUtf8));
    }
    boolean bodyUtf8 = isUtf8(record.body());
    node.put(bodyUtf8 ? "body" : "body_base64", encode(record.body(), bodyUtf8));
    return node;
  }

  private static String encode(byte[] bytes, boolean utf8) {
    return utf8 ? new String(bytes, StandardCharsets.UTF_8) : Base64Text.encode(bytes);
  }

  /** Whether {@code bytes} is well-formed UTF-8 (so decoding and re-encoding gives the same bytes). */
  static boolean isUtf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
