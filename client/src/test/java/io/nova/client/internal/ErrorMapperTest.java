package io.nova.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.nova.client.StreamPosition;
import io.nova.client.errors.ErrorCode;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.BasinNotEmptyException;
import io.nova.client.errors.DeadlineExceededException;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.InsufficientStorageException;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NotFoundException;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.NovaInternalException;
import io.nova.client.errors.PreconditionFailedException;
import io.nova.client.errors.ResourceExhaustedException;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.client.errors.UnavailableException;
import io.nova.proto.v1.AlreadyExists;
import io.nova.proto.v1.BasinNotEmpty;
import io.nova.proto.v1.DeadlineExceeded;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.FencedOut;
import io.nova.proto.v1.InsufficientStorage;
import io.nova.proto.v1.Internal;
import io.nova.proto.v1.InvalidArgument;
import io.nova.proto.v1.NotFound;
import io.nova.proto.v1.ResourceExhausted;
import io.nova.proto.v1.SequenceMismatch;
import io.nova.proto.v1.Unavailable;
import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Proves that every status the gateway sends, with or without an ErrorDetail, maps to the documented typed exception. */
class ErrorMapperTest {

    private static final CallInfo APPEND = new CallInfo("Append", "nova://b/s", CallKind.WRITE, 5L);
    private static final CallInfo READ = CallInfo.of("Read", "nova://b/s", CallKind.READ);
    private static final CallInfo FENCE = CallInfo.of("Fence", "nova://b/s", CallKind.WRITE);

    private static StatusRuntimeException withDetail(Status.Code code, ErrorDetail detail) {
        return StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
                .setCode(code.value()).setMessage(detail.getMessage()).addDetails(Any.pack(detail)).build());
    }

    private static NovaException map(Status.Code code, ErrorDetail.Builder detail, CallInfo call) {
        return ErrorMapper.map(withDetail(code, detail.setMessage("server says").build()), call, true);
    }

    @Test
    void sequenceMismatchCarriesTailMatchAndResentFalse() {
        NovaException e = map(Status.Code.FAILED_PRECONDITION, ErrorDetail.newBuilder().setSequenceMismatch(
                SequenceMismatch.newBuilder().setTail(io.nova.proto.v1.StreamPosition.newBuilder()
                        .setSeqNum(3).setTimestamp(77))), APPEND);
        assertThat(e).isInstanceOf(SequenceMismatchException.class).isInstanceOf(PreconditionFailedException.class);
        SequenceMismatchException s = (SequenceMismatchException) e;
        assertThat(s.tail()).isEqualTo(new StreamPosition(3, 77));
        assertThat(s.resent()).isFalse();
        assertThat(s.matchSeqNum()).hasValue(5);
        assertThat(s.mayHaveTakenEffect()).isFalse();
        assertThat(s.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
        assertThat(s).hasMessage("match_seq_num 5 missed: the committed tail is 3 (retry with match_seq_num 3)");
    }

    /** Issue #8 item 9: a long stream URI is shortened in the call's part of a message, not printed whole. */
    @Test
    void aLongTargetIsNamedShortenedInTheMessage() {
        String uri = "nova://demo/" + "w".repeat(250);
        NovaException e = map(Status.Code.NOT_FOUND, ErrorDetail.newBuilder(), CallInfo.of("CheckTail", uri,
                CallKind.READ));
        assertThat(e.getMessage()).startsWith("CheckTail \"nova://demo/www").contains("…\" (262 chars): server says")
                .doesNotContain("w".repeat(61));
        assertThat(map(Status.Code.NOT_FOUND, ErrorDetail.newBuilder(), READ).getMessage())
                .startsWith("Read nova://b/s: ");
    }

    @Test
    void fencedOutCarriesInstalledToken() {
        NovaException e = map(Status.Code.FAILED_PRECONDITION, ErrorDetail.newBuilder()
                .setFencedOut(FencedOut.newBuilder().setInstalledToken("gen-42")), APPEND);
        assertThat(e).isInstanceOf(FencedOutException.class).isInstanceOf(PreconditionFailedException.class);
        assertThat(((FencedOutException) e).installedToken()).isEqualTo("gen-42");
        assertThat(e.mayHaveTakenEffect()).isFalse();
        assertThat(e.getMessage()).contains("gen-42");
    }

    @Test
    void basinNotEmpty() {
        NovaException e = map(Status.Code.FAILED_PRECONDITION, ErrorDetail.newBuilder()
                .setBasinNotEmpty(BasinNotEmpty.newBuilder().setBasin("demo")), APPEND);
        assertThat(e).isInstanceOf(BasinNotEmptyException.class).isInstanceOf(PreconditionFailedException.class);
        assertThat(((BasinNotEmptyException) e).basin()).isEqualTo("demo");
        assertThat(e.mayHaveTakenEffect()).isFalse();
    }

    @Test
    void invalidArgumentNotFoundAlreadyExistsAreDefinite() {
        NovaException inv = map(Status.Code.INVALID_ARGUMENT, ErrorDetail.newBuilder().setInvalidArgument(
                InvalidArgument.newBuilder().setField("records[3].body").setLimit("<= 1048576 bytes")), APPEND);
        assertThat(inv).isInstanceOf(InvalidArgumentException.class);
        assertThat(((InvalidArgumentException) inv).field()).isEqualTo("records[3].body");
        assertThat(((InvalidArgumentException) inv).limit()).isEqualTo("<= 1048576 bytes");
        assertThat(inv.getMessage()).contains("Append nova://b/s", "server says");

        NovaException nf = map(Status.Code.NOT_FOUND, ErrorDetail.newBuilder()
                .setNotFound(NotFound.newBuilder().setResource("stream").setName("s")), APPEND);
        assertThat(nf).isInstanceOf(NotFoundException.class);
        assertThat(((NotFoundException) nf).resource()).isEqualTo("stream");
        assertThat(((NotFoundException) nf).name()).isEqualTo("s");

        NovaException ae = map(Status.Code.ALREADY_EXISTS, ErrorDetail.newBuilder()
                .setAlreadyExists(AlreadyExists.newBuilder().setResource("basin").setName("b")), APPEND);
        assertThat(ae).isInstanceOf(AlreadyExistsException.class);
        assertThat(((AlreadyExistsException) ae).resource()).isEqualTo("basin");

        assertThat(inv.mayHaveTakenEffect() || nf.mayHaveTakenEffect() || ae.mayHaveTakenEffect()).isFalse();
    }

    @Test
    void unavailableTakesMayHaveTakenEffectFromTheDetail() {
        for (boolean flag : new boolean[] {true, false}) {
            NovaException e = map(Status.Code.UNAVAILABLE, ErrorDetail.newBuilder()
                    .setUnavailable(Unavailable.newBuilder().setMayHaveTakenEffect(flag)), APPEND);
            assertThat(e).isInstanceOf(UnavailableException.class);
            assertThat(e.mayHaveTakenEffect()).isEqualTo(flag);
        }
    }

    @Test
    void insufficientStorageIsATypedRetriableResourceExhaustedNamingNodeVolumeFreeAndReserve() {
        NovaException e = map(Status.Code.RESOURCE_EXHAUSTED, ErrorDetail.newBuilder().setInsufficientStorage(
                InsufficientStorage.newBuilder().setNodeId("n2").setVolume("/data/n2").setFreeBytes(1234)
                        .setReserveBytes(1 << 30)), APPEND);
        assertThat(e).isInstanceOf(ResourceExhaustedException.class);
        InsufficientStorageException s = (InsufficientStorageException) e;
        assertThat(s.nodeId()).isEqualTo("n2");
        assertThat(s.volume()).isEqualTo("/data/n2");
        assertThat(s.freeBytes()).isEqualTo(1234);
        assertThat(s.reserveBytes()).isEqualTo(1 << 30);
        assertThat(s.limit()).isEqualTo(InsufficientStorageException.LIMIT);
        assertThat(s.retriable()).isTrue();
        assertThat(s.mayHaveTakenEffect()).as("refused before the log").isFalse();
        assertThat(s.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
        assertThat(s).hasMessage("Append nova://b/s: server says");
    }

    @Test
    void resourceExhaustedAndInternal() {
        NovaException re = map(Status.Code.RESOURCE_EXHAUSTED, ErrorDetail.newBuilder()
                .setResourceExhausted(ResourceExhausted.newBuilder().setLimit("in-flight bytes")), APPEND);
        assertThat(re).isInstanceOf(ResourceExhaustedException.class);
        assertThat(((ResourceExhaustedException) re).limit()).isEqualTo("in-flight bytes");
        assertThat(re.mayHaveTakenEffect()).isFalse();

        NovaException write = map(Status.Code.INTERNAL, ErrorDetail.newBuilder()
                .setInternal(Internal.getDefaultInstance()), APPEND);
        assertThat(write).isInstanceOf(NovaInternalException.class);
        assertThat(write.mayHaveTakenEffect()).isTrue();
        assertThat(map(Status.Code.INTERNAL, ErrorDetail.newBuilder().setInternal(Internal.getDefaultInstance()),
                READ).mayHaveTakenEffect()).isFalse();
    }

    @Test
    void statusWithoutDetailIsMappedByCode() {
        assertThat(ErrorMapper.map(Status.FAILED_PRECONDITION.asRuntimeException(), APPEND, true))
                .isExactlyInstanceOf(PreconditionFailedException.class);
        assertThat(ErrorMapper.map(Status.INVALID_ARGUMENT.asRuntimeException(), APPEND, true))
                .isInstanceOf(InvalidArgumentException.class);
        assertThat(ErrorMapper.map(Status.NOT_FOUND.asRuntimeException(), READ, true))
                .isInstanceOf(NotFoundException.class);
        assertThat(ErrorMapper.map(Status.ALREADY_EXISTS.asRuntimeException(), APPEND, true))
                .isInstanceOf(AlreadyExistsException.class);
        assertThat(ErrorMapper.map(Status.RESOURCE_EXHAUSTED.asRuntimeException(), APPEND, true))
                .isInstanceOf(ResourceExhaustedException.class);
        NovaException unknown = ErrorMapper.map(Status.UNKNOWN.withDescription("boom").asRuntimeException(),
                APPEND, true);
        assertThat(unknown).isInstanceOf(NovaInternalException.class);
        assertThat(unknown.code()).isEqualTo(ErrorCode.UNKNOWN);
        assertThat(unknown.getMessage()).contains("UNKNOWN: boom");
    }

    @Test
    void transportUnavailableIsAmbiguousOnlyForSentWrites() {
        StatusRuntimeException reset = Status.UNAVAILABLE.withDescription("io exception")
                .withCause(new IOException("Connection reset")).asRuntimeException();
        assertThat(ErrorMapper.map(reset, APPEND, true).mayHaveTakenEffect()).isTrue();
        assertThat(ErrorMapper.map(reset, FENCE, true).mayHaveTakenEffect()).isTrue();
        assertThat(ErrorMapper.map(reset, READ, true).mayHaveTakenEffect()).isFalse();
        assertThat(ErrorMapper.map(reset, APPEND, false).mayHaveTakenEffect()).isFalse();
        assertThat(ErrorMapper.map(reset, APPEND, true)).isInstanceOf(UnavailableException.class);
    }

    @Test
    void deadlineExceededIsAmbiguousForWritesOnly() {
        StatusRuntimeException e = Status.DEADLINE_EXCEEDED.asRuntimeException();
        assertThat(ErrorMapper.map(e, APPEND, true)).isInstanceOf(DeadlineExceededException.class);
        assertThat(ErrorMapper.map(e, APPEND, true).mayHaveTakenEffect()).isTrue();
        assertThat(ErrorMapper.map(e, FENCE, true).mayHaveTakenEffect()).isTrue();
        assertThat(ErrorMapper.map(e, READ, true).mayHaveTakenEffect()).isFalse();
    }

    @Test
    void deadlineRefusalByTheLeaderIsDefinite() {
        NovaException e = map(Status.Code.DEADLINE_EXCEEDED, ErrorDetail.newBuilder().setDeadlineExceeded(
                DeadlineExceeded.newBuilder().setDeadlineMs(1_000).setRefusedAtMs(1_250)), FENCE);
        assertThat(e).isInstanceOf(DeadlineExceededException.class);
        assertThat(e.mayHaveTakenEffect()).as("refused before the log: nothing was appended").isFalse();
        assertThat(e.getMessage()).contains("server says");
    }

    @Test
    void connectionRefusedProvesNotSent() {
        assertThat(ErrorMapper.provablyNotSent(Status.UNAVAILABLE.withDescription("io exception")
                .withCause(new IOException("wrapped", new ConnectException("Connection refused")))
                .asRuntimeException())).isTrue();
        assertThat(ErrorMapper.provablyNotSent(Status.UNAVAILABLE
                .withDescription("Connection refused: /127.0.0.1:1").asRuntimeException())).isTrue();
        assertThat(ErrorMapper.provablyNotSent(Status.UNAVAILABLE.withDescription("io exception")
                .withCause(new IOException("Connection reset")).asRuntimeException())).isFalse();
        assertThat(ErrorMapper.provablyNotSent(Status.DEADLINE_EXCEEDED
                .withCause(new ConnectException()).asRuntimeException())).isFalse();
    }

    @ParameterizedTest
    @EnumSource(value = Status.Code.class, names = "OK", mode = EnumSource.Mode.EXCLUDE)
    void everyCodeWithoutDetailMapsToANovaExceptionKeepingItsCode(Status.Code code) {
        NovaException e = ErrorMapper.map(Status.fromCode(code).asRuntimeException(), READ, true);
        // every gRPC code has a same-named ErrorCode, so none collapses to UNKNOWN by accident
        assertThat(e.code()).isEqualTo(code == Status.Code.OUT_OF_RANGE ? ErrorCode.INVALID_ARGUMENT
                : ErrorCode.valueOf(code.name()));
        assertThat(e.getCause()).isInstanceOf(StatusRuntimeException.class);
    }

    @Test
    void detailIsIgnoredWhenKindIsUnset() {
        NovaException e = ErrorMapper.map(withDetail(Status.Code.NOT_FOUND,
                ErrorDetail.newBuilder().setMessage("gone").build()), READ, true);
        assertThat(e).isInstanceOf(NotFoundException.class);
        assertThat(e.getMessage()).contains("gone");
    }
}
