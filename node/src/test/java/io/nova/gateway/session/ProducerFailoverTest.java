package io.nova.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.Producer;
import io.nova.client.ProducerOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.node.testing.LocalCluster;
import io.nova.node.testing.StreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Proves the Producer's delivery guarantees across a node stopping mid-stream on a real in-JVM
 * cluster: with an advancing match, and with an idempotent plain Producer (the default), every record
 * lands exactly once; an at-least-once plain Producer keeps every acknowledged record and its acks are in
 * order and dense.
 */
class ProducerFailoverTest {

  static final int RECORDS = 6000;

  @TempDir
  Path dir;

  @ParameterizedTest(name = "stop {0}, {1}")
  // kill -9 of the leader with a conditional Producer runs with real processes in cli ProducerKillTest.
  @CsvSource({"connected,advancing", "leader,at-least-once", "leader,idempotent", "connected,idempotent"})
  void aStoppedNodeMidStreamLosesNoAcknowledgedRecord(String victim, String mode) throws Exception {
    boolean conditional = mode.equals("advancing");
    boolean exactlyOnce = !mode.equals("at-least-once");
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1);
        NovaClient admin = NovaClient.builder().endpoints(cluster.endpoints()).build()) {
      admin.createBasin("p");
      StreamAddress s = new StreamAddress("p", "s");
      admin.createStream(s);
      String leader = cluster.awaitLeader("shard-0", Duration.ofSeconds(20));
      // The producer's client lists the victim first, so its session starts there.
      String connected = victim.equals("leader") ? otherThan(cluster, leader) : leader;
      String stopped = victim.equals("leader") ? leader : connected;
      List<String> order = new ArrayList<>(List.of(cluster.endpoint(connected)));
      cluster.nodeIds().stream().filter(n -> !n.equals(connected)).forEach(n -> order.add(cluster.endpoint(n)));
      ProducerOptions.Builder options = ProducerOptions.builder().linger(Duration.ofMillis(2))
          .idempotent(mode.equals("idempotent"));
      if (conditional) {
        options.matchSeqNum(0);
      }
      List<CompletableFuture<AppendAck>> acks = new ArrayList<>();
      try (NovaClient client = NovaClient.builder().endpoints(order).build();
          Producer producer = client.openStream(s, options.build())) {
        for (int i = 0; i < RECORDS; i++) {
          acks.add(producer.append(AppendRecord.ofUtf8("r" + i)));
          if (i == RECORDS / 3) {
            cluster.stop(stopped);
          }
          if (i % 100 == 0) {
            Thread.sleep(5);
          }
        }
        producer.flush();
      }
      List<SequencedRecord> all = StreamReader.readAll(admin, s);
      Map<String, Integer> copies = new HashMap<>();
      all.forEach(r -> copies.merge(new String(r.body(), StandardCharsets.UTF_8), 1, Integer::sum));
      long previousEnd = -1;
      for (int i = 0; i < RECORDS; i++) {
        AppendAck ack = acks.get(i).get(0, TimeUnit.SECONDS);
        assertThat(ack.start().seqNum()).as("ack %d in order", i).isGreaterThan(previousEnd - 1);
        previousEnd = ack.end().seqNum();
        String body = new String(all.get((int) ack.start().seqNum()).body(), StandardCharsets.UTF_8);
        assertThat(body).as("record at the acked position of append %d", i).isEqualTo("r" + i);
        if (exactlyOnce) {
          assertThat(copies.get("r" + i)).as("copies of r%d", i).isEqualTo(1);
        }
      }
      if (exactlyOnce) {
        assertThat(all).hasSize(RECORDS);
      }
    }
  }

  private static String otherThan(LocalCluster cluster, String node) {
    return cluster.nodeIds().stream().filter(n -> !n.equals(node)).findFirst().orElseThrow();
  }
}
