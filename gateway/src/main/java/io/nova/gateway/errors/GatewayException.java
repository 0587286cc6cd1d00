package io.nova.gateway.errors;

import io.nova.proto.v1.ErrorDetail;

/**
 * An operating error on its way to the client: carries the typed detail that becomes the gRPC status
 * (see {@link StatusMapper}). Thrown inside the gateway, translated at the service edge; never a bug.
 */
public final class GatewayException extends RuntimeException {

  private final transient ErrorDetail detail;

  public GatewayException(ErrorDetail detail) {
    super(detail.getMessage(), null, false, false);
    this.detail = detail;
  }

  public ErrorDetail detail() {
    return detail;
  }

  /**
   * The typed error behind an asynchronous failure: the detail of a {@link GatewayException} (possibly
   * wrapped in a {@link java.util.concurrent.CompletionException}), else INTERNAL naming {@code where}.
   */
  public static ErrorDetail detailOf(Throwable failure, String where) {
    Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
    return cause instanceof GatewayException ge ? ge.detail()
        : io.nova.protocol.errors.Errors.internal(where + " failed inside the gateway: " + cause);
  }
}
