package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.AppendRecord;
import io.nova.client.IssuedToken;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.TokenOperation;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.PermissionDeniedException;
import io.nova.cluster.auth.AuthSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that fencing tokens stay concurrency control and access tokens authorization, independently: a
 * writer whose access token allows append is still fenced out by another writer's Fence, and presenting
 * the installed fencing token grants nothing to an access token without append (or fence). An append
 * session authorized when it opens carries its batches as without auth.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FencingIsNotAuthorizationTest {

  AuthCluster auth;
  final StreamAddress stream = new StreamAddress("demo", "events");
  final StreamAddress owned = new StreamAddress("demo", "owned");

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    auth = AuthCluster.start(dir, 1, AuthSettings.ON);
    try (NovaClient admin = auth.admin()) {
      admin.createBasin("demo");
      admin.createStream(stream);
      admin.createStream(owned);
      admin.fence(owned, "gen-1");
    }
  }

  @AfterAll
  void stop() {
    if (auth != null) {
      auth.close();
    }
  }

  @Test
  void aWriterWithAppendIsStillFencedOut() {
    IssuedToken writer = auth.issue("demo/", "", EnumSet.of(TokenOperation.APPEND), Duration.ZERO);
    IssuedToken successor = auth.issue("demo/", "", EnumSet.of(TokenOperation.APPEND, TokenOperation.FENCE),
        Duration.ZERO);
    try (NovaClient old = auth.client(writer.secret()); NovaClient next = auth.client(successor.secret());
        NovaClient admin = auth.admin()) {
      old.presenting("gen-1").append(owned, List.of(AppendRecord.ofUtf8("while gen-1 stands")));
      next.fence(owned, "gen-2");
      long tail = admin.checkTail(owned).seqNum();
      assertThatThrownBy(() -> old.presenting("gen-1").append(owned, List.of(AppendRecord.ofUtf8("late"))))
          .isInstanceOf(FencedOutException.class);
      assertThatThrownBy(() -> old.append(owned, List.of(AppendRecord.ofUtf8("no token"))))
          .isInstanceOf(FencedOutException.class);
      assertThat(admin.checkTail(owned).seqNum()).isEqualTo(tail);
      next.presenting("gen-2").append(owned, List.of(AppendRecord.ofUtf8("current")));
      assertThat(admin.checkTail(owned).seqNum()).isEqualTo(tail + 1);
    }
  }

  @Test
  void anAppendSessionAuthorizedAtOpenCarriesManyBatches() throws Exception {
    StreamAddress session = new StreamAddress("demo", "session");
    IssuedToken writer = auth.issue("demo/", "session", EnumSet.of(TokenOperation.APPEND), Duration.ZERO);
    try (NovaClient admin = auth.admin(); NovaClient client = auth.client(writer.secret())) {
      admin.createStream(session);
      try (io.nova.client.Producer producer = client.openStream(session)) {
        java.util.List<java.util.concurrent.CompletableFuture<io.nova.client.AppendAck>> acks = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
          acks.add(producer.append(List.of(AppendRecord.ofUtf8("r" + i))));
        }
        producer.flush();
        for (var ack : acks) {
          ack.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
      }
      assertThat(admin.checkTail(session).seqNum()).isEqualTo(200);
    }
  }

  @Test
  void theInstalledFencingTokenGrantsNoAccess() {
    IssuedToken reader = auth.issue("demo/", "", EnumSet.of(TokenOperation.READ), Duration.ZERO);
    try (NovaClient admin = auth.admin(); NovaClient client = auth.client(reader.secret())) {
      admin.fence(stream, "gen-3");
      long tail = admin.checkTail(stream).seqNum();
      assertThatThrownBy(() -> client.presenting("gen-3").append(stream, List.of(AppendRecord.ofUtf8("x"))))
          .isInstanceOf(PermissionDeniedException.class).hasMessageContaining("append");
      assertThatThrownBy(() -> client.fence(stream, "gen-3"))
          .isInstanceOf(PermissionDeniedException.class).hasMessageContaining("fence");
      assertThat(admin.checkTail(stream).seqNum()).isEqualTo(tail);
      assertThat(admin.fencingToken(stream)).contains("gen-3");
    }
  }
}
