package io.nova.cluster.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * Proves that {@code nova.tuning.<key>} properties change exactly the keys they name (the others keep
 * their defaults), and that an unknown key, a value of the wrong type or one out of range is refused
 * naming the property.
 */
class NodeTuningPropertiesTest {

  private static Properties of(String... keyValues) {
    Properties p = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      p.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return p;
  }

  @Test
  void namedKeysChangeAndTheOthersKeepTheirDefaults() {
    NodeTuning t = NodeTuning.fromProperties(of("nova.tuning.raftAppenderWaitTimeMinMs", "3",
        "nova.tuning.raftLeaderOutstandingAppendsMax", "16", "nova.tuning.raftLogMetadataEnabled", "false",
        "nova.tuning.grpcShutdownGraceMs", " 500 ", "user.home", "/ignored"));

    assertThat(t).isEqualTo(NodeTuning.defaults().toBuilder().raftAppenderWaitTimeMinMs(3)
        .raftLeaderOutstandingAppendsMax(16).raftLogMetadataEnabled(false).grpcShutdownGraceMs(500).build());
    assertThat(t).isNotEqualTo(NodeTuning.defaults());
    assertThat(NodeTuning.fromProperties(new Properties())).isEqualTo(NodeTuning.defaults());
  }

  @Test
  void anUnknownKeyIsRefusedListingTheKnownOnes() {
    assertThatThrownBy(() -> NodeTuning.fromProperties(of("nova.tuning.raftWaitMs", "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nova.tuning.raftWaitMs").hasMessageContaining("raftAppenderWaitTimeMinMs");
  }

  @Test
  void aValueOfTheWrongTypeIsRefusedNamingTheProperty() {
    assertThatThrownBy(() -> NodeTuning.fromProperties(of("nova.tuning.raftLeaderOutstandingAppendsMax", "many")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nova.tuning.raftLeaderOutstandingAppendsMax is 'many'");
    assertThatThrownBy(() -> NodeTuning.fromProperties(of("nova.tuning.raftLogMetadataEnabled", "off")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be true or false");
  }

  @Test
  void aValueOutOfRangeIsRefusedNamingThePropertyAndTheRange() {
    assertThatThrownBy(() -> NodeTuning.fromProperties(of("nova.tuning.raftLeaderOutstandingAppendsMax", "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nova.tuning.raftLeaderOutstandingAppendsMax 0 must be between 1 and 1024");
  }
}
