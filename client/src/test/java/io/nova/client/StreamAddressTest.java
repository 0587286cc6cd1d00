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
    void parsingAppliesTheClustersNameRules() {
        assertThatThrownBy(() -> StreamAddress.parse("nova://demo/a/b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("its stream name has '/' at character 2");
        // The constructor checks only the shape; NovaClient calls apply the rules (node: BadInputTest).
        assertThat(new StreamAddress("demo", "a/b").stream()).isEqualTo("a/b");
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "demo/events", "http://demo/events", "nova://", "nova://demo", "nova://demo/",
        "nova:///events", "nova://de mo/events", "nova://demo/ev\tents"})
    void rejectsMalformedUris(String uri) {
        assertThatThrownBy(() -> StreamAddress.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                // Quoted once, with a tab written as \t so the message is one line saying what to type.
                .hasMessageContaining(String.valueOf(uri).replace("\t", "\\t"));
    }

    @Test
    void aLongNameIsQuotedOnceAndShortenedWithTheRuleItBreaks() {
        String uri = "nova://demo/" + "n".repeat(300);
        assertThatThrownBy(() -> StreamAddress.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bad stream URI \"nova://demo/" + "n".repeat(48) + "…\" (312 chars): its stream name is"
                        + " 300 chars long; a stream name must be 1-255 chars of [A-Za-z0-9._-], not \".\" or \"..\"");
        assertThatThrownBy(() -> StreamAddress.parseBasin("b".repeat(300)))
                .hasMessage("bad basin \"" + "b".repeat(60) + "…\" (300 chars) (expected nova://BASIN or BASIN): its name"
                        + " is 300 chars long; a basin name must be 1-48 chars of [a-z0-9-], starting and ending with"
                        + " a letter or digit");
    }

    @Test
    void aBadCharacterIsNamedWithItsPosition() {
        assertThatThrownBy(() -> StreamAddress.parse("nova://de mo/events"))
                .hasMessage("bad stream URI \"nova://de mo/events\": its basin name has whitespace (U+0020) at"
                        + " character 3; a basin name must be 1-48 chars of [a-z0-9-], starting and ending with a"
                        + " letter or digit");
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
