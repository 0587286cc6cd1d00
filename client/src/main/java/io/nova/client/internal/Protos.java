package io.nova.client.internal;

import com.google.protobuf.ByteString;
import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.BasinInfo;
import io.nova.client.ClusterStatus;
import io.nova.client.GroupStatus;
import io.nova.client.Header;
import io.nova.client.NodeStatus;
import io.nova.client.RebalanceResult;
import io.nova.client.ReplicaStatus;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.StreamInfo;
import io.nova.client.StreamPosition;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.NodeLeaders;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.ReadStart;
import io.nova.proto.v1.RebalanceResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** Converts between the SDK's value types and the {@code nova.v1} messages. Stateless. */
public final class Protos {

    private Protos() {
    }

    /** The batch as an {@link AppendInput}; {@code matchSeqNum} and {@code fencingToken} may be null. */
    public static AppendInput appendInput(List<AppendRecord> records, Long matchSeqNum, String fencingToken) {
        return appendInputBuilder(records, matchSeqNum, fencingToken).build();
    }

    /**
     * The same batch as batch {@code batchSeq} of the idempotent producer {@code producerId} (16 bytes),
     * conditional on {@code matchSeqNum} when that is not null.
     */
    public static AppendInput idempotentAppendInput(List<AppendRecord> records, Long matchSeqNum, byte[] producerId,
            long batchSeq) {
        return appendInputBuilder(records, matchSeqNum, null)
                .setProducerId(com.google.protobuf.ByteString.copyFrom(producerId)).setProducerBatchSeq(batchSeq)
                .build();
    }

    private static AppendInput.Builder appendInputBuilder(List<AppendRecord> records, Long matchSeqNum,
            String fencingToken) {
        AppendInput.Builder b = AppendInput.newBuilder();
        for (AppendRecord r : records) {
            b.addRecords(appendRecord(r));
        }
        if (matchSeqNum != null) {
            b.setMatchSeqNum(matchSeqNum);
        }
        if (fencingToken != null) {
            b.setFencingToken(fencingToken);
        }
        return b;
    }

    static io.nova.proto.v1.AppendRecord appendRecord(AppendRecord r) {
        io.nova.proto.v1.AppendRecord.Builder b = io.nova.proto.v1.AppendRecord.newBuilder()
                .setBody(ByteString.copyFrom(r.body()));
        if (r.timestampMs() != null) {
            b.setTimestamp(r.timestampMs());
        }
        for (Header h : r.headers()) {
            b.addHeaders(header(h));
        }
        return b.build();
    }

    static io.nova.proto.v1.Header header(Header h) {
        return io.nova.proto.v1.Header.newBuilder()
                .setName(ByteString.copyFrom(h.name()))
                .setValue(ByteString.copyFrom(h.value()))
                .build();
    }

    static Header header(io.nova.proto.v1.Header h) {
        return new Header(h.getName().toByteArray(), h.getValue().toByteArray());
    }

    /** A wire position as a {@link StreamPosition}. */
    public static StreamPosition position(io.nova.proto.v1.StreamPosition p) {
        return new StreamPosition(p.getSeqNum(), p.getTimestamp());
    }

    /** A wire ack as an {@link AppendAck}. */
    public static AppendAck ack(io.nova.proto.v1.AppendAck a) {
        return new AppendAck(position(a.getStart()), position(a.getEnd()), position(a.getTail()), false,
                a.getDeduplicated());
    }

    /** A wire record as a {@link SequencedRecord}. */
    public static SequencedRecord sequencedRecord(io.nova.proto.v1.SequencedRecord r) {
        return new SequencedRecord(r.getSeqNum(), r.getTimestamp(),
                r.getHeadersList().stream().map(Protos::header).toList(), r.getBody().toByteArray());
    }

    /** A read request for {@code address} with these options. */
    public static ReadRequest readRequest(StreamAddress address, ReadOptions options) {
        ReadStart.Builder start = ReadStart.newBuilder();
        switch (options.startKind()) {
            case SEQ_NUM -> start.setSeqNum(options.startValue());
            case TIMESTAMP -> start.setTimestamp(options.startValue());
            case TAIL_OFFSET -> start.setTailOffset(options.startValue());
            default -> throw new IllegalStateException("unknown start kind " + options.startKind());
        }
        ReadLimit.Builder limit = ReadLimit.newBuilder();
        options.count().ifPresent(limit::setCount);
        options.bytes().ifPresent(limit::setBytes);
        ReadRequest.Builder b = ReadRequest.newBuilder()
                .setBasin(address.basin())
                .setStream(address.stream())
                .setStart(start)
                .setLimit(limit)
                .setClamp(options.clamp())
                .setWaitSecs(waitSecs(options));
        options.untilMs().ifPresent(b::setUntil);
        return b.build();
    }

    /** {@link ReadOptions#waitFor()} in whole seconds, rounded up. */
    static int waitSecs(ReadOptions options) {
        long millis = options.waitFor().toMillis();
        return (int) ((millis + 999) / 1000);
    }

    /** A wire read response as a {@link ReadBatch}. */
    public static ReadBatch readBatch(ReadResponse r) {
        return new ReadBatch(r.getRecordsList().stream().map(Protos::sequencedRecord).toList(),
                position(r.getTail()));
    }

    /** A wire basin as a {@link BasinInfo}. */
    public static BasinInfo basinInfo(io.nova.proto.v1.BasinInfo b) {
        return new BasinInfo(b.getName(), b.getCreatedAtMs());
    }

    /** A wire stream as a {@link StreamInfo}. */
    public static StreamInfo streamInfo(io.nova.proto.v1.StreamInfo s) {
        return new StreamInfo(s.getBasin(), s.getName(), s.getCreatedAtMs(), s.getShard(), s.getStreamId());
    }

    /** A stored wire configuration as a {@link io.nova.client.StreamConfig}. */
    public static io.nova.client.StreamConfig streamConfig(io.nova.proto.v1.StreamConfig c, long version) {
        return new io.nova.client.StreamConfig(java.time.Duration.ofMillis(c.getRetentionAgeMs()), c.getRetentionBytes(),
                c.getRetentionRecords(), java.time.Duration.ofMillis(c.getDeleteOnEmptyMinAgeMs()), version);
    }

    /** A configuration change as its wire form. */
    public static io.nova.proto.v1.StreamConfig streamConfig(io.nova.client.StreamConfigChange change) {
        io.nova.proto.v1.StreamConfig.Builder out = io.nova.proto.v1.StreamConfig.newBuilder();
        change.retentionAge().ifPresent(age -> out.setRetentionAgeMs(age.toMillis()));
        change.retentionBytes().ifPresent(out::setRetentionBytes);
        change.retentionRecords().ifPresent(out::setRetentionRecords);
        if (change.retentionInfinite()) {
            out.setRetentionInfinite(true);
        }
        change.deleteOnEmptyMinAge().ifPresent(age -> out.setDeleteOnEmptyMinAgeMs(age.toMillis()));
        return out.build();
    }

    /** A registry entry from a membership verb's answer as a {@link io.nova.client.MemberNode}. */
    public static io.nova.client.MemberNode memberNode(io.nova.proto.v1.NodeStatus n, long placementVersion) {
        return new io.nova.client.MemberNode(n.getNodeId(), n.getRaftAddress(), n.getApiAddress(), n.getHttpAddress(),
                n.getMemberState(), placementVersion);
    }

    /** A wire leader balance answer as a {@link RebalanceResult}. */
    public static RebalanceResult rebalance(RebalanceResponse r) {
        return new RebalanceResult(r.getNodeId(), leaders(r.getLeadersBeforeList()), leaders(r.getLeadersAfterList()),
                r.getTransfersList().stream().map(t -> new RebalanceResult.Transfer(t.getGroup(), t.getFromNode(),
                        t.getToNode(), t.getOutcome(), t.getDetail())).toList());
    }

    private static Map<String, Integer> leaders(List<NodeLeaders> counts) {
        Map<String, Integer> out = new LinkedHashMap<>();
        counts.forEach(c -> out.put(c.getNodeId(), c.getLeaders()));
        return out;
    }

    /** A wire cluster status as a {@link ClusterStatus}. */
    public static ClusterStatus clusterStatus(GetClusterStatusResponse r) {
        List<NodeStatus> nodes = r.getNodesList().stream()
                .map(n -> new NodeStatus(n.getNodeId(), n.getRaftAddress(), n.getApiAddress(), n.getReachable(),
                        n.getUp(), n.getVersion(), n.getHttpAddress(), optional(n.hasDataBytes(), n.getDataBytes()),
                        optional(n.hasDiskFreeBytes(), n.getDiskFreeBytes()), n.getDiskLow(), n.getMemberState(),
                        n.getReplacedBy()))
                .toList();
        List<GroupStatus> groups = r.getGroupsList().stream()
                .map(g -> new GroupStatus(g.getName(), g.getGroupId(), g.getReplicasList(), g.getLeader(),
                        g.getTerm(), g.getCommitIndex(), g.getAppliedIndex(),
                        g.getReplicaStatusList().stream().map(Protos::replicaStatus).toList(),
                        g.hasStreamCount() ? OptionalLong.of(g.getStreamCount()) : OptionalLong.empty(),
                        optional(g.hasStreamRecords(), g.getStreamRecords()),
                        optional(g.hasStreamBytes(), g.getStreamBytes()), g.getProvisioning()))
                .toList();
        return new ClusterStatus(r.getNodeId(), nodes, groups,
                optional(r.hasPlacementVersion(), r.getPlacementVersion()),
                r.getMovesList().stream().map(m -> replicaMove(m, r.getPlacementVersion())).toList());
    }

    /** A wire replica move, seen at {@code placementVersion}, as a {@link io.nova.client.ReplicaMove}. */
    public static io.nova.client.ReplicaMove replicaMove(io.nova.proto.v1.ReplicaMoveStatus m, long placementVersion) {
        return new io.nova.client.ReplicaMove(m.getGroup(), m.getFromNode(), m.getToNode(), m.getStep(),
                placementVersion);
    }

    private static ReplicaStatus replicaStatus(io.nova.proto.v1.ReplicaStatus r) {
        return new ReplicaStatus(r.getNodeId(), r.getUp(), r.getRole(), r.getTerm(), r.getCommitIndex(),
                r.getAppliedIndex(), r.hasMatchIndex() ? OptionalLong.of(r.getMatchIndex()) : OptionalLong.empty(),
                r.hasLag() ? OptionalLong.of(r.getLag()) : OptionalLong.empty(),
                optional(r.hasStoreBytes(), r.getStoreBytes()), optional(r.hasLogBytes(), r.getLogBytes()),
                optional(r.hasStorePendingCompactionBytes(), r.getStorePendingCompactionBytes()));
    }

    private static OptionalLong optional(boolean present, long value) {
        return present ? OptionalLong.of(value) : OptionalLong.empty();
    }
}
