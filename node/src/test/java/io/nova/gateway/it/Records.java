package io.nova.gateway.it;

import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.node.testing.StreamReader;
import java.util.List;
import java.util.stream.IntStream;

/** Small helpers to build batches and read whole streams back. */
final class Records {

  private Records() {}

  static List<AppendRecord> batch(String prefix, int count) {
    return IntStream.range(0, count).mapToObj(i -> AppendRecord.ofUtf8(prefix + "-" + i)).toList();
  }

  static List<SequencedRecord> readAll(NovaClient client, StreamAddress stream) {
    return StreamReader.readAll(client, stream);
  }

  static List<String> bodies(List<SequencedRecord> records) {
    return records.stream().map(SequencedRecord::bodyUtf8).toList();
  }
}
