package io.nova.node.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, with grpc-java's own health and reflection stubs against a real node over a socket, that the
 * node's gRPC API reports {@code SERVING} on the standard health service once its groups are up, that a
 * watcher is told {@code NOT_SERVING} when the node shuts down, and that server reflection lists Nova's
 * services and serves their descriptors (what {@code grpcurl list} and {@code describe} ask for).
 */
class GrpcHealthAndReflectionTest {

  private static final Duration READY_MAX = Duration.ofSeconds(60);

  @Test
  void healthIsServingOnceGroupsAreUpAndNotServingOnShutdown(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 1, 1)) {
      ManagedChannel channel = channel(cluster);
      try {
        HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel);
        Awaitility.await().atMost(READY_MAX).pollInterval(Duration.ofMillis(100)).until(() ->
            health.withDeadlineAfter(5, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance())
                .getStatus() == ServingStatus.SERVING);
        // The node's own readiness agrees with what the health service says.
        assertThat(cluster.server("n1").node().readiness().ready()).isTrue();

        BlockingQueue<ServingStatus> watched = new LinkedBlockingQueue<>();
        HealthGrpc.newStub(channel).watch(HealthCheckRequest.getDefaultInstance(), new StreamObserver<>() {
          @Override
          public void onNext(HealthCheckResponse value) {
            watched.add(value.getStatus());
          }

          @Override
          public void onError(Throwable t) {
          }

          @Override
          public void onCompleted() {
          }
        });
        assertThat(watched.poll(10, TimeUnit.SECONDS)).isEqualTo(ServingStatus.SERVING);

        cluster.stop("n1");
        assertThat(watched.poll(10, TimeUnit.SECONDS)).isEqualTo(ServingStatus.NOT_SERVING);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void reflectionListsNovaServicesAndServesTheirDescriptors(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 1, 1)) {
      ManagedChannel channel = channel(cluster);
      try {
        List<ServerReflectionResponse> listed = reflect(channel,
            ServerReflectionRequest.newBuilder().setListServices("*").build());
        assertThat(listed).singleElement().satisfies(r -> assertThat(
            r.getListServicesResponse().getServiceList()).extracting(ServiceResponse::getName)
            .containsExactlyInAnyOrder("nova.v1.DataPlane", "nova.v1.ControlPlane", "grpc.health.v1.Health",
                "grpc.reflection.v1.ServerReflection"));

        List<ServerReflectionResponse> described = reflect(channel,
            ServerReflectionRequest.newBuilder().setFileContainingSymbol("nova.v1.DataPlane").build());
        List<FileDescriptorProto> files = new ArrayList<>();
        for (ByteString bytes : described.get(0).getFileDescriptorResponse().getFileDescriptorProtoList()) {
          files.add(FileDescriptorProto.parseFrom(bytes));
        }
        // The file declaring the service comes with the files it imports, so a client can decode messages.
        assertThat(files).extracting(FileDescriptorProto::getName).contains("nova/v1/dataplane.proto",
            "nova/v1/types.proto");
        FileDescriptorProto dataPlane = files.stream()
            .filter(f -> f.getName().equals("nova/v1/dataplane.proto")).findFirst().orElseThrow();
        assertThat(dataPlane.getServiceList()).extracting(ServiceDescriptorProto::getName).contains("DataPlane");
        assertThat(dataPlane.getService(0).getMethodList()).isNotEmpty();
      } finally {
        channel.shutdownNow();
      }
    }
  }

  private static ManagedChannel channel(LocalCluster cluster) {
    return NettyChannelBuilder.forTarget(cluster.endpoint("n1")).usePlaintext().build();
  }

  /** Sends one reflection request on a fresh stream and returns its answers once the server completes it. */
  private static List<ServerReflectionResponse> reflect(ManagedChannel channel, ServerReflectionRequest request)
      throws Exception {
    List<ServerReflectionResponse> answers = new ArrayList<>();
    CompletableFuture<List<ServerReflectionResponse>> done = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS).serverReflectionInfo(new StreamObserver<>() {
          @Override
          public synchronized void onNext(ServerReflectionResponse value) {
            answers.add(value);
          }

          @Override
          public void onError(Throwable t) {
            done.completeExceptionally(t);
          }

          @Override
          public synchronized void onCompleted() {
            done.complete(List.copyOf(answers));
          }
        });
    requests.onNext(request);
    requests.onCompleted();
    return done.get(15, TimeUnit.SECONDS);
  }
}
