package io.nova.gateway.it;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link ClusterFixture} that all tests of one class share, as a JUnit extension: started in a fresh
 * folder before the first test, closed (and its folder deleted) after the last. Register it as a
 * {@code static} field with {@code @RegisterExtension}.
 */
final class SharedClusterFixture implements BeforeAllCallback, AfterAllCallback {

  private final int nodes;
  private final int shards;
  private Path dir;
  private ClusterFixture fixture;

  SharedClusterFixture(int nodes, int shards) {
    this.nodes = nodes;
    this.shards = shards;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("nova-it-");
    fixture = new ClusterFixture(dir, nodes, shards);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      fixture.close();
    } finally {
      FileUtils.deleteDirectory(dir.toFile());
    }
  }

  /** The running fixture; only between the class's first and last test. */
  ClusterFixture get() {
    if (fixture == null) {
      throw new IllegalStateException("the shared cluster starts before the class's first test");
    }
    return fixture;
  }
}
