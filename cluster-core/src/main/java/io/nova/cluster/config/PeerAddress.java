package io.nova.cluster.config;

import java.util.Objects;

/**
 * One node of the cluster as every member knows it.
 *
 * @param id          the node id: 1–32 characters from {@code [A-Za-z0-9_-]}, unique in the cluster
 * @param raftAddress {@code host:port} where the node's Ratis server listens (replication and group clients)
 * @param apiAddress  {@code host:port} where the node's gRPC gateway listens for clients
 * @param httpAddress {@code host:port} where the node's HTTP/JSON API listens (YAML key {@code http-address});
 *                    when absent (null) it is the host of {@code apiAddress} with port api port +
 *                    {@value #HTTP_PORT_OFFSET} (api {@code 127.0.0.1:7701} gives {@code 127.0.0.1:7901}),
 *                    which must then be a valid port
 */
public record PeerAddress(String id, String raftAddress, String apiAddress, String httpAddress) {

  /** The default HTTP port is the API port plus this. */
  public static final int HTTP_PORT_OFFSET = 200;

  public PeerAddress {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(raftAddress, "raft-address");
    Objects.requireNonNull(apiAddress, "api-address");
    if (!id.matches("[A-Za-z0-9_-]{1,32}")) {
      throw new IllegalArgumentException(
          "node id '" + id + "' must be 1-32 characters from [A-Za-z0-9_-]");
    }
    HostPort.parse(raftAddress, "raft-address of node " + id);
    HostPort api = HostPort.parse(apiAddress, "api-address of node " + id);
    if (httpAddress == null) {
      httpAddress = defaultHttpAddress(id, api);
    }
    HostPort.parse(httpAddress, "http-address of node " + id);
  }

  /** A node whose HTTP address is the default derived from {@code apiAddress}. */
  public PeerAddress(String id, String raftAddress, String apiAddress) {
    this(id, raftAddress, apiAddress, null);
  }

  private static String defaultHttpAddress(String id, HostPort api) {
    int port = api.port() + HTTP_PORT_OFFSET;
    if (port > 65535) {
      throw new IllegalArgumentException("node " + id + " has no http-address and its default (api port "
          + api.port() + " + " + HTTP_PORT_OFFSET + ") is above 65535: set http-address explicitly");
    }
    return api.host() + ":" + port;
  }
}
