package io.nova.gateway.auth;

import io.nova.gateway.errors.GatewayException;
import io.nova.proto.v1.ErrorDetail;
import java.util.Optional;

/**
 * Whether the access token a session was opened with still holds: an append session asks before each
 * batch it admits and, while idle, about once a second; a read session (gRPC or SSE) before each read
 * step, which comes at least once per heartbeat interval. A revoked token is therefore seen within
 * {@code auth.cache-ttl-ms} plus one meta read (the {@link TokenVerifier}'s bound) plus, for an idle
 * session, one such interval; an expired one at the next check, since expiry is judged on every check. A check that cannot reach the meta group
 * lets the session go on: the token was valid at the last read, and failing every open session during a
 * meta election would turn a brief election into a cluster-wide reconnect. Thread-safe.
 */
@FunctionalInterface
public interface SessionCheck {

  /** The check of a cluster without access tokens: every session goes on. */
  SessionCheck NONE = Optional::empty;

  /** The UNAUTHENTICATED that ends the session, or empty while its token holds. */
  Optional<ErrorDetail> refusal();

  /**
   * The check of a session opened with {@code authorization} for {@code call} (an RPC or
   * {@code METHOD /path}, for the log).
   */
  static SessionCheck of(Authorizer authorizer, String call, String authorization) {
    return () -> {
      try {
        authorizer.authenticate(call, authorization);
        return Optional.empty();
      } catch (GatewayException e) {
        return e.detail().hasUnauthenticated() ? Optional.of(e.detail()) : Optional.empty();
      }
    };
  }
}
