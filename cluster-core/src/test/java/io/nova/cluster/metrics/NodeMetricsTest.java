package io.nova.cluster.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cluster.layout.GroupSpec;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.Test;

/**
 * Proves a node's metrics live in their own registry and JMX domain: two nodes in one JVM count
 * separately, the MBeans exist while the node's metrics are open and are gone after close, and an
 * observed count cannot be moved by hand.
 */
class NodeMetricsTest {

  /** A counter registered as the gateway registers its own (io.nova.gateway.metrics.DataPlaneMetrics). */
  private static final String FENCES = "nova.fences.completed";
  private static final List<GroupSpec> GROUPS =
      List.of(new GroupSpec("meta", -1, RaftGroup.valueOf(RaftGroupId.randomId())));

  @Test
  void eachNodeHasItsOwnRegistryAndJmxDomainUntilClosed() throws Exception {
    MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
    String a = "jmx-a-" + System.nanoTime();
    String b = "jmx-b-" + System.nanoTime();
    ObjectName aFences = new ObjectName("nova." + a + ":name=" + FENCES + ",type=counters");
    try (NodeMetrics first = NodeMetrics.start(a, GROUPS, g -> Optional.empty());
        NodeMetrics second = NodeMetrics.start(b, GROUPS, g -> Optional.empty())) {
      first.registry().counter(FENCES).inc();
      first.registry().counter(FENCES).inc();
      second.registry().counter(FENCES).inc();

      assertThat(first.jmxDomain()).isEqualTo("nova." + a);
      assertThat(mbeans.getAttribute(aFences, "Count")).isEqualTo(2L);
      assertThat(mbeans.getAttribute(new ObjectName("nova." + b + ":name=" + FENCES
          + ",type=counters"), "Count")).isEqualTo(1L);
      assertThat(mbeans.queryNames(new ObjectName("nova." + a + ":name=nova.group.meta.*,*"), null))
          .hasSize(GroupMetrics.ALL.size());
    }
    assertThat(mbeans.queryNames(new ObjectName("nova." + a + ":*"), null)).isEmpty();
    assertThat(mbeans.isRegistered(aFences)).isFalse();
  }

  @Test
  void anObservedCountIsReadOnly() {
    ObservedCount count = new ObservedCount(() -> 5);
    assertThat(count.getCount()).isEqualTo(5);
    assertThatThrownBy(count::inc).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> count.dec(2)).isInstanceOf(UnsupportedOperationException.class);
  }
}
