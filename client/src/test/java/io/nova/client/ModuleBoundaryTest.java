package io.nova.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Proves that the SDK's classpath holds neither Ratis nor RocksDB, so the client stays a proto + gRPC library. */
class ModuleBoundaryTest {

    @ParameterizedTest
    @ValueSource(strings = {"org.apache.ratis.server.RaftServer", "org.apache.ratis.client.RaftClient",
        "org.rocksdb.RocksDB"})
    void serverSideLibrariesAreAbsent(String className) {
        assertThatThrownBy(() -> Class.forName(className)).isInstanceOf(ClassNotFoundException.class);
    }
}
