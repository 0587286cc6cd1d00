package io.nova.gateway.s2;

import io.nova.gateway.http.JsonViews;
import com.google.protobuf.ByteString;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.Header;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.SequencedRecord;
import io.nova.proto.v1.StreamPosition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * S2's record JSON: {@code AppendInput} in, {@code AppendAck}, {@code ReadBatch} and {@code StreamPosition}
 * out. Headers are {@code [name, value]} pairs; strings are in the request's {@link S2Format}.
 *
 * <p>S2's command records (exactly one header, with an empty name) become Nova verbs instead of records:
 * {@code ["", "fence"]} with the new token as its body is {@link Command.Fence}, {@code ["", "trim"]} with
 * an 8-byte big-endian seq_num as its body is {@link Command.Trim}. A command travels alone in its batch.
 */
final class S2Records {

  private S2Records() {}

  /** What an S2 append asks for: a batch of records, or one command. */
  sealed interface Append permits Batch, Command {}

  /** Records to append, with the batch's conditions. */
  record Batch(AppendInput input) implements Append {}

  /** A command record, turned into a Nova verb. */
  sealed interface Command extends Append permits Command.Fence, Command.Trim {
    /** Install (or clear, when empty) the stream's fencing token. */
    record Fence(String token) implements Command {}

    /** Trim every record below {@code seqNum}, presenting {@code fencingToken} (empty: none) as an append would. */
    record Trim(long seqNum, java.util.Optional<String> fencingToken) implements Command {}
  }

  /** Parses S2's {@code AppendInput} body. */
  static Append append(S2Json body, S2Format format) {
    body.only(Set.of("records", "match_seq_num", "fencing_token"));
    List<S2Json> records = body.array("records").orElseThrow(() -> S2Errors.invalid("records",
        "1 to 1000 records", "an append needs records: {\"records\": [{\"body\": \"...\"}]}"));
    AppendInput.Builder input = AppendInput.newBuilder();
    body.u64("match_seq_num").ifPresent(input::setMatchSeqNum);
    body.string("fencing_token").ifPresent(input::setFencingToken);
    List<Command> commands = new ArrayList<>();
    for (S2Json r : records) {
      AppendRecord record = record(r.asObject(), format);
      command(record, r).ifPresentOrElse(commands::add, () -> input.addRecords(record));
    }
    if (commands.isEmpty()) {
      return new Batch(input.build());
    }
    Command command = commands.get(0);
    boolean conditional = input.hasMatchSeqNum() || (command instanceof Command.Fence && input.hasFencingToken());
    if (records.size() != 1 || conditional) {
      throw S2Errors.invalid("records", "a command record alone; no match_seq_num; fencing_token only on a trim",
          "a fence or trim command record must be the only record of its append, without match_seq_num (and a"
              + " fence without fencing_token): Nova runs it as its Fence or Trim verb, not as a record"
              + " (docs/http-api.md)");
    }
    if (command instanceof Command.Trim trim && input.hasFencingToken()) {
      return new Command.Trim(trim.seqNum(), java.util.Optional.of(input.getFencingToken()));
    }
    return command;
  }

  private static AppendRecord record(S2Json r, S2Format format) {
    r.only(Set.of("body", "headers", "timestamp"));
    AppendRecord.Builder b = AppendRecord.newBuilder();
    r.string("body").ifPresent(text -> b.setBody(format.decode(text, r.at("body"))));
    r.u64("timestamp").ifPresent(b::setTimestamp);
    r.array("headers").ifPresent(headers -> {
      for (S2Json h : headers) {
        String[] pair = h.pair();
        b.addHeaders(Header.newBuilder().setName(format.decode(pair[0], h.at("0")))
            .setValue(format.decode(pair[1], h.at("1"))));
      }
    });
    return b.build();
  }

  private static java.util.Optional<Command> command(AppendRecord record, S2Json at) {
    if (record.getHeadersCount() != 1 || !record.getHeaders(0).getName().isEmpty()) {
      return java.util.Optional.empty();
    }
    String op = record.getHeaders(0).getValue().toStringUtf8();
    ByteString body = record.getBody();
    return switch (op) {
      case "fence" -> java.util.Optional.of(new Command.Fence(body.toStringUtf8()));
      case "trim" -> {
        if (body.size() != 8) {
          throw S2Errors.invalid(at.at("body"), "8 bytes", "a trim command's body is the seq_num as 8 big-endian"
              + " bytes (send it with s2-format: base64); this one has " + body.size() + " bytes");
        }
        yield java.util.Optional.of(new Command.Trim(body.asReadOnlyByteBuffer().getLong(), java.util.Optional.empty()));
      }
      default -> throw S2Errors.invalid(at.at("headers"), "fence or trim", "a record whose only header has an"
          + " empty name is a command record; \"" + op + "\" is not a command (fence, trim)");
    };
  }

  static Map<String, Object> position(StreamPosition p) {
    return JsonViews.position(p);
  }

  static Map<String, Object> ack(AppendAck ack) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("start", position(ack.getStart()));
    m.put("end", position(ack.getEnd()));
    m.put("tail", position(ack.getTail()));
    return m;
  }

  /** The ack of a command: no record was appended, so start, end and tail are all {@code tail}. */
  static Map<String, Object> commandAck(StreamPosition tail) {
    return ack(AppendAck.newBuilder().setStart(tail).setEnd(tail).setTail(tail).build());
  }

  static Map<String, Object> record(SequencedRecord r, S2Format format) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seq_num", r.getSeqNum());
    m.put("timestamp", r.getTimestamp());
    m.put("headers", r.getHeadersList().stream()
        .map(h -> List.of(format.encode(h.getName()), format.encode(h.getValue()))).toList());
    m.put("body", format.encode(r.getBody()));
    return m;
  }

  /** S2's {@code ReadBatch}: the records and the tail when they were read. */
  static Map<String, Object> batch(ReadResponse read, S2Format format) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("records", read.getRecordsList().stream().map(r -> record(r, format)).toList());
    m.put("tail", position(read.getTail()));
    return m;
  }
}
