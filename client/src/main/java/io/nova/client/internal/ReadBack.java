package io.nova.client.internal;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.StreamPosition;
import io.nova.client.errors.NovaException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decides whether a conditional batch that missed after a resend had in fact landed on its first
 * attempt: it did exactly when the stream holds the batch's records (same headers and bodies) at
 * {@code [match, match + n)}. Only a single writer may rely on this (another writer could have
 * appended identical records). Stateless and thread-safe.
 */
public final class ReadBack {

    /** Bounds the reads of one read-back (a batch holds at most 1000 records: one or two reads). */
    public static final int READS_MAX = 100;

    private ReadBack() {
    }

    /**
     * The batch's ack rebuilt from the stream when it landed at {@code match}, else {@code null}
     * (also when reading fails: the caller then reports the miss).
     *
     * @param tail the committed tail the miss reported
     */
    public static AppendAck landedAck(NovaClient client, StreamAddress address, List<AppendRecord> records,
            long match, StreamPosition tail) {
        if (tail.seqNum() < match + records.size()) {
            return null;
        }
        List<SequencedRecord> found = new ArrayList<>(records.size());
        try {
            for (int reads = 0; reads < READS_MAX && found.size() < records.size(); reads++) {
                ReadBatch batch = client.read(address, ReadOptions.builder().startSeqNum(match + found.size())
                        .count(records.size() - found.size()).build());
                if (batch.records().isEmpty()) {
                    break;
                }
                found.addAll(batch.records());
            }
        } catch (NovaException e) {
            return null;
        }
        if (!sameRecords(records, found, match)) {
            return null;
        }
        SequencedRecord first = found.get(0);
        SequencedRecord last = found.get(records.size() - 1);
        return new AppendAck(new StreamPosition(match, first.timestampMs()),
                new StreamPosition(match + records.size(), last.timestampMs()), tail);
    }

    /** Whether {@code found} starts with {@code sent}'s records at seq_nums {@code match, match + 1, ...}. */
    public static boolean sameRecords(List<AppendRecord> sent, List<SequencedRecord> found, long match) {
        if (found.size() < sent.size()) {
            return false;
        }
        for (int i = 0; i < sent.size(); i++) {
            AppendRecord a = sent.get(i);
            SequencedRecord b = found.get(i);
            if (b.seqNum() != match + i || !a.headers().equals(b.headers()) || !Arrays.equals(a.body(), b.body())) {
                return false;
            }
        }
        return true;
    }
}
