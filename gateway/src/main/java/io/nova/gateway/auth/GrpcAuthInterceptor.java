package io.nova.gateway.auth;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.errors.StatusMapper;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListBasinsResponse;
import io.nova.proto.v1.ListStreamsRequest;
import java.util.Optional;

/**
 * Enforces access tokens on gRPC calls: the token is read from the {@code authorization} metadata
 * ({@code Bearer TOKEN}) when the call starts, and the call's first message decides what it needs
 * ({@link GrpcAccess}). The service sees the call only once both passed: until then nothing reaches it,
 * so a refused call changes nothing. A refusal closes the call with UNAUTHENTICATED or PERMISSION_DENIED
 * and the typed detail; nothing else is sent.
 *
 * <p>A session is authorized when it opens and then re-checked as it runs ({@link #SESSION_CHECK},
 * {@link SessionCheck}): once its token is revoked or expired it ends with UNAUTHENTICATED. The verified bearer value is put in the call's {@link Context} under
 * {@link #BEARER}, so calls this node makes to its peers on the caller's behalf (node info for the
 * cluster status) present it too. Thread-safe.
 */
public final class GrpcAuthInterceptor implements ServerInterceptor {

  /** The metadata key gRPC call credentials use. */
  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  /** The caller's {@code authorization} value, set for the call's handlers once it was verified. */
  public static final Context.Key<String> BEARER = Context.key("nova-authorization");
  /** The caller's verified {@link Principal}, set for the call's handlers (token issue checks against it). */
  public static final Context.Key<Principal> PRINCIPAL = Context.key("nova-principal");

  /** The check an open session repeats ({@link SessionCheck}), set for the call's handlers. */
  public static final Context.Key<SessionCheck> SESSION_CHECK = Context.key("nova-session-check");

  /** The session check of the current call: {@link SessionCheck#NONE} when the call was not authorized here. */
  public static SessionCheck sessionCheck() {
    SessionCheck check = SESSION_CHECK.get();
    return check == null ? SessionCheck.NONE : check;
  }

  private final Authorizer authorizer;

  public GrpcAuthInterceptor(Authorizer authorizer) {
    this.authorizer = authorizer;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
      ServerCallHandler<ReqT, RespT> next) {
    String rpc = call.getMethodDescriptor().getFullMethodName();
    Iterable<String> values = headers.getAll(AUTHORIZATION);
    java.util.List<String> authorizations = new java.util.ArrayList<>();
    if (values != null) {
      values.forEach(authorizations::add);
    }
    String authorization = authorizations.isEmpty() ? null : authorizations.get(0);
    Principal principal;
    try {
      principal = authorizer.authenticate(rpc, authorizations);
    } catch (GatewayException e) {
      refuse(call, e);
      return new ServerCall.Listener<>() {};
    }
    // The first message is needed to know what the call is about: ask for it ourselves.
    call.request(1);
    return new Gate<>(call, headers, next, rpc, principal, Context.current()
        .withValues(BEARER, authorization, PRINCIPAL, principal, SESSION_CHECK,
            SessionCheck.of(authorizer, rpc, authorization)));
  }

  /** Ends the call with the typed error, as every Nova RPC answers one (the detail in the trailers). */
  private static void refuse(ServerCall<?, ?> call, GatewayException e) {
    StatusRuntimeException answer = StatusMapper.toStatusException(e.detail());
    call.close(answer.getStatus(), answer.getTrailers() == null ? new Metadata() : answer.getTrailers());
  }

  /**
   * Holds a call back until its first message is authorized, then starts the service's handler and
   * hands it that message and everything after. Events arrive serialized (gRPC's guarantee).
   */
  private final class Gate<ReqT, RespT> extends ServerCall.Listener<ReqT> {
    private final ServerCall<ReqT, RespT> call;
    private final Metadata headers;
    private final ServerCallHandler<ReqT, RespT> next;
    private final String rpc;
    private final Principal principal;
    private final Context context;
    /** Null until the first message passed; then every event goes to it. */
    private ServerCall.Listener<ReqT> delegate;
    private boolean refused;

    Gate(ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next, String rpc,
        Principal principal, Context context) {
      this.call = call;
      this.headers = headers;
      this.next = next;
      this.rpc = rpc;
      this.principal = principal;
      this.context = context;
    }

    @Override
    public void onMessage(ReqT message) {
      if (refused) {
        return;
      }
      if (delegate != null) {
        delegate.onMessage(message);
        return;
      }
      ReqT admitted;
      try {
        Optional<Access> access = GrpcAccess.of(message);
        if (access.isPresent()) {
          authorizer.check(rpc, principal, access.get());
        }
        admitted = scoped(message);
      } catch (GatewayException e) {
        refused = true;
        refuse(call, e);
        return;
      }
      delegate = Contexts.interceptCall(context, scopedCall(), headers, next);
      delegate.onReady();
      delegate.onMessage(admitted);
    }

    @SuppressWarnings("unchecked")
    private ReqT scoped(ReqT message) {
      if (message instanceof ListBasinsRequest r) {
        return (ReqT) ListScoping.narrow(principal.scope(), r);
      }
      if (message instanceof ListStreamsRequest r) {
        return (ReqT) ListScoping.narrow(principal.scope(), r);
      }
      return message;
    }

    /**
     * The call as the handler sees it: basin pages are filtered to the scope, and the handler's first
     * request for messages is one smaller, since the first message (asked for by this gate) is handed to it
     * already: its flow control (an append session's in-flight window) stays exact.
     */
    private ServerCall<ReqT, RespT> scopedCall() {
      return new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
        private boolean firstDelivered;

        @Override
        public void request(int numMessages) {
          int more = numMessages;
          if (!firstDelivered) {
            firstDelivered = true;
            more--;
          }
          if (more > 0) {
            super.request(more);
          }
        }

        @Override
        @SuppressWarnings("unchecked")
        public void sendMessage(RespT message) {
          super.sendMessage(message instanceof ListBasinsResponse page
              ? (RespT) ListScoping.filter(principal.scope(), page) : message);
        }
      };
    }

    @Override
    public void onHalfClose() {
      if (delegate != null) {
        delegate.onHalfClose();
      } else if (!refused) {
        // The client sent nothing: there is nothing to authorize or serve.
        refused = true;
        call.close(Status.INVALID_ARGUMENT.withDescription("the call ended without a request message"),
            new Metadata());
      }
    }

    @Override
    public void onCancel() {
      if (delegate != null) {
        delegate.onCancel();
      }
    }

    @Override
    public void onComplete() {
      if (delegate != null) {
        delegate.onComplete();
      }
    }

    @Override
    public void onReady() {
      if (delegate != null) {
        delegate.onReady();
      }
    }
  }
}
