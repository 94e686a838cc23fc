package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.io.FaultInjectingFileIO;
import dev.cellar.log.LogWriter;
import dev.cellar.log.RecordDescriptor;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Group commit on its own: shared fsyncs, and a failure that reaches every waiter for good. */
class GroupCommitTest {
  @TempDir Path dir;
  private final FaultInjectingFileIO io = new FaultInjectingFileIO();
  private final SegmentTable table = new SegmentTable();
  private final AtomicReference<IOException> sunk = new AtomicReference<>();
  private LogWriter log;
  private GroupCommit commit;

  @BeforeEach
  void open() {
    log = new LogWriter(io, dir, table, new AtomicLong(), 1 << 20, 1, System::currentTimeMillis);
    log.start(null);
    commit = new GroupCommit(log, sunk::set, 0);
  }

  @AfterEach
  void close() {
    log.stopPrefaulting();
    for (Segment s : table.all()) {
      s.close();
    }
  }

  private long append(String key) {
    log.append(
        RecordDescriptor.PUT,
        MemorySegment.ofArray(key.getBytes(UTF_8)),
        MemorySegment.ofArray("v".getBytes(UTF_8)),
        0);
    return log.appendedSeq();
  }

  @Test
  void writersWaitingAtOnceShareFsyncs() throws Exception {
    int threads = 8;
    int each = 200;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> writers = new ArrayList<>();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      writers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      start.await();
                      for (int i = 0; i < each; i++) {
                        commit.enter();
                        try {
                          long seq = append("t" + id + "k" + i);
                          commit.awaitDurable(seq);
                          assertTrue(commit.durableSeq() >= seq, "returned before its fsync");
                        } finally {
                          commit.exit();
                        }
                      }
                    } catch (Throwable e) {
                      failed.set(e);
                    }
                  }));
    }
    start.countDown();
    for (Thread w : writers) {
      w.join(60_000);
    }
    if (failed.get() != null) {
      throw new AssertionError(failed.get());
    }
    assertEquals(threads * each, commit.durableSeq());
    assertTrue(
        commit.fsyncs() < threads * each,
        commit.fsyncs() + " fsyncs for " + threads * each + " waiting writes");
  }

  @Test
  void aSingleWriterIsNotHeldBack() throws Exception {
    for (int i = 0; i < 20; i++) {
      long seq = append("k" + i);
      commit.awaitDurable(seq);
      assertEquals(seq, commit.durableSeq());
    }
    assertEquals(20, commit.fsyncs(), "one fsync a write, each covering it");
    commit.awaitDurable(5); // already covered: no fsync
    assertEquals(20, commit.fsyncs());
  }

  @Test
  void aFailedFsyncFailsEveryWaiterFromThenOn() throws Exception {
    commit.awaitDurable(append("a"));
    io.fsyncFails = true;
    long seq = append("b");
    IOException first = assertThrows(IOException.class, () -> commit.awaitDurable(seq));
    assertSame(first, sunk.get(), "the failure reached the sink");
    io.fsyncFails = false;
    // Never retried as if it had worked: the kernel may have dropped the pages it could not write.
    assertThrows(IOException.class, () -> commit.awaitDurable(append("c")));
    assertThrows(IOException.class, () -> commit.syncAll());
    assertEquals(1, commit.durableSeq(), "nothing after the failure is durable");
  }

  @Test
  void aFailureOutsideGroupCommitFailsLaterWaits() throws Exception {
    commit.awaitDurable(append("a"));
    IOException sealFailed = new IOException("seal fsync failed");
    commit.fail(sealFailed);
    IOException seen = assertThrows(IOException.class, () -> commit.awaitDurable(append("b")));
    assertSame(sealFailed, seen);
    assertNotNull(seen);
  }
}
