package io.nova.client.internal;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Which endpoint leads each stream's shard, as last learned, so that a one-shot call on a stream the client
 * uses again goes straight to that node: there the write is submitted to the local Raft server and a read
 * is served from the local replica, without the hop a forwarding node adds (issue #10, item 3). Any node
 * still serves any call, so a stale entry costs that hop and nothing else.
 *
 * <p>Bounded: at most {@link #STREAMS_MAX} streams, least recently used dropped first. A stream is looked
 * up from its second call on (a client that touches many streams once pays no lookups), and again once its
 * entry is older than {@link #REFRESH_NANOS}, so a moved leadership is followed within about that long; a
 * call that cannot reach the cached endpoint drops the entry. Lookups (one small metadata call each) run in
 * the background and never delay a call. Thread-safe.
 */
public final class StreamLeaders<K> {

    /** The most streams remembered. */
    public static final int STREAMS_MAX = 4096;
    /** How long a looked-up leader is trusted before it is looked up again: 10 s, in ns. */
    public static final long REFRESH_NANOS = 10_000_000_000L;

    /**
     * One stream's knowledge: the leader's endpoint (null while unknown, or when the hint named no
     * configured endpoint) and when it was learned or, before any lookup, when the stream was first seen.
     */
    private record Entry(EndpointPool.Endpoint leader, long sinceNanos, boolean lookedUp) {
    }

    private final Function<K, CompletableFuture<Optional<EndpointPool.Endpoint>>> lookup;
    private final Map<K, Entry> entries = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<K, Entry> eldest) {
            return size() > STREAMS_MAX;
        }
    };
    private final Set<K> inFlight = new HashSet<>();

    /**
     * @param lookup asks the cluster which endpoint leads a stream's shard, given the stream's key (a value
     *     with equals and hashCode); must never complete exceptionally (empty when unknown)
     */
    public StreamLeaders(Function<K, CompletableFuture<Optional<EndpointPool.Endpoint>>> lookup) {
        this.lookup = lookup;
    }

    /**
     * The endpoint a call on {@code stream} should try first, if known; notes the call, starting a
     * background lookup when this is the stream's second call or its entry is due for a refresh.
     *
     */
    public Optional<EndpointPool.Endpoint> first(K stream) {
        long now = System.nanoTime();
        boolean look;
        Entry entry;
        synchronized (this) {
            entry = entries.get(stream);
            if (entry == null) {
                entries.put(stream, new Entry(null, now, false));
                return Optional.empty();
            }
            boolean due = !entry.lookedUp() || now - entry.sinceNanos() > REFRESH_NANOS;
            look = due && inFlight.add(stream);
        }
        if (look) {
            lookup.apply(stream).whenComplete((leader, ignored) -> learned(stream,
                    leader == null ? Optional.empty() : leader));
        }
        return Optional.ofNullable(entry.leader());
    }

    /** Drops what is known of {@code stream}'s leader if it is {@code failed}: a call there just failed. */
    public synchronized void failed(K stream, EndpointPool.Endpoint failed) {
        Entry entry = entries.get(stream);
        if (entry != null && entry.leader() != null && entry.leader().index() == failed.index()) {
            entries.put(stream, new Entry(null, System.nanoTime(), false));
        }
    }

    /** The number of streams remembered (for tests). */
    public synchronized int size() {
        return entries.size();
    }

    private synchronized void learned(K stream, Optional<EndpointPool.Endpoint> leader) {
        inFlight.remove(stream);
        entries.put(stream, new Entry(leader.orElse(null), System.nanoTime(), true));
    }
}
