package io.nova.client.internal;

import io.grpc.ChannelCredentials;
import io.grpc.ConnectivityState;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.nova.proto.v1.ControlPlaneGrpc;
import io.nova.proto.v1.DataPlaneGrpc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One gRPC channel per endpoint (plaintext or TLS, with or without an access token) and the "current" endpoint, used until a call on it fails.
 * Thread-safe: the current index is an atomic that callers move forward with compare-and-set, so
 * concurrent failures advance it once.
 */
public final class EndpointPool implements AutoCloseable {

    /** The largest inbound message accepted (a read answers at most ~1 MiB of records plus framing). */
    static final int INBOUND_MESSAGE_BYTES_MAX = 16 * 1024 * 1024;

    /**
     * One endpoint and its stubs.
     *
     * @param index its position in the pool
     * @param hostPort the address it was configured with
     * @param channel its channel
     * @param data the data-plane stub (asynchronous, without a deadline)
     * @param control the control-plane stub (asynchronous, without a deadline)
     * @param plaintext whether the channel speaks plaintext (no TLS)
     * @param probeTimeout how long {@link #diagnose} may wait for its TLS probe
     */
    public record Endpoint(int index, String hostPort, ManagedChannel channel,
            DataPlaneGrpc.DataPlaneFutureStub data, ControlPlaneGrpc.ControlPlaneFutureStub control,
            boolean plaintext, Duration probeTimeout) {

        /**
         * {@code failure} as a failed TLS handshake when this plaintext endpoint's connection was closed
         * without a word and the port turns out to speak TLS ({@link TlsProbe}); otherwise {@code failure}.
         * May block up to {@code probeTimeout}, and only for such a failure.
         */
        public StatusRuntimeException diagnose(StatusRuntimeException failure) {
            Status status = failure.getStatus();
            if (!plaintext || status.getCode() != Status.Code.UNAVAILABLE || status.getDescription() == null
                    || !status.getDescription().contains("Network closed for unknown reason")
                    || !TlsProbe.speaksTls(hostPort, probeTimeout)) {
                return failure;
            }
            return status.withCause(new TlsProbe.PlaintextClientOnTlsPort(hostPort)).asRuntimeException();
        }
    }

    /** The longest a TLS probe ({@link Endpoint#diagnose}) waits. */
    static final Duration PROBE_TIMEOUT_MAX = Duration.ofSeconds(2);

    private static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    private final List<Endpoint> endpoints;
    /** Invariant: 0 <= current < endpoints.size(). */
    private final AtomicInteger current = new AtomicInteger();

    /** Opens (lazily connecting) one plaintext channel per {@code host:port}. */
    public EndpointPool(List<String> hostPorts, Duration connectTimeout) {
        this(hostPorts, connectTimeout, InsecureChannelCredentials.create());
    }

    /** Opens (lazily connecting) one channel per {@code host:port} with {@code credentials} (TLS or plaintext). */
    public EndpointPool(List<String> hostPorts, Duration connectTimeout, ChannelCredentials credentials) {
        this(hostPorts, connectTimeout, credentials, null);
    }

    /**
     * As {@link #EndpointPool(List, Duration, ChannelCredentials)}, every call carrying
     * {@code authorization: Bearer accessToken} when {@code accessToken} is not null.
     */
    public EndpointPool(List<String> hostPorts, Duration connectTimeout, ChannelCredentials credentials,
            String accessToken) {
        if (hostPorts.isEmpty()) {
            throw new IllegalArgumentException("endpoints must not be empty");
        }
        List<Endpoint> list = new ArrayList<>(hostPorts.size());
        for (String hostPort : hostPorts) {
            NettyChannelBuilder builder = NettyChannelBuilder.forTarget(hostPort, credentials)
                    .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                    .maxInboundMessageSize(INBOUND_MESSAGE_BYTES_MAX);
            if (accessToken != null) {
                Metadata headers = new Metadata();
                headers.put(AUTHORIZATION, "Bearer " + accessToken);
                builder.intercept(MetadataUtils.newAttachHeadersInterceptor(headers));
            }
            ManagedChannel channel = builder.build();
            list.add(new Endpoint(list.size(), hostPort, channel,
                    DataPlaneGrpc.newFutureStub(channel), ControlPlaneGrpc.newFutureStub(channel),
                    credentials instanceof io.grpc.InsecureChannelCredentials,
                    connectTimeout.compareTo(PROBE_TIMEOUT_MAX) < 0 ? connectTimeout : PROBE_TIMEOUT_MAX));
        }
        this.endpoints = List.copyOf(list);
    }

    /** The endpoint configured as {@code hostPort}, if any (exact match of the configured text). */
    public Optional<Endpoint> find(String hostPort) {
        return endpoints.stream().filter(e -> e.hostPort().equals(hostPort)).findFirst();
    }

    /** The number of endpoints. */
    public int size() {
        return endpoints.size();
    }

    /**
     * The endpoint to try first: the current one unless its channel is in TRANSIENT_FAILURE, in which
     * case the next one that is not (which becomes current); the current one if all are failing.
     */
    public Endpoint pick() {
        int start = current.get();
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint e = endpoints.get((start + i) % endpoints.size());
            if (e.channel().getState(true) != ConnectivityState.TRANSIENT_FAILURE) {
                if (i > 0) {
                    current.compareAndSet(start, e.index());
                }
                return e;
            }
        }
        return endpoints.get(start);
    }

    /**
     * Moves past {@code failed} (unless another caller already did) and returns the endpoint to try next.
     */
    public Endpoint failover(Endpoint failed) {
        current.compareAndSet(failed.index(), (failed.index() + 1) % endpoints.size());
        return endpoints.get(current.get());
    }

    /** Shuts every channel down, waiting up to a few seconds for in-flight calls. */
    @Override
    public void close() {
        for (Endpoint e : endpoints) {
            e.channel().shutdown();
        }
        for (Endpoint e : endpoints) {
            try {
                if (!e.channel().awaitTermination(2, TimeUnit.SECONDS)) {
                    e.channel().shutdownNow();
                }
            } catch (InterruptedException ie) {
                e.channel().shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }
}
