package io.nova.statemachine.meta;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nova.proto.internal.IssueTokenCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.RevokeTokenCommand;
import io.nova.proto.internal.StoredToken;
import io.nova.proto.v1.AccessTokenInfo;
import io.nova.proto.v1.AccessTokenScope;
import io.nova.proto.v1.Operation;
import io.nova.statemachine.store.AppliedIndex;
import io.nova.statemachine.store.MetaStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that the meta state stores access tokens as hashes only, answers them by id and in a list,
 * refuses a second bootstrap even after the first token was revoked, revokes idempotently, refuses bad
 * scopes at apply, and that all of it survives a reopen of the RocksDB store (what a snapshot install
 * and a restart rebuild from).
 */
class MetaStateTokensTest {

  @TempDir Path dir;

  static StoredToken token(String id, String basinPrefix) {
    return StoredToken.newBuilder().setSecretSha256(ByteString.copyFrom(new byte[32]))
        .setInfo(AccessTokenInfo.newBuilder().setId(id).setIssuedAtMs(5).setScope(AccessTokenScope.newBuilder()
            .setBasinPrefix(basinPrefix).addOperations(Operation.OPERATION_READ))).build();
  }

  static MetaCommand issue(StoredToken token, boolean bootstrap) {
    return MetaCommand.newBuilder().setIssueToken(IssueTokenCommand.newBuilder().setToken(token)
        .setBootstrap(bootstrap)).build();
  }

  static MetaCommand revoke(String id) {
    return MetaCommand.newBuilder().setRevokeToken(RevokeTokenCommand.newBuilder().setId(id).setRevokedAtMs(9))
        .build();
  }

  static StoredToken admin(String id, long expiresAtMs, String basinPrefix) {
    return StoredToken.newBuilder().setSecretSha256(ByteString.copyFrom(new byte[32]))
        .setInfo(AccessTokenInfo.newBuilder().setId(id).setIssuedAtMs(5).setExpiresAtMs(expiresAtMs)
            .setScope(AccessTokenScope.newBuilder().setBasinPrefix(basinPrefix)
                .addOperations(Operation.OPERATION_CLUSTER_ADMIN))).build();
  }

  /** Revoking the last active cluster-admin token is refused (it would lock token administration out). */
  @Test
  void theLastActiveClusterAdminTokenCannotBeRevoked() {
    MetaState state = new MetaState(1);
    long index = 0;
    assertThat(state.apply(issue(admin("AAAAAAAAAAA", 0, ""), true), ++index).result().hasError()).isFalse();
    // Neither an expired nor a revoked nor a scoped one counts as another administrator.
    assertThat(state.apply(issue(admin("EEEEEEEEEEE", 8, ""), false), ++index).result().hasError()).isFalse();
    MetaState.Applied refused = state.apply(revoke("AAAAAAAAAAA"), ++index);
    assertThat(refused.result().getError().getInvalidArgument().getField()).isEqualTo("id");
    assertThat(refused.result().getError().getMessage()).contains("last active cluster-admin token",
        "Issue another cluster-admin token first");
    assertThat(refused.change()).isInstanceOf(MetaChange.None.class);
    assertThat(state.getToken("AAAAAAAAAAA").orElseThrow().getInfo().getRevoked()).as("nothing changed").isFalse();

    assertThat(state.apply(issue(admin("BBBBBBBBBBB", 0, ""), false), ++index).result().hasError()).isFalse();
    assertThat(state.apply(revoke("AAAAAAAAAAA"), ++index).result().hasError()).as("another admin exists").isFalse();
    assertThat(state.apply(revoke("BBBBBBBBBBB"), ++index).result().getError().hasInvalidArgument())
        .as("now B is the last one").isTrue();
  }

  @Test
  void tokensAreStoredRevokedAndReloaded() {
    MetaState state = new MetaState(1);
    try (MetaStore store = new MetaStore(dir)) {
      long index = 0;
      for (MetaCommand c : List.of(issue(token("AAAAAAAAAAA", ""), true), revoke("AAAAAAAAAAA"),
          issue(token("BBBBBBBBBBB", "team-"), false))) {
        MetaState.Applied applied = state.apply(c, ++index);
        assertThat(applied.result().hasError()).as(applied.result().toString()).isFalse();
        store.applyBatch(new AppliedIndex(1, index), applied.change());
      }
      assertThat(state.apply(issue(token("CCCCCCCCCCC", ""), true), 10).result().getError().hasAlreadyExists())
          .as("a second bootstrap is refused though the first token is revoked").isTrue();
      MetaState.Applied again = state.apply(revoke("AAAAAAAAAAA"), 11);
      assertThat(again.result().getToken().getRevokedAtMs()).isEqualTo(9);
      assertThat(again.change()).isInstanceOf(MetaChange.None.class);
      assertThat(state.apply(revoke("ZZZZZZZZZZZ"), 12).result().getError().hasNotFound()).isTrue();
      assertThat(state.apply(issue(token("DDDDDDDDDDD", "Team/x"), false), 13).result().getError()
          .hasInvalidArgument()).as("a basin prefix no basin name can start with").isTrue();
      assertThat(state.apply(issue(token("BBBBBBBBBBB", ""), false), 14).result().getError().hasAlreadyExists())
          .isTrue();
    }
    try (MetaStore store = new MetaStore(dir)) {
      MetaState reloaded = MetaState.restore(1, store.loadBasins(), store.loadStreams(), store.loadTokens());
      assertThat(reloaded.getToken("AAAAAAAAAAA").orElseThrow().getInfo().getRevoked()).isTrue();
      assertThat(reloaded.getToken("BBBBBBBBBBB").orElseThrow().getInfo().getScope().getBasinPrefix())
          .isEqualTo("team-");
      assertThat(reloaded.query(MetaQuery.newBuilder().setGetToken("ZZZZZZZZZZZ").build()).getError().hasNotFound())
          .isTrue();
      assertThat(reloaded.query(MetaQuery.newBuilder().setListTokens(io.nova.proto.internal.Done.getDefaultInstance())
          .build()).getTokens().getTokensList()).extracting(AccessTokenInfo::getId)
          .containsExactly("AAAAAAAAAAA", "BBBBBBBBBBB");
      assertThat(reloaded.apply(issue(token("EEEEEEEEEEE", ""), true), 20).result().getError().hasAlreadyExists())
          .as("the bootstrap guard survives a restart").isTrue();
    }
  }
}
