package io.nova.testcontainers;

import java.time.Duration;
import java.util.Objects;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * One Nova node in a container, for tests of code that uses Nova: a single-node cluster of its own by
 * default (the image's built-in configuration), or a member of a {@link NovaClusterContainer}.
 *
 * <pre>{@code
 * try (NovaContainer nova = new NovaContainer(DockerImageName.parse("nova:local"))) {
 *   nova.start();
 *   NovaClient client = NovaClient.builder().endpoints(nova.getEndpoint()).build();
 * }
 * }</pre>
 *
 * <p>The container is started when {@link #start()} returns and the node answers {@code /ready} on its
 * HTTP port (within {@link #STARTUP_TIMEOUT}). The image is Nova's node image ({@code deploy/Dockerfile}),
 * which needs no registry when built by {@code deploy/build-image.sh}. Not thread-safe; configure it
 * before {@link #start()}.
 */
public class NovaContainer extends GenericContainer<NovaContainer> {

    /** The gRPC API port inside the container (clients, the {@code nova} command). */
    public static final int API_PORT = 7701;
    /** The Raft port inside the container (node to node only). */
    public static final int RAFT_PORT = 7801;
    /** The HTTP/JSON API port inside the container ({@code /v1/...}, {@code /health}, {@code /ready}). */
    public static final int HTTP_PORT = 7901;
    /** How long {@link #start()} waits for the node to be ready. */
    public static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);

    /**
     * A node of {@code image}, which must be a Nova node image.
     *
     * @throws NullPointerException if {@code image} is null
     */
    public NovaContainer(DockerImageName image) {
        super(Objects.requireNonNull(image, "image"));
        withExposedPorts(API_PORT, HTTP_PORT);
        waitingFor(Wait.forHttp("/ready").forPort(HTTP_PORT).forStatusCode(200).withStartupTimeout(STARTUP_TIMEOUT));
    }

    /** {@link #NovaContainer(DockerImageName)} with the image named {@code image}, e.g. {@code "nova:local"}. */
    public NovaContainer(String image) {
        this(DockerImageName.parse(image));
    }

    /**
     * The node's gRPC endpoint as seen from the test, {@code host:port}: what
     * {@code NovaClient.builder().endpoints(...)} takes. Only valid once started.
     */
    public String getEndpoint() {
        return getHost() + ":" + getMappedPort(API_PORT);
    }

    /** The node's HTTP/JSON API base URL as seen from the test, e.g. {@code http://localhost:32768}. Once started. */
    public String getHttpUrl() {
        return "http://" + getHost() + ":" + getMappedPort(HTTP_PORT);
    }
}
