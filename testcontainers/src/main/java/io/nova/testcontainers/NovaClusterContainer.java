package io.nova.testcontainers;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.testcontainers.containers.Network;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.lifecycle.Startable;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;

/**
 * A 3-node Nova cluster in containers on a network of its own, for tests that need replication (a node
 * stopped while the others serve, leaders elsewhere than the node called).
 *
 * <pre>{@code
 * try (NovaClusterContainer cluster = new NovaClusterContainer(DockerImageName.parse("nova:local"))) {
 *   cluster.start();
 *   NovaClient client = NovaClient.builder().endpoints(cluster.getEndpoints()).build();
 * }
 * }</pre>
 *
 * <p>The nodes are named {@code n1} to {@code n3} on that network and each lists the three as its
 * peers; {@link #start()} starts them together and returns once every one answers {@code /ready}. A node
 * names its peers by their network names in routing hints, which the test's client cannot reach; the
 * client then keeps using the endpoints it was given, each of which forwards to the right leader. Not
 * thread-safe; {@link #stop()} (or {@link #close()}) removes the containers and the network.
 */
public class NovaClusterContainer implements Startable {

    /** The number of nodes. */
    public static final int NODES = 3;
    /** The number of shard groups the cluster is created with. */
    public static final int SHARD_COUNT = 4;

    private final Network network = Network.newNetwork();
    private final List<NovaContainer> nodes = new ArrayList<>(NODES);

    /**
     * A cluster of three nodes of {@code image}, which must be a Nova node image. Nothing starts yet.
     *
     * @throws NullPointerException if {@code image} is null
     */
    public NovaClusterContainer(DockerImageName image) {
        Objects.requireNonNull(image, "image");
        for (int i = 1; i <= NODES; i++) {
            String id = "n" + i;
            nodes.add(new NovaContainer(image)
                    .withNetwork(network)
                    .withNetworkAliases(id)
                    .withCreateContainerCmdModifier(cmd -> cmd.withHostName(id))
                    .withCopyToContainer(Transferable.of(nodeYaml(id)), "/etc/nova/node.yaml"));
        }
    }

    /** {@link #NovaClusterContainer(DockerImageName)} with the image named {@code image}. */
    public NovaClusterContainer(String image) {
        this(DockerImageName.parse(image));
    }

    /** The node configuration of {@code id}: the three nodes by their network names, listening everywhere. */
    static String nodeYaml(String id) {
        StringBuilder yaml = new StringBuilder("cluster-name: nova-test\nnode-id: ").append(id)
                .append("\ndata-dir: /var/lib/nova/data\nshard-count: ").append(SHARD_COUNT)
                .append("\nelection-timeout-ms: 1000\nbind-host: 0.0.0.0\nnodes:\n");
        for (int i = 1; i <= NODES; i++) {
            yaml.append("  - id: n").append(i)
                    .append("\n    raft-address: n").append(i).append(':').append(NovaContainer.RAFT_PORT)
                    .append("\n    api-address: n").append(i).append(':').append(NovaContainer.API_PORT)
                    .append("\n    http-address: n").append(i).append(':').append(NovaContainer.HTTP_PORT)
                    .append('\n');
        }
        return yaml.toString();
    }

    /** Starts the three nodes together and waits until each is ready. */
    @Override
    public void start() {
        Startables.deepStart(nodes).join();
    }

    /** Stops and removes the nodes, then the network. */
    @Override
    public void stop() {
        nodes.forEach(NovaContainer::stop);
        network.close();
    }

    /** The nodes, {@code n1} first. */
    public List<NovaContainer> getNodes() {
        return List.copyOf(nodes);
    }

    /**
     * Every node's gRPC endpoint as seen from the test, comma-separated: what
     * {@code NovaClient.builder().endpoints(String)} takes. Only valid once started.
     */
    public String getEndpoints() {
        return nodes.stream().map(NovaContainer::getEndpoint).collect(Collectors.joining(","));
    }
}
