package io.nova.gateway.s2;

import io.javalin.config.RoutesConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.gateway.controlplane.ControlPlane;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.gateway.http.HttpRoutes;
import java.time.Clock;

/**
 * The S2-compatible REST surface, mounted under {@link #PREFIX} (docs/adr/0022-s2-compatible-rest.md):
 * S2's account endpoints ({@code /basins}) and basin endpoints ({@code /streams}, records, tail), the basin
 * of the latter named by the {@code s2-basin} header. Point an S2 SDK at it with both its account and
 * basin endpoints set to {@code http://HOST:PORT/s2/v1}. The same bounds as the Nova API apply (request
 * threads, body size, {@link NodeTuning#sseSessionsMax()} read sessions, counted apart). Thread-safe;
 * {@link #close()} ends its read sessions.
 */
public final class S2Routes implements HttpRoutes, AutoCloseable {

  /** The path prefix of every S2 route: apart from Nova's own {@code /v1/...}, so the two never collide. */
  public static final String PREFIX = "/s2/v1";

  private final S2Basins basins;
  private final S2Streams streams;
  private final S2RecordRoutes records;
  private final S2ReadSessions sessions;

  public S2Routes(DataPlane data, ControlPlane control, Clock clock, NodeTuning tuning) {
    int bodyBytesMax = tuning.httpRequestBodyBytesMax();
    this.sessions = new S2ReadSessions(data, clock, tuning);
    this.basins = new S2Basins(control, bodyBytesMax);
    this.streams = new S2Streams(control, bodyBytesMax);
    this.records = new S2RecordRoutes(data, sessions, bodyBytesMax);
  }

  @Override
  public void register(RoutesConfig routes) {
    basins.register(routes);
    streams.register(routes);
    records.register(routes);
  }

  /** Ends every S2 read session. */
  @Override
  public void close() {
    sessions.close();
  }
}
