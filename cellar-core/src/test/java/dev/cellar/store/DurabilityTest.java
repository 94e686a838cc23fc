package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.StoreIOException;
import dev.cellar.io.FaultInjectingFileIO;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine as the one owner of durability: {@link Cellar#whenDurable} under each policy, writes
 * that wait or leave the wait to their caller, and a failed fsync reaching every listener.
 */
class DurabilityTest {
  @TempDir Path dir;

  private static CellarOptions options(Fsync fsync) {
    return StoreTest.small().fsync(fsync).backgroundCompaction(false);
  }

  private static CompletableFuture<Thread> durable(Cellar db) {
    CompletableFuture<Thread> told = new CompletableFuture<>();
    db.whenDurable(
        failure -> {
          if (failure == null) {
            told.complete(Thread.currentThread());
          } else {
            told.completeExceptionally(failure);
          }
        });
    return told;
  }

  @Test
  void underAlwaysWritesThatDoNotWaitAreReportedDurableAfterAnFsync() throws Exception {
    try (Cellar db = Cellar.open(dir, options(Fsync.ALWAYS).writesAwaitDurability(false))) {
      assertFalse(db.durableOnReturn());
      long before = db.stats().fsyncs();
      for (int i = 0; i < 100; i++) {
        db.put(("k" + i).getBytes(UTF_8), "v".getBytes(UTF_8));
      }
      assertEquals(before, db.stats().fsyncs(), "the writes did not wait for an fsync each");
      Thread told = durable(db).get(10, TimeUnit.SECONDS);
      assertTrue(db.stats().fsyncs() > before, "told durable only after an fsync");
      assertTrue(told != Thread.currentThread(), "told on the engine's sync thread");
    }
  }

  @Test
  void listenersWaitingAtOnceShareFsyncs() throws Exception {
    try (Cellar db = Cellar.open(dir, options(Fsync.ALWAYS).writesAwaitDurability(false))) {
      long before = db.stats().fsyncs();
      List<CompletableFuture<Thread>> all = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        db.put(("k" + i).getBytes(UTF_8), "v".getBytes(UTF_8));
        all.add(durable(db));
      }
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      long fsyncs = db.stats().fsyncs() - before;
      assertTrue(fsyncs >= 1 && fsyncs < 200, fsyncs + " fsyncs for 200 listeners");
    }
  }

  @Test
  void underAlwaysByDefaultEachWriteReturnsDurable() {
    try (Cellar db = Cellar.open(dir, options(Fsync.ALWAYS))) {
      assertTrue(db.durableOnReturn());
      for (int i = 0; i < 5; i++) {
        long before = db.stats().fsyncs();
        db.put(("k" + i).getBytes(UTF_8), "v".getBytes(UTF_8));
        assertTrue(db.stats().fsyncs() > before, "put " + i + " returned before an fsync");
      }
    }
  }

  @Test
  void underEverysecAndNoListenersAreToldAtOnceInTheCallersThread() throws Exception {
    for (Fsync policy : List.of(Fsync.EVERYSEC, Fsync.NO)) {
      Path d = dir.resolve(policy.name());
      try (Cellar db = Cellar.open(d, options(policy).writesAwaitDurability(false))) {
        assertTrue(db.durableOnReturn(), policy + ": writes never wait");
        db.put("k".getBytes(UTF_8), "v".getBytes(UTF_8));
        CompletableFuture<Thread> told = durable(db);
        assertTrue(told.isDone(), policy + ": told before whenDurable returned");
        assertSame(Thread.currentThread(), told.get());
      }
    }
  }

  @Test
  void aFailedFsyncReachesTheListenerAndDisablesWrites() throws Exception {
    FaultInjectingFileIO io = new FaultInjectingFileIO();
    try (Cellar db =
        Cellar.open(dir, options(Fsync.ALWAYS).writesAwaitDurability(false).fileIO(io))) {
      db.put("a".getBytes(UTF_8), "1".getBytes(UTF_8));
      io.fsyncFails = true;
      AtomicReference<RuntimeException> failure = new AtomicReference<>();
      CountDownLatch told = new CountDownLatch(1);
      db.whenDurable(
          f -> {
            failure.set(f);
            told.countDown();
          });
      assertTrue(told.await(10, TimeUnit.SECONDS), "the listener was told");
      assertInstanceOf(StoreIOException.class, failure.get());
      assertNotNull(db.health().writeFailure(), "health reports the failed fsync");
      assertFalse(db.health().writable());
      io.fsyncFails = false;
      assertThrows(StoreIOException.class, () -> db.put("b".getBytes(UTF_8), "2".getBytes(UTF_8)));
      // A later listener fails too: the engine never retries a failed fsync as if it succeeded.
      CompletableFuture<Thread> later = durable(db);
      assertThrows(Exception.class, () -> later.get(10, TimeUnit.SECONDS));
      assertEquals("1", new String(db.get("a".getBytes(UTF_8)), UTF_8), "reads go on");
    } catch (StoreIOException closeAfterFailure) {
      // close reports that it could not sync: expected after a failed fsync
    }
  }

  @Test
  void closeTellsEveryListenerStillWaiting() throws Exception {
    List<CompletableFuture<Thread>> all = new ArrayList<>();
    Cellar db = Cellar.open(dir, options(Fsync.ALWAYS).writesAwaitDurability(false));
    for (int i = 0; i < 50; i++) {
      db.put(("k" + i).getBytes(UTF_8), "v".getBytes(UTF_8));
      all.add(durable(db));
    }
    db.close();
    for (CompletableFuture<Thread> f : all) {
      assertTrue(f.isDone(), "every listener was told by the time close returned");
    }
    assertThrows(RuntimeException.class, () -> db.whenDurable(f -> {}), "closed store");
  }
}
