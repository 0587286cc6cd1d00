/**
 * The S2-compatible REST surface (docs/adr/0022-s2-compatible-rest.md): S2's account and basin endpoints,
 * JSON shapes, status codes and error bodies, mounted under {@link io.nova.gateway.s2.S2Routes#PREFIX} beside
 * Nova's own {@code /v1/basins/...} API, adapting the same data and control planes. What differs from S2 is
 * listed in docs/http-api.md.
 */
package io.nova.gateway.s2;
