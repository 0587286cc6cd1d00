package io.nova.cli;

import io.nova.client.errors.DeadlineExceededException;
import io.nova.client.errors.UnavailableException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Optional;

/**
 * Says a failure to reach the cluster in the user's terms: which endpoints were tried, that none
 * answered within {@code --timeout}, and what to check, instead of gRPC's status text (its exception
 * class names, "CallOptions deadline exceeded", "finishConnect(..) failed with error(-111)"). Only a
 * failure with no answer at all is said so: an UNAVAILABLE answered by a node (e.g. a group without a
 * leader) keeps its own message. Stateless.
 */
final class Unreachable {

  private Unreachable() {}

  /**
   * The sentence for {@code e}, or empty when it is not a failure to get any answer.
   *
   * @param endpoints the {@code --endpoints} value the client tried, in order
   * @param timeout the {@code --timeout} that bounded the call, its retries included
   */
  static Optional<String> explain(Throwable e, String endpoints, Duration timeout) {
    String what;
    if (e instanceof UnavailableException && causedByConnect(e)) {
      what = "no node answered: the connection was refused";
    } else if (e instanceof DeadlineExceededException) {
      what = "no node answered within " + Durations.format(timeout);
    } else {
      return Optional.empty();
    }
    String tried = String.join(", ", endpoints.split(","));
    return Optional.of(what + "; endpoints tried: " + tried + ". Check that the cluster runs and that"
        + " --endpoints (or NOVA_ENDPOINTS) names its API addresses, or allow more time with --timeout");
  }

  private static boolean causedByConnect(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }
}
