package io.nova.cluster.config;

import java.util.Objects;

/**
 * One node of the cluster as every member knows it.
 *
 * @param id          the node id: 1–32 characters from {@code [A-Za-z0-9_-]}, unique in the cluster
 * @param raftAddress {@code host:port} where the node's Ratis server listens (replication and group clients)
 * @param apiAddress  {@code host:port} where the node's gRPC gateway listens for clients
 */
public record PeerAddress(String id, String raftAddress, String apiAddress) {

  public PeerAddress {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(raftAddress, "raft-address");
    Objects.requireNonNull(apiAddress, "api-address");
    if (!id.matches("[A-Za-z0-9_-]{1,32}")) {
      throw new IllegalArgumentException(
          "node id '" + id + "' must be 1-32 characters from [A-Za-z0-9_-]");
    }
    HostPort.parse(raftAddress, "raft-address of node " + id);
    HostPort.parse(apiAddress, "api-address of node " + id);
  }
}
