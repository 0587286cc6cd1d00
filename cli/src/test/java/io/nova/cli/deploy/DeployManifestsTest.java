package io.nova.cli.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.nova.cluster.config.HostPort;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.PeerAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exercises the deployment files under {@code deploy/} as far as a machine without Kubernetes or a
 * running systemd allows (deploy/README.md says what remains untested):
 *
 * <ul>
 *   <li>the Kubernetes manifest: every document has the fields its kind requires; each node file of the
 *       ConfigMap is a configuration Nova's own loader accepts, naming the StatefulSet's pods; the
 *       container's ports, the Services' ports and the probes match the ports those files give the
 *       node, and the probe paths are the node's health routes;
 *   <li>the systemd unit: {@code systemd-analyze verify} (which reads unit files without a running
 *       systemd) finds nothing to say about it, its command being replaced by an executable that exists;
 *       skipped where systemd-analyze is not installed;
 *   <li>the compose file: no obsolete top-level {@code version:} key, and every node runs the same
 *       {@code server --config} command as the manifest and the unit.
 * </ul>
 */
class DeployManifestsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  /** The fields every Kubernetes object needs, beyond which each kind checked here needs its own. */
  private static final List<String> OBJECT_FIELDS = List.of("apiVersion", "kind", "metadata");

  @TempDir Path dir;

  private static Path deploy() {
    // Surefire runs in the module's folder (cli/); deploy/ is its sibling.
    Path here = Path.of("").toAbsolutePath();
    Path deploy = here.resolveSibling("deploy");
    assertThat(deploy.resolve("k8s").resolve("nova.yaml")).as("deploy/ beside %s", here).isRegularFile();
    return deploy;
  }

  private static List<JsonNode> documents(Path file) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
      while (it.hasNext()) {
        JsonNode doc = it.next();
        if (doc != null && !doc.isNull() && !doc.isEmpty()) {
          docs.add(doc);
        }
      }
    }
    return docs;
  }

  @Test
  void theKubernetesManifestIsWellFormedAndMatchesTheNodesPorts() throws IOException {
    List<JsonNode> docs = documents(deploy().resolve("k8s").resolve("nova.yaml"));
    Map<String, JsonNode> byKindAndName = new HashMap<>();
    for (JsonNode doc : docs) {
      for (String field : OBJECT_FIELDS) {
        assertThat(doc.hasNonNull(field)).as("%s in %s", field, doc).isTrue();
      }
      assertThat(doc.path("metadata").path("name").asText()).as("metadata.name").matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
      byKindAndName.put(doc.path("kind").asText() + "/" + doc.path("metadata").path("name").asText(), doc);
    }
    assertThat(byKindAndName).containsKeys("Service/nova", "Service/nova-api", "PodDisruptionBudget/nova",
        "ConfigMap/nova-config", "StatefulSet/nova");

    JsonNode sts = byKindAndName.get("StatefulSet/nova");
    assertThat(sts.path("apiVersion").asText()).isEqualTo("apps/v1");
    JsonNode spec = sts.path("spec");
    assertThat(spec.path("serviceName").asText()).as("the headless Service").isEqualTo("nova");
    JsonNode podLabels = spec.path("template").path("metadata").path("labels");
    assertThat(podLabels).as("the selector matches the pod labels").isEqualTo(spec.path("selector").path("matchLabels"));
    JsonNode container = spec.path("template").path("spec").path("containers").get(0);
    assertThat(container.path("name").asText()).isNotEmpty();
    assertThat(container.path("image").asText()).as("an image with a tag").matches("[^\\s:]+(:[^\\s:]+)?:[\\w][\\w.-]*");
    int replicas = spec.path("replicas").asInt();

    // The node files, through Nova's own loader: one per pod, each naming its pod as its node.
    JsonNode data = byKindAndName.get("ConfigMap/nova-config").path("data");
    List<NodeConfig> nodes = new ArrayList<>();
    for (int i = 0; i < replicas; i++) {
      String pod = "nova-" + i;
      String key = "node-" + pod + ".yaml";
      assertThat(data.has(key)).as("a node file for pod %s", pod).isTrue();
      Path file = dir.resolve(key);
      Files.writeString(file, data.path(key).asText(), StandardCharsets.UTF_8);
      NodeConfig config = NodeConfig.load(file);
      assertThat(config.nodeId()).isEqualTo(pod);
      assertThat(config.nodes()).hasSize(replicas);
      nodes.add(config);
    }
    assertThat(data.size()).as("no node file without a pod").isEqualTo(replicas);
    // The args pick the pod's file from where the ConfigMap is mounted.
    List<String> args = new ArrayList<>();
    container.path("args").forEach(a -> args.add(a.asText()));
    assertThat(args).containsExactly("server", "--config", "/etc/nova/node-$(POD_NAME).yaml");
    assertThat(container.path("volumeMounts").findValuesAsText("mountPath")).contains("/etc/nova");

    // Every port the node files give a node is a named container port, and the probes use the HTTP one.
    PeerAddress self = nodes.get(0).self();
    Map<String, Integer> expected = Map.of("api", port(self.apiAddress()), "raft", port(self.raftAddress()),
        "http", port(self.httpAddress()));
    for (NodeConfig node : nodes) {
      assertThat(Map.of("api", port(node.self().apiAddress()), "raft", port(node.self().raftAddress()),
          "http", port(node.self().httpAddress()))).as("every node on the same ports").isEqualTo(expected);
    }
    Map<String, Integer> containerPorts = new HashMap<>();
    container.path("ports").forEach(p -> containerPorts.put(p.path("name").asText(), p.path("containerPort").asInt()));
    assertThat(containerPorts).isEqualTo(expected);
    for (String service : List.of("Service/nova", "Service/nova-api")) {
      byKindAndName.get(service).path("spec").path("ports").forEach(p -> assertThat(p.path("port").asInt())
          .as("%s port %s", service, p.path("name").asText()).isEqualTo(expected.get(p.path("name").asText())));
    }
    JsonNode readiness = container.path("readinessProbe").path("httpGet");
    JsonNode liveness = container.path("livenessProbe").path("httpGet");
    assertThat(readiness.path("port").asText()).isEqualTo("http");
    assertThat(liveness.path("port").asText()).isEqualTo("http");
    // The node's health routes (gateway HealthRoutes): /ready is 200 once its groups have leaders.
    assertThat(readiness.path("path").asText()).isEqualTo("/ready");
    assertThat(liveness.path("path").asText()).isEqualTo("/health");

    JsonNode pdb = byKindAndName.get("PodDisruptionBudget/nova").path("spec");
    assertThat(pdb.path("selector").path("matchLabels")).isEqualTo(podLabels);
    assertThat(pdb.path("maxUnavailable").asInt()).as("a Raft majority stays up")
        .isLessThanOrEqualTo(replicas - (replicas / 2 + 1)).isPositive();
  }

  private static int port(String address) {
    return HostPort.parse(address, "address").port();
  }

  @Test
  void theComposeFileHasNoVersionKeyAndRunsTheServerVerb() throws IOException {
    List<JsonNode> docs = documents(deploy().resolve("docker-compose.yml"));
    assertThat(docs).hasSize(1);
    JsonNode compose = docs.get(0);
    assertThat(compose.has("version")).as("the obsolete top-level version key").isFalse();
    assertThat(compose.path("services").size()).isEqualTo(3);
    List<String> command = new ArrayList<>();
    compose.path("x-node").path("command").forEach(c -> command.add(c.asText()));
    assertThat(command).containsExactly("server", "--config", "/etc/nova/node.yaml");
  }

  @Test
  void theSystemdUnitPassesSystemdAnalyzeVerify() throws Exception {
    Path unit = deploy().resolve("systemd").resolve("nova.service");
    String text = Files.readString(unit, StandardCharsets.UTF_8);
    assertThat(text).contains("ExecStart=/opt/nova/bin/nova server --config /etc/nova/node.yaml");
    Assumptions.assumeTrue(onPath("systemd-analyze"), "systemd-analyze is not installed");
    // verify also checks that the command exists: point it at an executable that does.
    Path nova = dir.resolve("nova");
    Files.writeString(nova, "#!/bin/sh\nexit 0\n");
    assertThat(nova.toFile().setExecutable(true)).isTrue();
    Path copy = dir.resolve("nova.service");
    Files.writeString(copy, text.replace("/opt/nova/bin/nova", nova.toString()), StandardCharsets.UTF_8);
    Process p = new ProcessBuilder("systemd-analyze", "verify", copy.toString()).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(said).as("systemd-analyze verify's findings").isEmpty();
    assertThat(p.exitValue()).isZero();
  }

  private static boolean onPath(String program) {
    for (String folder : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!folder.isEmpty() && Files.isExecutable(Path.of(folder, program))) {
        return true;
      }
    }
    return false;
  }
}
