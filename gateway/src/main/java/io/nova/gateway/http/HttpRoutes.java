package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;

/**
 * A group of routes mounted on a node's HTTP server (one per resource). Other modules of the node
 * (e.g. a metrics exposition) add theirs through {@link HttpServer#start}. Handlers run on the server's
 * bounded thread pool and may block while the cluster answers.
 */
@FunctionalInterface
public interface HttpRoutes {

  /** Adds this group's handlers to {@code routes}. */
  void register(RoutesConfig routes);
}
