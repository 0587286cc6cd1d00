package io.nova.gateway.it;

import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/** Small helpers to build batches and read whole streams back. */
final class Records {

  private Records() {}

  static List<AppendRecord> batch(String prefix, int count) {
    return IntStream.range(0, count).mapToObj(i -> AppendRecord.ofUtf8(prefix + "-" + i)).toList();
  }

  /** Every committed record of the stream, reading page by page up to the tail. */
  static List<SequencedRecord> readAll(NovaClient client, StreamAddress stream) {
    List<SequencedRecord> all = new ArrayList<>();
    while (true) {
      ReadBatch batch = client.read(stream, ReadOptions.builder().startSeqNum(all.size()).build());
      all.addAll(batch.records());
      if (batch.records().isEmpty() || all.size() >= batch.tail().seqNum()) {
        return all;
      }
    }
  }

  static List<String> bodies(List<SequencedRecord> records) {
    return records.stream().map(SequencedRecord::bodyUtf8).toList();
  }
}
