package io.nova.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Proves that {@link NovaClusterContainer} gives a test a working, replicated Nova from the locally built
 * node image: a client on its endpoints creates a basin and a stream, appends and reads back, and the
 * cluster keeps serving with one of its three nodes stopped.
 */
class NovaClusterContainerIT {

  private static final String IMAGE = System.getProperty("nova.image", "nova:local");

  @Test
  @Timeout(300)
  void aClusterServesAClientAndSurvivesANodeStopped() {
    try (NovaClusterContainer cluster = new NovaClusterContainer(IMAGE)) {
      cluster.start();
      assertThat(cluster.getNodes()).hasSize(3).allSatisfy(n -> assertThat(n.isRunning()).isTrue());
      try (NovaClient client = NovaClient.builder().endpoints(cluster.getEndpoints()).build()) {
        StreamAddress events = StreamAddress.parse("nova://tc/events");
        client.createBasin("tc");
        client.createStream(events);
        client.append(events, List.of(AppendRecord.ofUtf8("one"), AppendRecord.ofUtf8("two")));
        cluster.getNodes().get(0).stop();
        client.append(events, List.of(AppendRecord.ofUtf8("three")));
        assertThat(client.read(events, ReadOptions.defaults()).records())
            .extracting(r -> new String(r.body(), java.nio.charset.StandardCharsets.UTF_8))
            .containsExactly("one", "two", "three");
      }
    }
  }
}
