package io.nova.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.v1.AppendRecord;
import io.nova.protocol.limits.Limits;
import io.nova.protocol.limits.Metering;
import java.util.Collections;
import org.apache.ratis.util.SizeInBytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Proves that the limits derived from one another still fit together: every batch the metered limits
 * allow (without headers) serializes below the log-entry bound the state machines enforce, and that
 * bound, with Ratis' own framing, stays below the largest entry Ratis' appender and log writer take.
 * A change to any one limit that breaks the chain fails here, not as an oversized entry at run time
 * (which Ratis would refuse only after the assignment cursor moved).
 */
class DerivedLimitsTest {

  /** Generous room for what Ratis wraps around our bytes: client id, call id, term, index, framing. */
  private static final int RATIS_ENTRY_FRAMING_BYTES = 4 << 10;

  /** A batch of {@code records} records whose metered sizes add up to exactly the batch limit. */
  private static ShardCommand fullBatch(int records) {
    long bodyBytesTotal = Limits.BATCH_METERED_BYTES_MAX - (long) records * Metering.RECORD_OVERHEAD_BYTES;
    AppendCommand.Builder append = AppendCommand.newBuilder()
        .setStreamId(Long.MAX_VALUE).setMatchSeqNum(Long.MAX_VALUE).setArrivalMs(Long.MAX_VALUE)
        .setFencingToken(String.join("", Collections.nCopies(Limits.FENCING_TOKEN_BYTES_MAX, "x")));
    long metered = 0;
    for (int i = 0; i < records; i++) {
      int body = (int) (bodyBytesTotal / records + (i < bodyBytesTotal % records ? 1 : 0));
      AppendRecord record = AppendRecord.newBuilder().setTimestamp(Long.MAX_VALUE)
          .setBody(ByteString.copyFrom(new byte[body])).build();
      metered += Metering.meteredBytes(record);
      append.addRecords(record);
    }
    assertThat(metered).isEqualTo(Limits.BATCH_METERED_BYTES_MAX);
    return ShardCommand.newBuilder().setAppend(append).setDeadlineMs(Long.MAX_VALUE).build();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 10, 100, Limits.BATCH_RECORDS_MAX})
  void everyBatchWithinTheMeteredLimitsFitsTheEntryBound(int records) {
    ShardCommand command = fullBatch(records);
    assertThat(Limits.commandBytesError(command.getSerializedSize())).isEmpty();
  }

  @Test
  void theEntryBoundFitsWhatRatisTakes() {
    long entryMax = Limits.COMMAND_SERIALIZED_BYTES_MAX + RATIS_ENTRY_FRAMING_BYTES;
    assertThat(entryMax).isLessThanOrEqualTo(RaftTuning.ENTRY_BYTES_MAX.getSize());
    // Ratis' log writer needs room for the entry plus its own 8-byte header and checksum.
    assertThat(RaftTuning.ENTRY_BYTES_MAX.getSize() + 8).isLessThan(RaftTuning.LOG_WRITE_BUFFER_BYTES.getSize());
    assertThat(entryMax).isLessThan(SizeInBytes.valueOf(RaftTuning.GRPC_MESSAGE_BYTES_MAX).getSize());
  }
}
