package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.cluster.metrics.MetricsExposition;
import java.util.Set;

/**
 * {@code GET /metrics}: this node's metrics (docs/metrics.md) in the Prometheus text format, or as
 * Dropwizard's JSON with {@code ?format=json}. Values are read live at each scrape; counters start at
 * zero when the node starts. {@code format} is the only query parameter (400 for any other).
 */
public final class MetricsRoutes implements HttpRoutes {

  private final MetricsExposition exposition;

  public MetricsRoutes(MetricsExposition exposition) {
    this.exposition = exposition;
  }

  @Override
  public void register(RoutesConfig routes) {
    routes.get("/metrics", this::metrics);
  }

  private void metrics(Context ctx) {
    String format = QueryParams.of(ctx, Set.of("format")).string("format").orElse(null);
    if (format == null || format.equals("prometheus")) {
      ctx.status(200).contentType(MetricsExposition.PROMETHEUS_CONTENT_TYPE).result(exposition.prometheusText());
    } else if (format.equals("json")) {
      ctx.status(200).contentType(MetricsExposition.JSON_CONTENT_TYPE).result(exposition.json());
    } else {
      throw ApiError.invalidArgument("format", "prometheus or json",
          "query parameter format must be 'prometheus' (the default) or 'json', not '" + format + "'");
    }
  }
}
