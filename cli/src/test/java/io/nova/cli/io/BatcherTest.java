package io.nova.cli.io;

import io.nova.protocol.limits.Metering;
import io.nova.protocol.limits.Limits;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Proves batches respect both the record-count and the metered-byte limits, in input order. */
class BatcherTest {

  private static RecordSource records(int count, int bodyBytes) {
    List<InputRecord> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      AppendRecord r = AppendRecord.of(new byte[bodyBytes]);
      list.add(new InputRecord(i + 1, r, r.meteredBytes()));
    }
    Iterator<InputRecord> it = list.iterator();
    return () -> it.hasNext() ? it.next() : null;
  }

  private static List<List<InputRecord>> drain(Batcher batcher) throws IOException {
    List<List<InputRecord>> batches = new ArrayList<>();
    for (List<InputRecord> b = batcher.next(); b != null; b = batcher.next()) {
      batches.add(b);
    }
    return batches;
  }

  @Test
  void cutsAtOneThousandRecords() throws IOException {
    List<List<InputRecord>> batches = drain(new Batcher(records(2500, 1)));
    assertThat(batches).extracting(List::size).containsExactly(1000, 1000, 500);
    assertThat(batches.get(1).get(0).lineNumber()).isEqualTo(1001);
    assertThat(batches.get(2).get(499).lineNumber()).isEqualTo(2500);
  }

  @Test
  void cutsAtOneMebibyteMetered() throws IOException {
    // 300 000 + 8 metered bytes each: three fit in 1 MiB (900 024), four do not.
    List<List<InputRecord>> batches = drain(new Batcher(records(10, 300_000)));
    assertThat(batches).extracting(List::size).containsExactly(3, 3, 3, 1);
  }

  @Test
  void fillsABatchExactlyToTheByteLimit() throws IOException {
    // Two records of 512 KiB metered each make exactly 1 MiB.
    int body = (int) (Limits.BATCH_METERED_BYTES_MAX / 2 - Metering.RECORD_OVERHEAD_BYTES);
    List<List<InputRecord>> batches = drain(new Batcher(records(5, body)));
    assertThat(batches).extracting(List::size).containsExactly(2, 2, 1);
  }

  @Test
  void aRecordOfTheFullLimitTravelsAlone() throws IOException {
    int body = (int) (Limits.RECORD_METERED_BYTES_MAX - Metering.RECORD_OVERHEAD_BYTES);
    List<List<InputRecord>> batches = drain(new Batcher(records(3, body)));
    assertThat(batches).extracting(List::size).containsExactly(1, 1, 1);
  }

  @Test
  void smallLimitsAndEmptyInput() throws IOException {
    assertThat(drain(new Batcher(records(0, 1)))).isEmpty();
    assertThat(drain(new Batcher(records(5, 2), 2, 1000))).extracting(List::size).containsExactly(2, 2, 1);
    assertThat(drain(new Batcher(records(5, 2), 100, 20))).extracting(List::size).containsExactly(2, 2, 1);
  }
}
