package io.nova.node.testing;

import io.nova.client.NovaClient;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import java.util.ArrayList;
import java.util.List;

/** Reads whole streams back for assertions. */
public final class StreamReader {

  private StreamReader() {}

  /** Every committed record of the stream, page by page up to the tail seen by the last page. */
  public static List<SequencedRecord> readAll(NovaClient client, StreamAddress stream) {
    List<SequencedRecord> all = new ArrayList<>();
    while (true) {
      ReadBatch batch = client.read(stream, ReadOptions.builder().startSeqNum(all.size()).build());
      all.addAll(batch.records());
      if (batch.records().isEmpty() || all.size() >= batch.tail().seqNum()) {
        return all;
      }
    }
  }
}
