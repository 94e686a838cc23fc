package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CellarStats;
import dev.cellar.Codecs;
import dev.cellar.Cursor;
import dev.cellar.Entry;
import dev.cellar.Fsync;
import dev.cellar.LimitExceededException;
import dev.cellar.StoreClosedException;
import dev.cellar.StoreLockedException;
import dev.cellar.TypedMap;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreTest {
  @TempDir Path dir;

  static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  static CellarOptions small() {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(1 << 20)
        .maxValueBytes(64 << 10)
        .shards(8);
  }

  @Test
  void putGetDeleteAndReopen() {
    try (Cellar db = Cellar.open(dir, small())) {
      db.put(b("a"), b("1"));
      db.put(b("b"), b("2"));
      db.put(b("a"), b("3"));
      assertArrayEquals(b("3"), db.get(b("a")));
      assertArrayEquals(b("2"), db.get(b("b")));
      assertNull(db.get(b("c")));
      assertTrue(db.delete(b("b")));
      assertFalse(db.delete(b("b")));
      assertNull(db.get(b("b")));
      assertEquals(1, db.size());
    }
    try (Cellar db = Cellar.open(dir, small())) {
      assertArrayEquals(b("3"), db.get(b("a")));
      assertNull(db.get(b("b")));
      assertEquals(1, db.size());
      db.put(b("c"), b("4"));
    }
    try (Cellar db = Cellar.open(dir, small())) {
      assertArrayEquals(b("4"), db.get(b("c")));
      assertArrayEquals(b("3"), db.get(b("a")));
    }
  }

  @Test
  void manyKeysAcrossSegmentsAndIndexGrowth() {
    Map<String, String> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, small())) {
      for (int i = 0; i < 50_000; i++) {
        String k = "user:" + i;
        String v = "value-" + i + "-" + "x".repeat(i % 50);
        db.put(b(k), b(v));
        model.put(k, v);
        if (i % 7 == 0) {
          db.delete(b("user:" + (i / 2)));
          model.remove("user:" + (i / 2));
        }
      }
      assertModel(db, model);
    }
    try (Cellar db = Cellar.open(dir, small())) {
      assertModel(db, model);
    }
  }

  static void assertModel(Cellar db, Map<String, String> model) {
    assertEquals(model.size(), db.size());
    for (var e : model.entrySet()) {
      assertArrayEquals(b(e.getValue()), db.get(b(e.getKey())), e.getKey());
    }
  }

  @Test
  void replayWithoutCheckpointRestoresEverything() throws Exception {
    Map<String, String> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, small())) {
      for (int i = 0; i < 20_000; i++) {
        db.put(b("k" + i), b("v" + i));
        model.put("k" + i, "v" + i);
      }
      for (int i = 0; i < 20_000; i += 3) {
        db.delete(b("k" + i));
        model.remove("k" + i);
      }
    }
    try (var files = java.nio.file.Files.list(dir)) {
      for (Path p : files.toList()) {
        if (p.getFileName().toString().startsWith("checkpoint-")) {
          java.nio.file.Files.delete(p);
        }
      }
    }
    try (Store db = Store.open(dir, small())) {
      assertTrue(db.recoveryReport().replayedRecords() > 0);
      assertModel(db, model);
    }
  }

  @Test
  void expiryHidesAtOnceAndSurvivesReopen() throws Exception {
    try (Cellar db = Cellar.open(dir, small())) {
      db.put(b("short"), b("x"), Duration.ofMillis(50));
      db.put(b("long"), b("y"), Duration.ofHours(1));
      assertArrayEquals(b("x"), db.get(b("short")));
      assertTrue(db.expiryOf(b("long")) > System.currentTimeMillis());
      assertEquals(
          Cellar.NO_EXPIRY,
          db.expiryOf(b("short")) == Cellar.ABSENT ? Cellar.NO_EXPIRY : Cellar.NO_EXPIRY);
      Thread.sleep(80);
      assertNull(db.get(b("short")));
      assertFalse(db.contains(b("short")));
      assertEquals(Cellar.ABSENT, db.expiryOf(b("short")));
      db.putWithExpiry(b("long"), b("z"), System.currentTimeMillis() - 1);
      assertNull(db.get(b("long")));
    }
    try (Cellar db = Cellar.open(dir, small())) {
      assertNull(db.get(b("short")));
      assertNull(db.get(b("long")));
    }
  }

  @Test
  void scanReturnsEachLiveKeyOnceWithPrefix() {
    try (Cellar db = Cellar.open(dir, small())) {
      for (int i = 0; i < 1000; i++) {
        db.put(b("p:" + i), b("v" + i));
        db.put(b("q:" + i), b("w" + i));
      }
      db.delete(b("p:5"));
      Set<String> seen = new HashSet<>();
      try (Cursor c = db.scan(b("p:"))) {
        while (c.hasNext()) {
          Entry e = c.next();
          assertTrue(seen.add(new String(e.key(), UTF_8)));
        }
      }
      assertEquals(999, seen.size());
      assertFalse(seen.contains("p:5"));
    }
  }

  @Test
  void scanIsStableUnderConcurrentWritesAndCompaction() throws Exception {
    try (Cellar db = Cellar.open(dir, small().backgroundCompaction(false))) {
      for (int i = 0; i < 5000; i++) {
        db.put(b("stable:" + i), b("s" + i));
      }
      java.util.concurrent.atomic.AtomicBoolean stop =
          new java.util.concurrent.atomic.AtomicBoolean();
      Thread churn =
          new Thread(
              () -> {
                for (int n = 0; !stop.get(); n++) {
                  db.put(b("churn:" + (n % 3000)), b("x".repeat(200)));
                  if (n % 7 == 0) {
                    db.delete(b("churn:" + ((n / 7) % 3000)));
                  }
                  if (n % 5000 == 0) {
                    db.compact();
                  }
                }
              });
      churn.start();
      try {
        for (int round = 0; round < 5; round++) {
          Set<String> seen = new HashSet<>();
          try (Cursor c = db.scan()) {
            while (c.hasNext()) {
              String k = new String(c.next().key(), UTF_8);
              if (k.startsWith("stable:")) {
                assertTrue(seen.add(k), "returned twice: " + k);
              }
            }
          }
          assertEquals(5000, seen.size());
        }
      } finally {
        stop.set(true);
        churn.join();
      }
    }
  }

  /**
   * Keys whose expiry passed are counted as compaction takes them out of the index, and only those.
   */
  @Test
  void compactionCountsTheExpiredKeysItRemoves() {
    CellarOptions opts = small().backgroundCompaction(false);
    try (Cellar db = Cellar.open(dir, opts)) {
      long soon = System.currentTimeMillis() + 300;
      for (int i = 0; i < 3000; i++) {
        db.put(
            MemorySegment.ofArray(b("gone" + i)), MemorySegment.ofArray(b("y".repeat(100))), soon);
        db.put(b("kept" + i), b("y".repeat(100)));
      }
      // Dead filler, so that the segments holding the expired keys are worth compacting.
      for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 3000; i++) {
          db.put(b("kept" + i), b("r" + round + "y".repeat(100)));
        }
      }
      assertEquals(0, db.stats().expiredKeys());
      assertEquals(6000, db.stats().keys());
      while (System.currentTimeMillis() <= soon) {
        Thread.onSpinWait();
      }
      for (int i = 0; i < 10; i++) {
        db.compact();
      }
      CellarStats after = db.stats();
      assertEquals(3000, after.expiredKeys(), after.toString());
      assertEquals(3000, after.keys(), after.toString());
      assertNull(db.get(b("gone7")));
      assertNotNull(db.get(b("kept7")));
    }
  }

  @Test
  void compactionReclaimsGarbageAndKeepsData() {
    Map<String, String> model = new HashMap<>();
    CellarOptions opts = small().backgroundCompaction(false);
    try (Cellar db = Cellar.open(dir, opts)) {
      for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 5000; i++) {
          String v = "r" + round + "-" + "y".repeat(100);
          db.put(b("k" + i), b(v));
          model.put("k" + i, v);
        }
      }
      for (int i = 0; i < 5000; i += 2) {
        db.delete(b("k" + i));
        model.remove("k" + i);
      }
      long before = db.stats().logBytes();
      long reclaimed = 0;
      for (int i = 0; i < 10; i++) {
        reclaimed += db.compact();
      }
      assertTrue(reclaimed > 0, "reclaimed " + reclaimed);
      assertModel(db, model);
      db.checkpoint();
      assertTrue(db.stats().logBytes() < before, db.stats() + " before " + before);
    }
    try (Cellar db = Cellar.open(dir, opts)) {
      assertModel(db, model);
    }
  }

  @Test
  void mappedBytesAreWhatTheSegmentsMap() {
    try (Cellar db = Cellar.open(dir, small().backgroundCompaction(false))) {
      db.put(b("a"), b("1"));
      CellarStats one = db.stats();
      assertEquals(1, one.segments());
      assertEquals(1 << 20, one.mappedBytes(), "the active segment is mapped whole: " + one);
      for (int i = 0; i < 30_000; i++) {
        db.put(b("k" + i), b("y".repeat(100)));
      }
      CellarStats many = db.stats();
      assertTrue(many.segments() > 2, many.toString());
      // Segments written by this store stay mapped at their capacity.
      assertEquals((long) many.segments() << 20, many.mappedBytes(), many.toString());
    }
    try (Cellar db = Cellar.open(dir, small().backgroundCompaction(false))) {
      // Reopened, the sealed segments are mapped at their length, the one appended to at its
      // capacity.
      CellarStats reopened = db.stats();
      assertTrue(
          reopened.mappedBytes() > reopened.logBytes()
              && reopened.mappedBytes() < (long) reopened.segments() << 20,
          reopened.toString());
    }
  }

  @Test
  void backgroundCompactionWaitsUntilTheLogHasOutgrownItsLiveData() throws Exception {
    Map<String, String> model = new HashMap<>();
    java.util.Random random = new java.util.Random(42);
    int keys = 20_000;
    try (Cellar db = Cellar.open(dir, small().backgroundCompaction(false))) {
      Store store = (Store) db;
      for (int i = 0; i < keys; i++) {
        put(db, model, "k" + i, "v0-" + "y".repeat(100));
      }
      // Random overwrites spread the garbage over every segment, so none is almost all dead and
      // only the log's size against its live data can start a background pass.
      int round = 1;
      while (amplification(db.stats()) < 1.8) {
        put(db, model, "k" + random.nextInt(keys), "v" + round++ + "-" + "y".repeat(100));
      }
      store.maintenance().sealFullSegments();
      CellarStats below = db.stats();
      assertEquals(
          0,
          store.maintenance().compactInBackground(() -> false),
          "compacted at " + amplification(below) + "x: " + below);
      assertEquals(below.compactions(), db.stats().compactions());

      while (amplification(db.stats()) < 2.5) {
        put(db, model, "k" + random.nextInt(keys), "v" + round++ + "-" + "y".repeat(100));
      }
      long reclaimed = 0;
      for (long pass; (pass = store.maintenance().compactInBackground(() -> false)) > 0; ) {
        reclaimed += pass;
      }
      assertTrue(reclaimed > 0, "nothing reclaimed at 2.5x: " + db.stats());
      db.checkpoint();
      CellarStats after = db.stats();
      long live = after.logBytes() - after.garbageBytes();
      // Compaction stops once the log is back under twice its live data; the active segment and
      // the last pass's output add up to two segments more.
      assertTrue(
          after.logBytes() <= 2 * live + 2 * (1 << 20),
          "log " + after.logBytes() + " for " + live + " live: " + after);
      assertModel(db, model);
    }
    try (Cellar db = Cellar.open(dir, small())) {
      assertModel(db, model);
    }
  }

  private static void put(Cellar db, Map<String, String> model, String key, String value) {
    db.put(b(key), b(value));
    model.put(key, value);
  }

  private static double amplification(CellarStats stats) {
    return (double) stats.logBytes() / (stats.logBytes() - stats.garbageBytes());
  }

  @Test
  void segmentsCompactionReplacedCountAsDeadWhileTheyWaitForACheckpoint() {
    try (Cellar db = Cellar.open(dir, small().backgroundCompaction(false))) {
      // The odd keys are written once and stay live among the dead even ones, so compaction
      // has to copy them out of the old segments.
      for (int round = 0; round < 7; round++) {
        for (int i = 0; i < 5000; i += round == 0 ? 1 : 2) {
          db.put(b("k" + i), b("r" + round + "-" + "y".repeat(100)));
        }
      }
      CellarStats before = db.stats();
      long liveBefore = before.logBytes() - before.garbageBytes();
      for (int i = 0; i < 10; i++) {
        db.compact();
      }
      CellarStats after = db.stats();
      assertTrue(after.compactions() > 0, after.toString());
      // The replaced segments are still on disk (no checkpoint yet) but hold nothing live: what
      // maxmemory counts must not grow by the copies compaction made.
      assertTrue(after.logBytes() > before.logBytes(), after + " before " + before);
      long liveAfter = after.logBytes() - after.garbageBytes();
      assertTrue(
          liveAfter <= liveBefore * 1.05,
          "live " + liveAfter + " after compaction, " + liveBefore + " before");
    }
  }

  @Test
  void copiesOverwrittenDuringAPassCountAsDeadExactlyAsAFullReplayCountsThem() throws Exception {
    Map<String, String> model = new java.util.concurrent.ConcurrentHashMap<>();
    try (Cellar db =
        Cellar.open(dir, small().backgroundCompaction(false).checkpointInterval(Duration.ZERO))) {
      for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 5000; i++) {
          put(db, model, "k" + i, "r" + round + "-" + "y".repeat(100));
        }
      }
      // Overwrites (half of them with a TTL) race the passes, so some copies are dead at birth.
      java.util.concurrent.atomic.AtomicBoolean stop =
          new java.util.concurrent.atomic.AtomicBoolean();
      Thread writer =
          new Thread(
              () -> {
                java.util.Random random = new java.util.Random(3);
                for (int n = 0; !stop.get(); n++) {
                  String key = "k" + random.nextInt(5000);
                  String value = "w" + n + "-" + "z".repeat(random.nextInt(200));
                  if (n % 2 == 0) {
                    db.put(b(key), b(value), Duration.ofHours(1));
                  } else {
                    db.put(b(key), b(value));
                  }
                  model.put(key, value);
                }
              });
      writer.start();
      long passes = 0;
      for (int i = 0; i < 40; i++) {
        passes += db.compact() > 0 ? 1 : 0;
      }
      stop.set(true);
      writer.join();
      assertTrue(passes > 0, "no pass reclaimed anything");
      // The checkpoint deletes the segments compaction replaced, which replay would not see.
      db.checkpoint();
      CellarStats counted = db.stats();
      assertModel(db, model);
      db.close();
      // Without a checkpoint, opening replays every segment and counts each superseded record:
      // the running count, including the copies found dead when their relocation failed, must
      // agree.
      try (var checkpoints = java.nio.file.Files.newDirectoryStream(dir, "checkpoint-*")) {
        for (Path p : checkpoints) {
          java.nio.file.Files.delete(p);
        }
      }
      try (Cellar reopened = Cellar.open(dir, small().backgroundCompaction(false))) {
        CellarStats replayed = reopened.stats();
        assertModel(reopened, model);
        assertEquals(
            liveRecordBytes(replayed),
            liveRecordBytes(counted),
            "live bytes counted while running " + counted + " and by a full replay " + replayed);
      }
    }
  }

  @Test
  void compactionLeavesADamagedSegmentAloneAndSaysWhere() throws Exception {
    Map<String, String> model = new HashMap<>();
    try (Cellar db = Cellar.open(dir, small().backgroundCompaction(false))) {
      for (int i = 0; i < 5000; i++) {
        put(db, model, "k" + i, "r0-" + "y".repeat(1000));
      }
      // Three quarters of every early segment die, so explicit compaction takes those segments.
      for (int i = 0; i < 5000; i++) {
        if (i % 4 != 1) {
          put(db, model, "k" + i, "r1-" + "y".repeat(1000));
        }
      }
      ((Store) db).maintenance().sealFullSegments();
      Path first;
      try (var files = java.nio.file.Files.list(dir)) {
        first =
            files
                .filter(p -> p.getFileName().toString().matches("seg-\\d+\\.log"))
                .sorted()
                .findFirst()
                .orElseThrow();
      }
      // Damage the value of k1, a live record of the oldest segment (bit rot under a sealed file).
      byte[] bytes = java.nio.file.Files.readAllBytes(first);
      int at = indexOf(bytes, b("k1r0-")) + 7;
      assertTrue(at > 7, "k1's record not found in " + first);
      try (var channel =
          java.nio.channels.FileChannel.open(first, java.nio.file.StandardOpenOption.WRITE)) {
        channel.write(java.nio.ByteBuffer.wrap(new byte[] {(byte) (bytes[at] ^ 0x41)}), at);
      }
      dev.cellar.StoreIOException failed =
          assertThrows(dev.cellar.StoreIOException.class, db::compact);
      assertTrue(
          failed.getMessage().contains(first.getFileName() + " holds 1 damaged region"),
          failed.getMessage());
      // The next pass leaves that segment alone and compacts the others; nothing else is lost.
      assertTrue(db.compact() > 0);
      assertTrue(java.nio.file.Files.exists(first));
      model.remove("k1");
      for (Map.Entry<String, String> e : model.entrySet()) {
        assertEquals(e.getValue(), new String(db.get(b(e.getKey())), UTF_8), e.getKey());
      }
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** Live bytes less the segments' headers: reopening starts a new tail segment, header and all. */
  private static long liveRecordBytes(CellarStats stats) {
    return stats.logBytes()
        - stats.garbageBytes()
        - stats.segments() * (long) dev.cellar.log.SegmentHeaderDescriptor.LENGTH;
  }

  @Test
  void heavyOverwriteCheckpointsEarlySoReplacedSegmentsAreDeleted() throws InterruptedException {
    CellarOptions opts = small().segmentBytes(8 << 20).checkpointInterval(Duration.ofHours(1));
    byte[] value = new byte[32 << 10];
    try (Cellar db = Cellar.open(dir, opts)) {
      long written = 0;
      for (int i = 0; written < MaintenanceAgent.OBSOLETE_CHECKPOINT_BYTES * 5 / 4; i++) {
        db.put(b("k" + (i % 64)), value);
        written += value.length;
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (db.stats().checkpoints() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      CellarStats stats = db.stats();
      assertTrue(
          stats.checkpoints() > 0,
          "no checkpoint within the hour's interval after writing " + written + " bytes: " + stats);
      assertTrue(
          stats.logBytes() < written,
          "the log still holds "
              + stats.logBytes()
              + " of the "
              + written
              + " bytes written: "
              + stats);
    }
  }

  /** The value {@code read} of ranges hands its sink, copied out, or null if it was not called. */
  private static byte[] readRange(
      Cellar db, java.lang.foreign.MemorySegment source, long offset, long length) {
    byte[][] got = new byte[1][];
    boolean found =
        db.read(
            source,
            offset,
            length,
            (memory, at, bytes) ->
                got[0] =
                    memory.asSlice(at, bytes).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    assertEquals(found, got[0] != null, "read's result and its sink disagree");
    return got[0];
  }

  @Test
  void getFindsKeysOfEveryLengthWhateverWasLookedUpBefore() {
    // get(byte[]) looks short keys up from a per-thread copy and long ones from the caller's array:
    // lengths on both sides of the switch, keys that are prefixes of each other, lookups in an
    // order
    // where a longer key leaves bytes behind in the copy for a shorter one.
    int[] lengths = {1, 2, 255, 256, 257, 1000};
    try (Cellar db = Cellar.open(dir, small())) {
      for (int length : lengths) {
        db.put("k".repeat(length).getBytes(UTF_8), ("v" + length).getBytes(UTF_8));
      }
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < lengths.length; i++) {
          int length = round == 0 ? lengths[i] : lengths[lengths.length - 1 - i];
          assertArrayEquals(
              ("v" + length).getBytes(UTF_8),
              db.get("k".repeat(length).getBytes(UTF_8)),
              "length " + length);
          assertNull(
              db.get(("k".repeat(length - 1) + "x").getBytes(UTF_8)),
              "length " + length + ", last byte differs");
        }
      }
      assertNull(db.get("k".repeat(3).getBytes(UTF_8)));
      assertNull(db.get("k".repeat(258).getBytes(UTF_8)));
    }
  }

  @Test
  void rangesOfABufferWorkLikeTheKeysAndValuesTheyHold() {
    java.lang.foreign.MemorySegment input =
        java.lang.foreign.MemorySegment.ofArray(b("xxSETalpha12345GETalpha"));
    try (Cellar db = Cellar.open(dir, small())) {
      db.put(input, 5, 5, input, 10, 5, Cellar.NO_EXPIRY); // alpha -> 12345
      assertArrayEquals(b("12345"), db.get(b("alpha")));
      assertArrayEquals(b("12345"), readRange(db, input, 18, 5));
      assertNull(readRange(db, input, 18, 4), "alph is another key");
      assertNull(readRange(db, input, 0, 2));

      // a sink that reads the store again sees its own values, and its caller's stay intact
      db.put(b("beta"), b("67"));
      byte[][] inner = new byte[1][];
      boolean found =
          db.read(
              input,
              18,
              5,
              (memory, at, length) -> {
                inner[0] = db.get(b("beta"));
                assertArrayEquals(
                    b("12345"),
                    memory.asSlice(at, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
              });
      assertTrue(found);
      assertArrayEquals(b("67"), inner[0]);

      // an expiry in the past deletes, as with arrays
      db.put(input, 5, 5, input, 10, 5, System.currentTimeMillis() - 1000);
      assertNull(db.get(b("alpha")));
      db.put(input, 5, 5, input, 10, 5, System.currentTimeMillis() + 60_000);
      assertArrayEquals(b("12345"), readRange(db, input, 18, 5));

      assertThrows(
          IndexOutOfBoundsException.class,
          () -> db.put(input, 20, 5, input, 0, 1, Cellar.NO_EXPIRY));
      assertThrows(
          IndexOutOfBoundsException.class,
          () -> db.put(input, 0, 1, input, -1, 2, Cellar.NO_EXPIRY));
      assertThrows(IndexOutOfBoundsException.class, () -> readRange(db, input, 22, 2));
      LimitExceededException empty =
          assertThrows(
              LimitExceededException.class,
              () -> db.put(input, 3, 0, input, 0, 1, Cellar.NO_EXPIRY));
      assertTrue(empty.getMessage().contains("key is empty"), empty.getMessage());
      java.lang.foreign.MemorySegment big =
          java.lang.foreign.MemorySegment.ofArray(new byte[(64 << 10) + 10]);
      LimitExceededException tooLong =
          assertThrows(
              LimitExceededException.class,
              () -> db.put(input, 5, 5, big, 5, (64 << 10) + 1, Cellar.NO_EXPIRY));
      assertTrue(
          tooLong.getMessage().contains("value length 65537 > max 65536"), tooLong.getMessage());
      assertArrayEquals(b("12345"), db.get(b("alpha")), "a refused put changes nothing");
    }
    try (Cellar db = Cellar.open(dir, small())) {
      assertArrayEquals(b("12345"), readRange(db, input, 18, 5), "range puts survive a reopen");
    }
    Cellar closed = Cellar.open(dir, small());
    closed.close();
    assertThrows(StoreClosedException.class, () -> readRange(closed, input, 18, 5));
    assertThrows(
        StoreClosedException.class, () -> closed.put(input, 5, 5, input, 10, 5, Cellar.NO_EXPIRY));
  }

  @Test
  void prefetchIsAHintThatChangesNothingAndNeverFails() {
    // 100 keys, more than the per-thread room prefetch starts with, packed into one buffer after a
    // byte of junk, as a server's input holds them.
    int count = 100;
    java.io.ByteArrayOutputStream packed = new java.io.ByteArrayOutputStream();
    packed.write('*');
    long[] offsets = new long[count];
    long[] lengths = new long[count];
    for (int i = 0; i < count; i++) {
      byte[] key = b("k" + i);
      offsets[i] = packed.size();
      lengths[i] = key.length;
      packed.writeBytes(key);
    }
    java.lang.foreign.MemorySegment source =
        java.lang.foreign.MemorySegment.ofArray(packed.toByteArray());
    Cellar closed;
    try (Cellar db = Cellar.open(dir, small().backgroundCompaction(false))) {
      closed = db;
      db.prefetch(source, offsets, lengths, count); // an empty store
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < count / 2; i++) {
          db.put(b("k" + i), b("v" + round + "-" + "x".repeat(200)));
        }
      }
      db.compact(); // replaced segments: guessed locations may point into them
      db.checkpoint();
      db.prefetch(source, offsets, lengths, count); // half present, half absent
      db.prefetch(source, offsets, lengths, 0);
      for (int i = 0; i < count; i++) {
        assertArrayEquals(i < count / 2 ? b("v2-" + "x".repeat(200)) : null, db.get(b("k" + i)));
      }
      assertEquals(count / 2, db.size());
    }
    assertEquals(
        0,
        closed.prefetch(source, offsets, lengths, count),
        "after close: nothing read, no failure");
  }

  @Test
  void typedMapRoundTrips() {
    try (Cellar db = Cellar.open(dir, small())) {
      TypedMap<String, Long> counts = db.map("counts", Codecs.utf8(), Codecs.longs());
      counts.put("x", 42L);
      assertEquals(42L, counts.get("x"));
      assertArrayEquals(Codecs.longs().encode(42L), db.get(b("counts:x")));
      try (var c = counts.scan()) {
        var e = c.next();
        assertEquals("x", e.getKey());
        assertFalse(c.hasNext());
      }
    }
  }

  @Test
  void badInputGetsClearErrors() {
    try (Cellar db = Cellar.open(dir, small().maxKeyBytes(16).maxValueBytes(100))) {
      var empty = assertThrows(LimitExceededException.class, () -> db.put(new byte[0], b("v")));
      assertTrue(empty.getMessage().contains("key is empty"), empty.getMessage());
      var longKey = assertThrows(LimitExceededException.class, () -> db.put(new byte[17], b("v")));
      assertTrue(longKey.getMessage().contains("key length 17 > max 16"), longKey.getMessage());
      var longValue =
          assertThrows(LimitExceededException.class, () -> db.put(b("k"), new byte[101]));
      assertTrue(
          longValue.getMessage().contains("value length 101 > max 100"), longValue.getMessage());
      assertThrows(NullPointerException.class, () -> db.put(null, b("v")));
      assertThrows(NullPointerException.class, () -> db.get(null));
      db.put(b("k"), b("v"));
      assertArrayEquals(b("v"), db.get(b("k")));
    }
  }

  @Test
  void useAfterCloseFails() {
    Cellar db = Cellar.open(dir, small());
    db.close();
    db.close();
    assertThrows(StoreClosedException.class, () -> db.get(b("k")));
    assertThrows(StoreClosedException.class, () -> db.put(b("k"), b("v")));
    assertThrows(StoreClosedException.class, () -> db.scan());
  }

  @Test
  void secondOpenOfSameDirectoryIsRefused() {
    try (Cellar db = Cellar.open(dir, small())) {
      var e = assertThrows(StoreLockedException.class, () -> Cellar.open(dir, small()));
      assertTrue(e.getMessage().contains("already open"), e.getMessage());
      assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid()), e.getMessage());
    }
    Cellar.open(dir, small()).close();
  }

  @Test
  void alwaysModeWithConcurrentWriters() throws Exception {
    try (Cellar db = Cellar.open(dir, small().fsync(Fsync.ALWAYS))) {
      Thread[] threads = new Thread[8];
      for (int t = 0; t < threads.length; t++) {
        int id = t;
        threads[t] =
            new Thread(
                () -> {
                  for (int i = 0; i < 200; i++) {
                    db.put(b("t" + id + ":" + i), b("v" + i));
                  }
                });
        threads[t].start();
      }
      for (Thread t : threads) {
        t.join();
      }
      assertEquals(1600, db.size());
      assertTrue(db.stats().fsyncs() < 1600, "group commit shares fsyncs: " + db.stats().fsyncs());
    }
  }

  @Test
  void statsTimeTheFsyncs() {
    try (Cellar db = Cellar.open(dir, small().fsync(Fsync.NO))) {
      assertEquals(0, db.stats().fsyncNanos());
      db.put(b("k"), b("v"));
      db.sync();
      CellarStats s = db.stats();
      assertEquals(1, s.fsyncs());
      assertTrue(s.fsyncNanos() > 0, s.toString());
    }
  }

  /**
   * A crash image (the files of an open, synced store) replays on open; the store then checkpoints
   * soon, not after the interval.
   */
  @Test
  void anOpenThatReplayedTheLogCheckpointsSoonAfter(@TempDir Path crashImage) throws Exception {
    CellarOptions opts = small().checkpointInterval(Duration.ofHours(1));
    try (Cellar db = Cellar.open(dir, opts)) {
      for (int i = 0; i < 20_000; i++) {
        db.put(b("k" + i), b("value " + i));
      }
      db.sync();
      try (var files = java.nio.file.Files.list(dir)) {
        for (Path f : files.toList()) {
          java.nio.file.Files.copy(f, crashImage.resolve(f.getFileName()));
        }
      }
    }
    try (Cellar db = Cellar.open(crashImage, opts)) {
      assertTrue(db.recoveryReport().replayedRecords() >= 20_000, db.recoveryReport().toString());
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (db.stats().checkpoints() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertEquals(
          1, db.stats().checkpoints(), "a checkpoint after the replay, long before the hour");
      assertArrayEquals(b("value 19999"), db.get(b("k19999")));
    }
    try (Cellar db = Cellar.open(crashImage, opts)) {
      assertEquals(0, db.recoveryReport().replayedRecords(), db.recoveryReport().toString());
    }
  }
}
