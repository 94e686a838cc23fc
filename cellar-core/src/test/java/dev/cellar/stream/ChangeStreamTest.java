package dev.cellar.stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.Cellar;
import dev.cellar.CellarException;
import dev.cellar.CellarOptions;
import dev.cellar.ChangeBatch;
import dev.cellar.ChangeStream;
import dev.cellar.ChangesRemovedException;
import dev.cellar.CorruptStoreException;
import dev.cellar.Fsync;
import dev.cellar.StoreClosedException;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentHeaderDescriptor;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The change stream against real stores on disk: order, tail, compaction, removal, damage. */
class ChangeStreamTest {
  @TempDir Path dir;

  /** One change as a test expects it. */
  record Change(long seq, boolean delete, String key, String value, long expireAt) {}

  static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  /** Several 64 KiB segments' worth of changes, compaction only when asked. */
  static CellarOptions small(Fsync fsync) {
    return CellarOptions.defaults()
        .fsync(fsync)
        .segmentBytes(64 << 10)
        .maxKeyBytes(1 << 10)
        .maxValueBytes(16 << 10)
        .shards(4)
        .backgroundCompaction(false)
        .checkpointInterval(Duration.ofHours(1));
  }

  /**
   * Writes {@code count} seeded puts, deletes and puts with expiry (one writer, so {@link
   * Cellar#lastSeq()} after each write is its seq) and returns them.
   */
  static List<Change> write(Cellar db, int count, long seed) {
    Random random = new Random(seed);
    List<Change> out = new ArrayList<>();
    long expiry = System.currentTimeMillis() + 3_600_000;
    for (int i = 0; i < count; i++) {
      String key = "k" + random.nextInt(200);
      int kind = random.nextInt(10);
      if (kind == 0) {
        if (db.delete(b(key))) {
          out.add(new Change(db.lastSeq(), true, key, "", 0));
        }
      } else {
        String value = "v" + i + "-" + "x".repeat(random.nextInt(120));
        long expireAt = kind == 1 ? expiry + i : 0;
        db.putWithExpiry(b(key), b(value), expireAt);
        out.add(new Change(db.lastSeq(), false, key, value, expireAt));
      }
    }
    return out;
  }

  /** Everything the stream delivers until it has nothing more right now. */
  static List<Change> drain(ChangeStream stream) {
    List<Change> out = new ArrayList<>();
    while (true) {
      ChangeBatch batch = stream.poll();
      int before = out.size();
      while (batch.next()) {
        out.add(copy(batch));
      }
      if (out.size() == before) {
        return out;
      }
    }
  }

  static Change copy(ChangeBatch batch) {
    return new Change(
        batch.seq(),
        batch.isDelete(),
        new String(batch.key().toArray(ValueLayout.JAVA_BYTE), UTF_8),
        new String(batch.value().toArray(ValueLayout.JAVA_BYTE), UTF_8),
        batch.expireAt());
  }

  @Test
  void fromZeroDeliversEveryPutAndDeleteInOrder() {
    try (Cellar db = Cellar.open(dir, small(Fsync.NO))) {
      List<Change> written = write(db, 3000, 1);
      assertTrue(db.stats().segments() > 3, "the changes span several segments");
      try (ChangeStream stream = db.changes(0)) {
        assertEquals(written, drain(stream));
        assertEquals(db.lastSeq() + 1, stream.position());
      }
      try (ChangeStream stream = db.changes(1)) {
        assertEquals(written, drain(stream));
      }
    }
  }

  @Test
  void fromTheMiddleDeliversTheChangesFromThatSeqOn() {
    try (Cellar db = Cellar.open(dir, small(Fsync.NO))) {
      List<Change> written = write(db, 3000, 2);
      for (int index : new int[] {1, 777, 1500, written.size() - 1}) {
        long from = written.get(index).seq();
        try (ChangeStream stream = db.changes(from)) {
          assertEquals(from, stream.position());
          assertEquals(written.subList(index, written.size()), drain(stream), "from " + from);
        }
      }
    }
  }

  @Test
  void survivesReopenAndStreamsAcrossIt() {
    List<Change> written = new ArrayList<>();
    try (Cellar db = Cellar.open(dir, small(Fsync.NO))) {
      written.addAll(write(db, 1000, 3));
    }
    try (Cellar db = Cellar.open(dir, small(Fsync.NO))) {
      written.addAll(write(db, 1000, 4));
      try (ChangeStream stream = db.changes(0)) {
        assertEquals(written, drain(stream));
      }
    }
  }

  @Test
  void aPositionPastTheLogIsRefused() {
    try (Cellar db = Cellar.open(dir, small(Fsync.NO))) {
      write(db, 10, 5);
      CellarException e =
          assertThrows(CellarException.class, () -> db.changes(db.lastSeq() + 2).close());
      assertEquals(CellarException.Category.INVALID_ARGUMENT, e.category());
      assertThrows(CellarException.class, () -> db.changes(-1).close());
      try (ChangeStream stream = db.changes(db.lastSeq() + 1)) {
        assertFalse(stream.poll().next());
      }
    }
  }

  @Test
  void followsTheTail() throws Exception {
    try (Cellar db = Cellar.open(dir, small(Fsync.NO))) {
      write(db, 50, 6);
      long from = db.lastSeq() + 1;
      try (ChangeStream stream = db.changes(from)) {
        assertFalse(stream.poll(Duration.ofMillis(50)).next(), "nothing new yet: times out empty");
        AtomicLong last = new AtomicLong(Long.MAX_VALUE - 1);
        CompletableFuture<List<Change>> follower =
            CompletableFuture.supplyAsync(() -> follow(stream, last, Duration.ofSeconds(30)));
        List<Change> written = new ArrayList<>();
        for (int round = 0; round < 15; round++) {
          Thread.sleep(5); // lets the follower catch up and park between bursts
          written.addAll(write(db, 100, 100 + round));
        }
        last.set(db.lastSeq());
        List<Change> received = follower.get(60, TimeUnit.SECONDS);
        assertEquals(written, received);
        assertEquals(from + written.size(), stream.position());
      }
    }
  }

  /**
   * Polls until the stream has passed {@code last} (set by the writer once it is done), waiting up
   * to {@code wait} for each batch.
   */
  static List<Change> follow(ChangeStream stream, AtomicLong last, Duration wait) {
    List<Change> out = new ArrayList<>();
    while (stream.position() <= last.get()) {
      ChangeBatch batch = stream.poll(wait);
      boolean any = false;
      while (batch.next()) {
        out.add(copy(batch));
        any = true;
      }
      if (!any && stream.position() <= last.get()) {
        fail("no change within " + wait + " after " + out.size());
      }
    }
    return out;
  }

  @Test
  void underFsyncAlwaysDeliversDurableChangesWithoutAnyoneElseAskingForThem() throws Exception {
    // Writes that do not wait for their fsync: only the stream asks for one.
    CellarOptions options = small(Fsync.ALWAYS).writesAwaitDurability(false);
    try (Cellar db = Cellar.open(dir, options)) {
      long from = db.lastSeq() + 1;
      try (ChangeStream stream = db.changes(from)) {
        AtomicLong last = new AtomicLong(Long.MAX_VALUE - 1);
        CompletableFuture<List<Change>> follower =
            CompletableFuture.supplyAsync(() -> follow(stream, last, Duration.ofSeconds(30)));
        List<Change> written = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
          Thread.sleep(5);
          written.addAll(write(db, 100, 200 + round));
        }
        last.set(db.lastSeq());
        List<Change> received = follower.get(60, TimeUnit.SECONDS);
        assertEquals(written, received);
        assertTrue(db.stats().fsyncs() > 0, "the stream's wait made the changes durable");
      }
    }
  }

  @Test
  void underFsyncAlwaysAChangeNotYetDurableIsNotDelivered() {
    CellarOptions options = small(Fsync.ALWAYS).writesAwaitDurability(false);
    try (Cellar db = Cellar.open(dir, options)) {
      List<Change> written = write(db, 20, 7); // appended; nobody asked for their fsync
      long fsyncs = db.stats().fsyncs();
      try (ChangeStream stream = db.changes(1)) {
        assertFalse(stream.poll().next(), "appended but not durable: not delivered yet");
        assertEquals(fsyncs, db.stats().fsyncs(), "a poll that does not wait asks for no fsync");
        List<Change> received = new ArrayList<>();
        ChangeBatch batch = stream.poll(Duration.ofSeconds(30)); // waits: asks for the fsync
        while (batch.next()) {
          received.add(copy(batch));
        }
        assertEquals(written, received);
        assertTrue(db.stats().fsyncs() > fsyncs);
      }
    }
  }

  @Test
  void closingTheStoreWakesAWaitingPoll() throws Exception {
    Cellar db = Cellar.open(dir, small(Fsync.NO));
    ChangeStream stream = db.changes(1);
    CompletableFuture<Throwable> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                stream.poll(Duration.ofMinutes(5));
                return null;
              } catch (RuntimeException e) {
                return e;
              }
            });
    Thread.sleep(100);
    db.close();
    assertInstanceOf(StoreClosedException.class, waiter.get(60, TimeUnit.SECONDS));
  }

  /** Overwrites every key of {@link #write} so the old segments are dead, then compacts them. */
  static void compactAwayTheOldSegments(Cellar db) {
    for (int k = 0; k < 200; k++) {
      db.put(b("k" + k), b("final"));
    }
    for (int k = 0; k < 200; k++) {
      db.put(b("k" + k), b("final!"));
    }
    assertTrue(db.compact() > 0, "compaction reclaimed the old segments");
    db.checkpoint(); // deletes the segments compaction replaced
  }

  @Test
  void aPositionCompactionRemovedGivesTheErrorThatSaysWhatToDo() {
    try (Cellar db = Cellar.open(dir, small(Fsync.NO))) {
      write(db, 3000, 7);
      compactAwayTheOldSegments(db);
      ChangesRemovedException e = assertThrows(ChangesRemovedException.class, () -> db.changes(1));
      assertEquals(1, e.position());
      assertTrue(e.oldestAvailable() > 1, e.getMessage());
      assertTrue(e.getMessage().contains("snapshot"), e.getMessage());
      assertEquals(CellarException.Category.INVALID_ARGUMENT, e.category());
      // From the oldest available position on, everything is there.
      try (ChangeStream stream = db.changes(e.oldestAvailable())) {
        List<Change> rest = drain(stream);
        assertEquals(e.oldestAvailable(), rest.getFirst().seq());
        assertEquals(db.lastSeq(), rest.getLast().seq());
        for (int i = 1; i < rest.size(); i++) {
          assertEquals(rest.get(i - 1).seq() + 1, rest.get(i).seq());
        }
      }
    }
  }

  @Test
  void aSegmentInUseByABatchOutlivesCompactionAndTheStreamThenReportsTheGap() {
    try (Cellar db = Cellar.open(dir, small(Fsync.NO))) {
      List<Change> written = write(db, 3000, 8);
      try (ChangeStream stream = db.changes(0)) {
        ChangeBatch batch = stream.poll();
        compactAwayTheOldSegments(db);
        // The batch's segment was pinned: still mapped, still right.
        List<Change> first = new ArrayList<>();
        while (batch.next()) {
          first.add(copy(batch));
        }
        assertFalse(first.isEmpty());
        assertEquals(written.subList(0, first.size()), first);
        // The segments after it were deleted: the stream says so rather than skip them.
        assertThrows(ChangesRemovedException.class, stream::poll);
        assertThrows(ChangesRemovedException.class, stream::poll, "and goes on saying so");
      }
      db.checkpoint(); // now the pinned one goes too
      assertThrows(ChangesRemovedException.class, () -> db.changes(1));
    }
  }

  @Test
  void aStreamRunningDuringCompactionDeliversConsecutiveCorrectChangesOrStopsWithTheError()
      throws Exception {
    try (Cellar db = Cellar.open(dir, small(Fsync.NO))) {
      List<Change> written = new ArrayList<>(write(db, 2000, 9));
      AtomicBoolean done = new AtomicBoolean();
      CompletableFuture<Void> churn =
          CompletableFuture.runAsync(
              () -> {
                for (int round = 0; round < 20; round++) {
                  written.addAll(write(db, 500, 1000 + round));
                  db.compact();
                  db.checkpoint();
                }
                done.set(true);
              });
      List<Change> received = new ArrayList<>();
      boolean removed = false;
      try (ChangeStream stream = db.changes(0)) {
        while (!done.get() || stream.position() <= db.lastSeq()) {
          ChangeBatch batch = stream.poll(Duration.ofMillis(10));
          while (batch.next()) {
            received.add(copy(batch));
          }
        }
      } catch (ChangesRemovedException e) {
        removed = true;
      }
      churn.get(120, TimeUnit.SECONDS);
      for (int i = 0; i < received.size(); i++) {
        assertEquals(written.get(i), received.get(i), "change " + i);
      }
      if (!removed) {
        assertEquals(written.size(), received.size());
      }
    }
  }

  @Test
  void aDamagedRecordIsReportedNotDelivered() throws IOException {
    List<Change> written;
    try (Cellar db = Cellar.open(dir, small(Fsync.NO))) {
      written = write(db, 3000, 10);
    }
    // Flip one byte inside the value of a record of the first segment, found from the model.
    Path first = segmentFiles().getFirst();
    int index = 40;
    while (written.get(index).delete()) {
      index++;
    }
    Change victim = written.get(index);
    long offset = find(first, b(victim.value()));
    flip(first, offset + victim.value().length() / 2);
    try (Cellar db = openOrSalvage();
        ChangeStream stream = db.changes(0)) {
      long last = db.lastSeq();
      List<Change> received = new ArrayList<>();
      CorruptStoreException e =
          assertThrows(
              CorruptStoreException.class,
              () -> {
                while (stream.position() <= last) {
                  ChangeBatch batch = stream.poll();
                  while (batch.next()) {
                    received.add(copy(batch));
                  }
                }
              });
      assertEquals(written.subList(0, index), received, "everything before the damage, unchanged");
      assertEquals(victim.seq(), stream.position());
      assertTrue(e.damage().getFirst().contains(first.getFileName().toString()), e.getMessage());
      assertTrue(e.getMessage().contains("sequence " + victim.seq()), e.getMessage());
      assertThrows(CorruptStoreException.class, () -> stream.poll().next(), "stays stopped");
    }
  }

  /** Opens the damaged store; with salvage if the open itself refuses the damage. */
  private Cellar openOrSalvage() {
    try {
      return Cellar.open(dir, small(Fsync.NO));
    } catch (CorruptStoreException refused) {
      return Cellar.open(dir, small(Fsync.NO).salvage(true));
    }
  }

  private List<Path> segmentFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(p -> Segment.idOf(p.getFileName().toString()) >= 0)
          .sorted()
          .filter(ChangeStreamTest::isLogSegment)
          .toList();
    }
  }

  private static boolean isLogSegment(Path file) {
    try (FileChannel channel = FileChannel.open(file)) {
      ByteBuffer header = ByteBuffer.allocate(SegmentHeaderDescriptor.LENGTH);
      channel.read(header, 0);
      return SegmentHeaderDescriptor.kind(MemorySegment.ofArray(header.array()))
          == SegmentHeaderDescriptor.KIND_LOG;
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }

  private static long find(Path file, byte[] needle) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    outer:
    for (int i = 0; i + needle.length <= bytes.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (bytes[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("value not found in " + file);
  }

  private static void flip(Path file, long offset) throws IOException {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, offset);
      one.put(0, (byte) (one.get(0) ^ 0x40));
      channel.write(one.flip(), offset);
    }
  }
}
