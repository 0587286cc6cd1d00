package io.nova.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Proves that stream and basin URIs parse, print back, and are rejected with clear messages when malformed. */
class StreamAddressTest {

    @Test
    void parsesAndPrintsBack() {
        StreamAddress a = StreamAddress.parse("nova://demo/events");
        assertThat(a).isEqualTo(new StreamAddress("demo", "events"));
        assertThat(a.toString()).isEqualTo("nova://demo/events");
        assertThat(StreamAddress.parse(a.toString())).isEqualTo(a);
    }

    @Test
    void streamNameMayContainSlashes() {
        assertThat(StreamAddress.parse("nova://demo/a/b").stream()).isEqualTo("a/b");
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "demo/events", "http://demo/events", "nova://", "nova://demo", "nova://demo/",
        "nova:///events", "nova://de mo/events", "nova://demo/ev\tents"})
    void rejectsMalformedUris(String uri) {
        assertThatThrownBy(() -> StreamAddress.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(uri));
    }

    @Test
    void rejectsEmptyNamesInConstructor() {
        assertThatThrownBy(() -> new StreamAddress("", "s")).hasMessageContaining("basin");
        assertThatThrownBy(() -> new StreamAddress("b", "")).hasMessageContaining("stream");
        assertThatThrownBy(() -> new StreamAddress("a/b", "s")).hasMessageContaining("basin");
    }

    @ParameterizedTest
    @ValueSource(strings = {"demo", "nova://demo", "nova://demo/"})
    void parsesBasinInEitherForm(String input) {
        assertThat(StreamAddress.parseBasin(input)).isEqualTo("demo");
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "nova://", "nova://demo/events", "de mo", "a/b"})
    void rejectsMalformedBasins(String input) {
        assertThatThrownBy(() -> StreamAddress.parseBasin(input))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("basin");
    }
}
