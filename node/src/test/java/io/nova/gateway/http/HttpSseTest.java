package io.nova.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.cluster.config.NodeTuning;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the SSE read session over real HTTP against a real 3-node cluster: it shows records another
 * client appends as they commit, heartbeats while idle, ends at its count and frees its thread when the
 * client disconnects; it follows the stream across a
 * stop and restart of the shard leader with no gap and no repeat, and one opened while the shard elects
 * a leader starts (200) and delivers every record; a reconnect with Last-Event-ID resumes right after
 * the last event received; and an error event carries the EventSource reconnection delay.
 */
class HttpSseTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration EVENT_TIMEOUT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  @Test
  void aSessionShowsRecordsAnotherClientAppendsAndHeartbeatsWhileIdle() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1)) {
      cluster.awaitReady(Duration.ofSeconds(60));
      HttpCalls writer = new HttpCalls(cluster.httpUrl("n1"));
      HttpCalls reader = new HttpCalls(cluster.httpUrl("n3"));
      createStream(writer, "live");
      String records = "/v1/basins/sse/streams/live/records";
      try (SseStream sse = SseStream.open(reader.client(), reader.base() + records + "?heartbeat_ms=200")) {
        assertThat(sse.status()).isEqualTo(200);
        assertThat(sse.contentType()).startsWith("text/event-stream");
        SseStream.Event idle = sse.nextOf("heartbeat", EVENT_TIMEOUT);
        assertThat(json(idle).get("tail").get("seq_num").asLong()).isZero();
        for (int i = 0; i < 20; i++) {
          assertThat(writer.post(records, "{\"records\":[{\"body\":\"e" + i + "\"}]}").status()).isEqualTo(200);
          SseStream.Event e = sse.nextOf("record", EVENT_TIMEOUT);
          assertThat(e.id()).isEqualTo(Integer.toString(i));
          assertThat(json(e).get("body").asText()).isEqualTo("e" + i);
        }
        assertThat(json(sse.nextOf("heartbeat", EVENT_TIMEOUT)).get("tail").get("seq_num").asLong()).isEqualTo(20);
        assertThat(cluster.server("n3").http().sseSessionsOpen()).isEqualTo(1);
      }
      // The client went away: the session notices at its next heartbeat and frees its thread.
      Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> cluster.server("n3").http().sseSessionsOpen() == 0);
      try (SseStream counted = SseStream.open(reader.client(), reader.base() + records + "?tail_offset=3&count=2")) {
        assertThat(counted.nextOf("record", EVENT_TIMEOUT).id()).isEqualTo("17");
        assertThat(counted.nextOf("record", EVENT_TIMEOUT).id()).isEqualTo("18");
        assertThat(counted.nextOf("end", EVENT_TIMEOUT).event()).isEqualTo("end");
        assertThat(counted.next(EVENT_TIMEOUT)).contains(SseStream.CLOSED);
      }
      HttpCalls.Answer follow = reader.get(records + "?seq_num=19&count=1&follow=true");
      assertThat(follow.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
      assertThat(follow.body()).contains("id: 19").contains("event: record").contains("event: end");
      HttpCalls.Answer badStart = reader.get(records + "?seq_num=99", "Accept", "text/event-stream");
      assertThat(badStart.status()).as("a bad start is an HTTP error, not an event").isEqualTo(400);
      assertThat(reader.get("/v1/basins/sse/streams/none/records", "Accept", "text/event-stream").status())
          .isEqualTo(404);
    }
  }

  @Test
  void aSessionFollowsTheStreamAcrossALeaderStopAndRestartWithoutGapsOrRepeats() throws Exception {
    int total = 300;
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1);
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints())
            .retryBudget(Duration.ofSeconds(30)).build()) {
      cluster.awaitReady(Duration.ofSeconds(60));
      String leader = cluster.awaitLeader("shard-0", Duration.ofSeconds(20));
      String readerNode = cluster.nodeIds().stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();
      HttpCalls reader = new HttpCalls(cluster.httpUrl(readerNode));
      createStream(reader, "failover");
      StreamAddress address = new StreamAddress("sse", "failover");
      try (SseStream sse = SseStream.open(reader.client(),
          reader.base() + "/v1/basins/sse/streams/failover/records?seq_num=0&heartbeat_ms=300")) {
        CompletableFuture<List<SseStream.Event>> received = CompletableFuture.supplyAsync(() -> collect(sse, total));
        for (int i = 0; i < total; i++) {
          appendExactlyOnce(client, address, i);
          if (i == total / 3) {
            cluster.stop(leader);
          }
          if (i == 2 * total / 3) {
            cluster.start(leader);
          }
        }
        List<SseStream.Event> events = received.get(120, TimeUnit.SECONDS);
        assertThat(events).hasSize(total);
        for (int i = 0; i < total; i++) {
          assertThat(events.get(i).id()).as("event " + i).isEqualTo(Integer.toString(i));
          assertThat(json(events.get(i)).get("body").asText()).isEqualTo("f" + i);
        }
      }
    }
  }

  @Test
  void aSessionOpenedWhileTheShardElectsALeaderStartsAt200AndDeliversEveryRecordInOrder() throws Exception {
    int before = 5;
    int total = 40;
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1);
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints())
            .retryBudget(Duration.ofSeconds(30)).build()) {
      cluster.awaitReady(Duration.ofSeconds(60));
      String leader = cluster.awaitLeader("shard-0", Duration.ofSeconds(20));
      String readerNode = cluster.nodeIds().stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();
      HttpCalls reader = new HttpCalls(cluster.httpUrl(readerNode));
      createStream(reader, "election");
      StreamAddress address = new StreamAddress("sse", "election");
      for (int i = 0; i < before; i++) {
        appendExactlyOnce(client, address, i);
      }
      cluster.stop(leader);
      // Opened at once, while the shard (and maybe the meta group) has no leader: as an EventSource
      // resuming during a failover would. A non-200 here would end a browser's EventSource for good.
      try (SseStream sse = SseStream.open(reader.client(),
          reader.base() + "/v1/basins/sse/streams/election/records?seq_num=0&heartbeat_ms=300")) {
        assertThat(sse.status()).isEqualTo(200);
        assertThat(sse.contentType()).startsWith("text/event-stream");
        CompletableFuture<List<SseStream.Event>> received = CompletableFuture.supplyAsync(() -> collect(sse, total));
        cluster.awaitLeader("shard-0", Duration.ofSeconds(30));
        for (int i = before; i < total; i++) {
          appendExactlyOnce(client, address, i);
        }
        List<SseStream.Event> events = received.get(120, TimeUnit.SECONDS);
        assertThat(events).hasSize(total);
        for (int i = 0; i < total; i++) {
          assertThat(events.get(i).id()).as("event " + i).isEqualTo(Integer.toString(i));
          assertThat(json(events.get(i)).get("body").asText()).isEqualTo("f" + i);
        }
      }
    }
  }

  @Test
  void aReconnectWithLastEventIdResumesRightAfterIt() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1)) {
      cluster.awaitReady(Duration.ofSeconds(60));
      HttpCalls http = new HttpCalls(cluster.httpUrl("n2"));
      createStream(http, "resume");
      String records = "/v1/basins/sse/streams/resume/records";
      StringBuilder batch = new StringBuilder("{\"records\":[");
      for (int i = 0; i < 10; i++) {
        batch.append(i == 0 ? "" : ",").append("{\"body\":\"m").append(i).append("\"}");
      }
      assertThat(http.post(records, batch.append("]}").toString()).status()).isEqualTo(200);
      String lastId;
      try (SseStream first = SseStream.open(http.client(), http.base() + records + "?seq_num=0")) {
        first.nextOf("record", EVENT_TIMEOUT);
        first.nextOf("record", EVENT_TIMEOUT);
        lastId = first.nextOf("record", EVENT_TIMEOUT).id();
      }
      assertThat(lastId).isEqualTo("2");
      // The same URL again, as EventSource reconnects, with the id of the last event received.
      try (SseStream resumed = SseStream.open(http.client(), http.base() + records + "?seq_num=0",
          "Last-Event-ID", lastId)) {
        List<String> ids = new ArrayList<>();
        for (int i = 3; i < 10; i++) {
          ids.add(resumed.nextOf("record", EVENT_TIMEOUT).id());
        }
        assertThat(ids).containsExactly("3", "4", "5", "6", "7", "8", "9");
        assertThat(http.post(records, "{\"records\":[{\"body\":\"m10\"}]}").status()).isEqualTo(200);
        assertThat(resumed.nextOf("record", EVENT_TIMEOUT).id()).isEqualTo("10");
      }
      HttpCalls.Answer bad = http.get(records, "Accept", "text/event-stream", "Last-Event-ID", "x");
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.json().get("field").asText()).isEqualTo("Last-Event-ID");
      // A session that cannot go on ends with an error event that tells an EventSource when to reconnect.
      try (SseStream live = SseStream.open(http.client(), http.base() + records + "?tail_offset=0&heartbeat_ms=200")) {
        live.nextOf("heartbeat", EVENT_TIMEOUT);
        assertThat(http.delete("/v1/basins/sse/streams/resume").status()).isEqualTo(204);
        SseStream.Event error = live.nextOf("error", EVENT_TIMEOUT);
        assertThat(json(error).get("code").asText()).isEqualTo("not_found");
        assertThat(error.retry()).isEqualTo(Long.toString(NodeTuning.defaults().sseReconnectMs()));
        assertThat(live.next(EVENT_TIMEOUT)).contains(SseStream.CLOSED);
      }
    }
  }

  private static void createStream(HttpCalls http, String name) {
    HttpCalls.Answer basin = http.post("/v1/basins", "{\"basin\":\"sse\"}");
    assertThat(basin.status()).isIn(201, 409);
    assertThat(http.post("/v1/basins/sse/streams", "{\"stream\":\"" + name + "\"}").status()).isEqualTo(201);
  }

  private static List<SseStream.Event> collect(SseStream sse, int count) {
    List<SseStream.Event> events = new ArrayList<>();
    try {
      while (events.size() < count) {
        SseStream.Event e = sse.nextOf("record", Duration.ofSeconds(60));
        if (e == SseStream.CLOSED) {
          break;
        }
        events.add(e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return events;
  }

  /** Appends body f{seq} at exactly seq, retrying through the failover; a match makes retries safe. */
  private static void appendExactlyOnce(NovaClient client, StreamAddress s, int seq) throws InterruptedException {
    for (int attempt = 0; attempt < 200; attempt++) {
      try {
        client.appendMatch(s, seq, List.of(AppendRecord.ofUtf8("f" + seq)));
        return;
      } catch (SequenceMismatchException e) {
        if (e.tail().seqNum() > seq) {
          return; // An earlier attempt landed.
        }
      } catch (NovaException e) {
        Thread.sleep(100);
      }
    }
    throw new AssertionError("could not append f" + seq);
  }

  private static JsonNode json(SseStream.Event e) {
    try {
      return MAPPER.readTree(e.data());
    } catch (java.io.IOException ex) {
      throw new AssertionError("event data is not JSON: " + e, ex);
    }
  }
}
