package io.nova.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's per-stream leader cache: looked up from a stream's second call on, in the background, used
 * once learned, forgotten when unreachable, bounded in size.
 */
class StreamLeadersTest {

  private EndpointPool pool;
  /** The lookups asked for, in order, each completed by the test. */
  private final List<CompletableFuture<Optional<EndpointPool.Endpoint>>> lookups = new ArrayList<>();
  private final List<String> looked = new ArrayList<>();
  private StreamLeaders<String> leaders;

  @BeforeEach
  void setUp() {
    // Channels connect lazily: nothing listens on these ports and nothing is sent.
    pool = new EndpointPool(List.of("127.0.0.1:1", "127.0.0.1:2"), Duration.ofSeconds(1));
    leaders = new StreamLeaders<>(stream -> {
      CompletableFuture<Optional<EndpointPool.Endpoint>> f = new CompletableFuture<>();
      looked.add(stream);
      lookups.add(f);
      return f;
    });
  }

  @AfterEach
  void tearDown() {
    pool.close();
  }

  @Test
  void aStreamCalledOnceIsNeverLookedUp() {
    assertThat(leaders.first("a")).isEmpty();
    assertThat(leaders.first("b")).isEmpty();
    assertThat(looked).isEmpty();
  }

  @Test
  void theSecondCallLooksUpOnceAndLaterCallsUseTheLeader() {
    EndpointPool.Endpoint leader = pool.find("127.0.0.1:2").orElseThrow();
    leaders.first("s");
    assertThat(leaders.first("s")).as("the lookup has not answered yet").isEmpty();
    assertThat(leaders.first("s")).isEmpty();
    assertThat(looked).as("one lookup in flight at a time").containsExactly("s");
    lookups.get(0).complete(Optional.of(leader));
    assertThat(leaders.first("s")).contains(leader);
    assertThat(looked).as("fresh: no new lookup").hasSize(1);
  }

  @Test
  void anUnreachableLeaderIsForgottenButAnotherEndpointsFailureChangesNothing() {
    EndpointPool.Endpoint leader = pool.find("127.0.0.1:2").orElseThrow();
    EndpointPool.Endpoint other = pool.find("127.0.0.1:1").orElseThrow();
    leaders.first("s");
    leaders.first("s");
    lookups.get(0).complete(Optional.of(leader));
    leaders.failed("s", other);
    assertThat(leaders.first("s")).contains(leader);
    leaders.failed("s", leader);
    assertThat(leaders.first("s")).isEmpty();
    assertThat(looked).as("looked up again at once").hasSize(2);
  }

  @Test
  void aHintNamingNoConfiguredEndpointIsRememberedAsUnknownWithoutLookingUpEachCall() {
    leaders.first("s");
    leaders.first("s");
    lookups.get(0).complete(Optional.empty());
    for (int i = 0; i < 5; i++) {
      assertThat(leaders.first("s")).isEmpty();
    }
    assertThat(looked).hasSize(1);
  }

  @Test
  void atMostStreamsMaxAreRemembered() {
    for (int i = 0; i < StreamLeaders.STREAMS_MAX + 100; i++) {
      leaders.first("s" + i);
    }
    assertThat(leaders.size()).isEqualTo(StreamLeaders.STREAMS_MAX);
  }
}
