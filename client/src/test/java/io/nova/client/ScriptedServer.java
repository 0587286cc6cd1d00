package io.nova.client;

import com.google.protobuf.Any;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import io.nova.proto.v1.AppendRequest;
import io.nova.proto.v1.AppendResponse;
import io.nova.proto.v1.CheckTailRequest;
import io.nova.proto.v1.CheckTailResponse;
import io.nova.proto.v1.ControlPlaneGrpc;
import io.nova.proto.v1.CreateBasinRequest;
import io.nova.proto.v1.CreateBasinResponse;
import io.nova.proto.v1.CreateStreamRequest;
import io.nova.proto.v1.CreateStreamResponse;
import io.nova.proto.v1.DataPlaneGrpc;
import io.nova.proto.v1.DeleteBasinRequest;
import io.nova.proto.v1.DeleteBasinResponse;
import io.nova.proto.v1.DeleteStreamRequest;
import io.nova.proto.v1.DeleteStreamResponse;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.FenceRequest;
import io.nova.proto.v1.FenceResponse;
import io.nova.proto.v1.GetClusterStatusRequest;
import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.GetFencingTokenRequest;
import io.nova.proto.v1.GetFencingTokenResponse;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.GetStreamResponse;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListBasinsResponse;
import io.nova.proto.v1.ListStreamsRequest;
import io.nova.proto.v1.ListStreamsResponse;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real gRPC server on loopback that serves DataPlane and ControlPlane from per-method scripts: each
 * call takes the next scripted reply (a response message, a {@link Throwable} to fail with, or a
 * {@link Delayed} reply), and the last reply of a script repeats. Records every request it receives.
 */
final class ScriptedServer implements AutoCloseable {

    /** A reply sent after a pause. */
    record Delayed(Duration delay, Object reply) {
    }

    private final Map<String, Deque<Object>> scripts = new HashMap<>();
    private final Map<String, List<Object>> requests = new HashMap<>();
    private final Server server;

    ScriptedServer() {
        try {
            server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                    .addService(new Data())
                    .addService(new Control())
                    .build()
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This server's {@code host:port}. */
    String hostPort() {
        return "127.0.0.1:" + server.getPort();
    }

    /** Scripts the replies to {@code method} (e.g. "Append"); the last one repeats. */
    synchronized ScriptedServer script(String method, Object... replies) {
        scripts.put(method, new ArrayDeque<>(List.of(replies)));
        return this;
    }

    /** The requests {@code method} received, in order. */
    synchronized List<Object> requests(String method) {
        return List.copyOf(requests.getOrDefault(method, List.of()));
    }

    /** How many times {@code method} was called. */
    int calls(String method) {
        return requests(method).size();
    }

    /** The single request {@code method} received, cast. */
    <T> T onlyRequest(String method, Class<T> type) {
        List<Object> list = requests(method);
        if (list.size() != 1) {
            throw new AssertionError(method + " received " + list.size() + " requests, expected 1");
        }
        return type.cast(list.get(0));
    }

    @Override
    public void close() {
        try {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A status carrying {@code detail}, as the gateway sends it. */
    static StatusRuntimeException error(Status.Code code, ErrorDetail detail) {
        return StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
                .setCode(code.value())
                .setMessage(detail.getMessage())
                .addDetails(Any.pack(detail))
                .build());
    }

    /** A local port with nothing listening on it. */
    static String deadEndpoint() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return "127.0.0.1:" + socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Object next(String method, Object request) {
        synchronized (this) {
            requests.computeIfAbsent(method, k -> new ArrayList<>()).add(request);
            Deque<Object> script = scripts.get(method);
            if (script == null || script.isEmpty()) {
                return Status.UNIMPLEMENTED.withDescription("no script for " + method).asRuntimeException();
            }
            return script.size() > 1 ? script.pollFirst() : script.peekFirst();
        }
    }

    @SuppressWarnings("unchecked")
    private <T> void handle(String method, Object request, StreamObserver<T> observer) {
        Object reply = next(method, request);
        if (reply instanceof Delayed delayed) {
            try {
                Thread.sleep(delayed.delay().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            reply = delayed.reply();
        }
        if (reply instanceof Throwable t) {
            observer.onError(t);
        } else {
            observer.onNext((T) reply);
            observer.onCompleted();
        }
    }

    private final class Data extends DataPlaneGrpc.DataPlaneImplBase {
        @Override
        public void append(AppendRequest request, StreamObserver<AppendResponse> observer) {
            handle("Append", request, observer);
        }

        @Override
        public void read(ReadRequest request, StreamObserver<ReadResponse> observer) {
            handle("Read", request, observer);
        }

        @Override
        public void checkTail(CheckTailRequest request, StreamObserver<CheckTailResponse> observer) {
            handle("CheckTail", request, observer);
        }

        @Override
        public void fence(FenceRequest request, StreamObserver<FenceResponse> observer) {
            handle("Fence", request, observer);
        }

        @Override
        public void getFencingToken(GetFencingTokenRequest request,
                StreamObserver<GetFencingTokenResponse> observer) {
            handle("GetFencingToken", request, observer);
        }

        /** Scripted with a {@code List} of messages: sends them and leaves the call open, as a tailing session. */
        @Override
        public void readSession(io.nova.proto.v1.ReadSessionRequest request,
                StreamObserver<io.nova.proto.v1.ReadSessionResponse> observer) {
            Object reply = next("ReadSession", request);
            if (reply instanceof Throwable t) {
                observer.onError(t);
                return;
            }
            for (Object message : (List<?>) reply) {
                observer.onNext((io.nova.proto.v1.ReadSessionResponse) message);
            }
        }
    }

    private final class Control extends ControlPlaneGrpc.ControlPlaneImplBase {
        @Override
        public void createBasin(CreateBasinRequest request, StreamObserver<CreateBasinResponse> observer) {
            handle("CreateBasin", request, observer);
        }

        @Override
        public void listBasins(ListBasinsRequest request, StreamObserver<ListBasinsResponse> observer) {
            handle("ListBasins", request, observer);
        }

        @Override
        public void deleteBasin(DeleteBasinRequest request, StreamObserver<DeleteBasinResponse> observer) {
            handle("DeleteBasin", request, observer);
        }

        @Override
        public void createStream(CreateStreamRequest request, StreamObserver<CreateStreamResponse> observer) {
            handle("CreateStream", request, observer);
        }

        @Override
        public void getStream(GetStreamRequest request, StreamObserver<GetStreamResponse> observer) {
            handle("GetStream", request, observer);
        }

        @Override
        public void listStreams(ListStreamsRequest request, StreamObserver<ListStreamsResponse> observer) {
            handle("ListStreams", request, observer);
        }

        @Override
        public void deleteStream(DeleteStreamRequest request, StreamObserver<DeleteStreamResponse> observer) {
            handle("DeleteStream", request, observer);
        }

        @Override
        public void getClusterStatus(GetClusterStatusRequest request,
                StreamObserver<GetClusterStatusResponse> observer) {
            handle("GetClusterStatus", request, observer);
        }
    }
}
