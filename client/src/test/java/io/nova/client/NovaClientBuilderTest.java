package io.nova.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Proves that the client builder rejects each invalid field with a message naming it, and accepts valid input. */
class NovaClientBuilderTest {

    @Test
    void acceptsCommaSeparatedEndpoints() {
        assertThatCode(() -> NovaClient.builder().endpoints("127.0.0.1:7701, 127.0.0.1:7702").build().close())
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "127.0.0.1", "127.0.0.1:", ":7701", "host:abc", "host:0", "host:70000",
        "a:1,,b:2", "a:1,a:1", "dns:///a:1"})
    void rejectsBadEndpoints(String endpoints) {
        assertThatThrownBy(() -> NovaClient.builder().endpoints(endpoints).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("endpoints");
    }

    @Test
    void requiresEndpoints() {
        assertThatThrownBy(() -> NovaClient.builder().build()).hasMessageContaining("endpoints");
        assertThatThrownBy(() -> NovaClient.builder().endpoints(List.of()).build()).hasMessageContaining("endpoints");
    }

    @Test
    void rejectsBadDurations() {
        NovaClient.Builder b = NovaClient.builder().endpoints("127.0.0.1:1");
        assertThatThrownBy(() -> b.requestTimeout(Duration.ZERO).build()).hasMessageContaining("requestTimeout");
        b.requestTimeout(Duration.ofSeconds(1));
        assertThatThrownBy(() -> b.connectTimeout(Duration.ofSeconds(-1)).build())
                .hasMessageContaining("connectTimeout");
        b.connectTimeout(Duration.ofSeconds(1));
        assertThatThrownBy(() -> b.retryBudget(Duration.ofMillis(-1)).build()).hasMessageContaining("retryBudget");
        assertThatThrownBy(() -> b.requestTimeout(null)).isInstanceOf(NullPointerException.class);
        assertThatCode(() -> b.retryBudget(Duration.ZERO).build().close()).doesNotThrowAnyException();
    }
}
