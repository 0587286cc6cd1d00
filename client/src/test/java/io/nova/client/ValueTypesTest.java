package io.nova.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Proves that the value types validate their components, copy their byte arrays and compare by content. */
class ValueTypesTest {

    @Test
    void headerCopiesAndComparesByContent() {
        byte[] name = "k".getBytes(StandardCharsets.UTF_8);
        Header h = new Header(name, new byte[] {1});
        name[0] = 'x';
        assertThat(h.name()).containsExactly('k');
        h.value()[0] = 9;
        assertThat(h.value()).containsExactly(1);
        assertThat(h).isEqualTo(new Header(new byte[] {'k'}, new byte[] {1})).hasSameHashCodeAs(
                new Header(new byte[] {'k'}, new byte[] {1}));
        assertThatThrownBy(() -> new Header(null, new byte[0])).isInstanceOf(NullPointerException.class);
    }

    @Test
    void appendRecordFactoriesAndValidation() {
        AppendRecord r = AppendRecord.ofUtf8("héllo");
        assertThat(r.timestampMs()).isNull();
        assertThat(r.headers()).isEmpty();
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("héllo");
        assertThat(r).isEqualTo(AppendRecord.of("héllo".getBytes(StandardCharsets.UTF_8)));

        byte[] body = {1, 2};
        AppendRecord copied = AppendRecord.of(body);
        body[0] = 7;
        assertThat(copied.body()).containsExactly(1, 2);

        List<Header> headers = new ArrayList<>(List.of(new Header(new byte[] {1}, new byte[0])));
        AppendRecord withHeaders = new AppendRecord(5L, headers, new byte[0]);
        headers.clear();
        assertThat(withHeaders.headers()).hasSize(1);
        assertThatThrownBy(() -> withHeaders.headers().clear()).isInstanceOf(UnsupportedOperationException.class);

        assertThatThrownBy(() -> new AppendRecord(-1L, List.of(), new byte[0])).hasMessageContaining("timestampMs");
        assertThatThrownBy(() -> new AppendRecord(null, null, new byte[0])).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> AppendRecord.of(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void sequencedRecordDecodesUtf8AndValidates() {
        SequencedRecord r = new SequencedRecord(3, 10, List.of(), "ok".getBytes(StandardCharsets.UTF_8));
        assertThat(r.bodyUtf8()).isEqualTo("ok");
        assertThatThrownBy(() -> new SequencedRecord(-1, 0, List.of(), new byte[0])).hasMessageContaining("seqNum");
        assertThatThrownBy(() -> new SequencedRecord(0, -1, List.of(), new byte[0]))
                .hasMessageContaining("timestampMs");
    }

    @Test
    void positionsAndAcksValidate() {
        StreamPosition p = new StreamPosition(5, 100);
        assertThatThrownBy(() -> new StreamPosition(-1, 0)).hasMessageContaining("seqNum");
        assertThatThrownBy(() -> new StreamPosition(0, -1)).hasMessageContaining("timestampMs");
        AppendAck ack = new AppendAck(new StreamPosition(2, 1), p, p);
        assertThat(ack.recordCount()).isEqualTo(3);
        assertThat(ack.resent()).as("the three-position constructor is for a batch sent once").isFalse();
        assertThat(ack).isEqualTo(new AppendAck(new StreamPosition(2, 1), p, p, false))
            .isNotEqualTo(new AppendAck(new StreamPosition(2, 1), p, p, true));
        assertThatThrownBy(() -> new AppendAck(p, new StreamPosition(2, 1), p)).hasMessageContaining("before start");
        assertThatThrownBy(() -> new AppendAck(null, p, p)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void listOptionsBoundsTheLimit() {
        assertThat(ListOptions.all()).isEqualTo(new ListOptions("", "", 0));
        assertThat(new ListOptions("a", "b", 1000).limit()).isEqualTo(1000);
        assertThatThrownBy(() -> new ListOptions("", "", 1001)).hasMessageContaining("limit");
        assertThatThrownBy(() -> new ListOptions("", "", -1)).hasMessageContaining("limit");
        assertThatThrownBy(() -> new ListOptions(null, "", 0)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void collectionsAreCopiedUnmodifiable() {
        List<String> replicas = new ArrayList<>(List.of("n1"));
        GroupStatus g = new GroupStatus("meta", "g", replicas, "", 1, 2, 3, List.of(), OptionalLong.empty());
        replicas.add("n2");
        assertThat(g.replicas()).containsExactly("n1");
        assertThat(new Page<>(List.of(1, 2), true).items()).containsExactly(1, 2);
        assertThat(new StreamInfo("b", "s", 1, 0, 9).address()).isEqualTo(new StreamAddress("b", "s"));
        assertThatThrownBy(() -> new ReadBatch(null, new StreamPosition(0, 0)))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void readOptionsDefaultsAndStarts() {
        ReadOptions d = ReadOptions.defaults();
        assertThat(d.startKind()).isEqualTo(ReadOptions.StartKind.SEQ_NUM);
        assertThat(d.startValue()).isZero();
        assertThat(d.count()).isEmpty();
        assertThat(d.waitFor()).isEqualTo(Duration.ZERO);

        ReadOptions o = ReadOptions.builder().startTailOffset(4).count(10).bytes(100).untilMs(5).clamp(true)
                .waitFor(Duration.ofSeconds(60)).build();
        assertThat(o.startKind()).isEqualTo(ReadOptions.StartKind.TAIL_OFFSET);
        assertThat(o.startValue()).isEqualTo(4);
        assertThat(o.count()).hasValue(10);
        assertThat(o.bytes()).hasValue(100);
        assertThat(o.untilMs()).hasValue(5);
        assertThat(o.clamp()).isTrue();
        // Setting the same start twice keeps the last value.
        assertThat(ReadOptions.builder().startSeqNum(1).startSeqNum(2).build().startValue()).isEqualTo(2);
    }

    @Test
    void readOptionsRejectsConflictsAndBadValues() {
        assertThatThrownBy(() -> ReadOptions.builder().startSeqNum(1).startTimestamp(2).build())
                .hasMessageContaining("mutually exclusive");
        assertThatThrownBy(() -> ReadOptions.builder().startSeqNum(-1)).hasMessageContaining("startSeqNum");
        assertThatThrownBy(() -> ReadOptions.builder().count(0)).hasMessageContaining("count");
        assertThatThrownBy(() -> ReadOptions.builder().bytes(0)).hasMessageContaining("bytes");
        assertThatThrownBy(() -> ReadOptions.builder().untilMs(-1)).hasMessageContaining("untilMs");
        assertThatThrownBy(() -> ReadOptions.builder().waitFor(Duration.ofSeconds(61)))
                .hasMessageContaining("waitFor");
        assertThatThrownBy(() -> ReadOptions.builder().waitFor(Duration.ofMillis(-1)))
                .hasMessageContaining("waitFor");
    }
}
