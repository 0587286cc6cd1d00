package io.nova.client;

import io.nova.client.internal.Blocking;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Objects;

/**
 * One-shot appends and trims that present a fencing token. Obtain with {@link NovaClient#presenting(String)}.
 * Presenting never installs a token (only {@link NovaClient#fence} does); a stream whose installed
 * token differs refuses the append with {@link io.nova.client.errors.FencedOutException}.
 *
 * <p>Thread-safe; as cheap as the client it wraps and valid until that client is closed.
 */
public final class FencingView {

    private final NovaClient client;
    private final String fencingToken;

    FencingView(NovaClient client, String fencingToken) {
        this.client = Objects.requireNonNull(client, "client");
        this.fencingToken = Objects.requireNonNull(fencingToken, "fencingToken");
    }

    /** The token this view presents. */
    public String fencingToken() {
        return fencingToken;
    }

    /**
     * {@link NovaClient#append} presenting this view's token. In addition to the errors listed there,
     * throws {@link io.nova.client.errors.FencedOutException} (definite: nothing appended) when the
     * stream's installed token is not this one.
     */
    public AppendAck append(StreamAddress address, List<AppendRecord> records) {
        return Blocking.await(appendAsync(address, records));
    }

    /**
     * {@link #append} without blocking, as {@link NovaClient#appendAsync}: the future fails with the
     * exception {@link #append} would throw.
     */
    public CompletableFuture<AppendAck> appendAsync(StreamAddress address, List<AppendRecord> records) {
        return client.doAppend(address, records, null, fencingToken);
    }

    /**
     * {@link NovaClient#appendMatch} presenting this view's token. The token is checked before the
     * match, so a fenced-out writer gets {@link io.nova.client.errors.FencedOutException} even when its
     * match_seq_num would also have missed.
     */
    public AppendAck appendMatch(StreamAddress address, long matchSeqNum, List<AppendRecord> records) {
        return Blocking.await(appendMatchAsync(address, matchSeqNum, records));
    }

    /**
     * {@link #appendMatch} without blocking, as {@link NovaClient#appendMatchAsync}: the future fails with
     * the exception {@link #appendMatch} would throw.
     */
    public CompletableFuture<AppendAck> appendMatchAsync(StreamAddress address, long matchSeqNum,
            List<AppendRecord> records) {
        return client.doAppend(address, records, matchSeqNum, fencingToken);
    }

    /**
     * {@link NovaClient#trim} presenting this view's token: a trim is a write, so a fenced stream refuses
     * it with {@link io.nova.client.errors.FencedOutException} (definite: nothing trimmed) unless its
     * installed token is this one.
     */
    public TrimResult trim(StreamAddress address, long seqNum) {
        return Blocking.await(trimAsync(address, seqNum));
    }

    /**
     * {@link #trim} without blocking, as {@link NovaClient#trimAsync}: the future fails with the exception
     * {@link #trim} would throw.
     */
    public CompletableFuture<TrimResult> trimAsync(StreamAddress address, long seqNum) {
        return client.doTrim(address, seqNum, fencingToken);
    }
}
