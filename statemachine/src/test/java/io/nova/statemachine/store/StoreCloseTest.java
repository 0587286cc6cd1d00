package io.nova.statemachine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that reads racing the close of a store fail with StoreClosedException instead of touching
 * freed native memory (before the guard, a query answered while its node stopped crashed the JVM).
 */
class StoreCloseTest {

  @TempDir
  Path dir;

  @Test
  void aReadAfterCloseFailsCleanly() {
    ShardStore store = new ShardStore(dir);
    store.close();
    store.close();
    assertThatThrownBy(() -> store.readRecords(1, 0, 10, 10, 1000, OptionalLong.empty()))
        .isInstanceOf(RocksStore.StoreClosedException.class);
    assertThatThrownBy(() -> store.firstSeqNumAtOrAfter(1, 0, 0, 0))
        .isInstanceOf(RocksStore.StoreClosedException.class);
  }

  @Test
  void readsRacingCloseEitherSucceedOrFailCleanly() throws Exception {
    ShardStore store = new ShardStore(dir);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch started = new CountDownLatch(4);
    List<Future<Integer>> readers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      readers.add(pool.submit(() -> {
        started.countDown();
        // Bounded in time; the close ends it long before.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int i = 0; System.nanoTime() < deadline; i++) {
          try {
            // An empty range: the store holds no records, and a read of missing ones is refused (TrimmedMeanwhile).
            store.readRecords(1, 0, 0, 10, 1000, OptionalLong.empty());
          } catch (RocksStore.StoreClosedException e) {
            return i;
          }
        }
        return -1;
      }));
    }
    started.await();
    store.close();
    for (Future<Integer> reader : readers) {
      assertThat(reader.get(60, TimeUnit.SECONDS)).isNotNegative();
    }
    pool.shutdown();
  }
}
