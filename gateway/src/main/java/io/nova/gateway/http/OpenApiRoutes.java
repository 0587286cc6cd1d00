package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** {@code GET /v1/openapi.json}: the OpenAPI 3.1 document of this API, the resource {@value #RESOURCE}. */
final class OpenApiRoutes implements HttpRoutes {

  static final String RESOURCE = "/openapi/nova-v1.json";

  private final byte[] document;

  OpenApiRoutes() {
    this.document = load();
  }

  /** The document's bytes, read from the class path. */
  static byte[] load() {
    try (InputStream in = OpenApiRoutes.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the OpenAPI document " + RESOURCE + " is missing from the class path");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void register(RoutesConfig routes) {
    routes.get("/v1/openapi.json", this::serve);
  }

  private void serve(Context ctx) {
    QueryParams.of(ctx, java.util.Set.of());
    ctx.status(200).contentType(Json.CONTENT_TYPE).result(document);
  }
}
