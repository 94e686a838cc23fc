package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.BatchValueSink;
import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CorruptStoreException;
import dev.cellar.Fsync;
import dev.cellar.LimitExceededException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Cellar#getAll}, {@link Cellar#readAll} and {@link Cellar#putAll} on real files. */
class BatchTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static CellarOptions options() {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(1 << 20)
        .maxKeyBytes(64)
        .maxValueBytes(4096)
        .shards(64);
  }

  private static byte[][] keys(String prefix, int count) {
    byte[][] keys = new byte[count][];
    for (int i = 0; i < count; i++) {
      keys[i] = b(prefix + i);
    }
    return keys;
  }

  private static void waitPast(long epochMillis) {
    while (System.currentTimeMillis() <= epochMillis) {
      Thread.onSpinWait();
    }
  }

  @Test
  void getAllAnswersAbsentExpiredAndDeletedKeysWithNullInTheirPlace() {
    try (Cellar db = Cellar.open(dir, options())) {
      db.put(b("live"), b("1"));
      db.put(b("deleted"), b("2"));
      assertTrue(db.delete(b("deleted")));
      long soon = System.currentTimeMillis() + 20;
      db.putWithExpiry(b("expiring"), b("3"), soon);
      db.put(b("other"), b("4"));
      waitPast(soon);

      byte[][] values =
          db.getAll(new byte[][] {b("live"), b("never"), b("deleted"), b("expiring"), b("other")});

      assertArrayEquals(b("1"), values[0]);
      assertNull(values[1]);
      assertNull(values[2]);
      assertNull(values[3]);
      assertArrayEquals(b("4"), values[4]);
      assertEquals(
          Arrays.asList(null, "4"),
          db.getAll(List.of(b("deleted"), b("other"))).stream()
              .map(v -> v == null ? null : new String(v, UTF_8))
              .toList());
    }
  }

  @Test
  void readAllHandsEachValueToTheSinkInKeyOrderAndSaysWhichAreAbsent() {
    try (Cellar db = Cellar.open(dir, options())) {
      db.put(b("k1"), b("one"));
      db.put(b("k3"), b("three"));
      byte[] request = b("k1k2k3k1");
      List<String> seen = new ArrayList<>();
      BatchValueSink sink =
          new BatchValueSink() {
            @Override
            public void accept(int index, MemorySegment source, long offset, long length) {
              byte[] value = source.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
              seen.add(index + "=" + new String(value, UTF_8));
            }

            @Override
            public void absent(int index) {
              seen.add(index + " absent");
            }
          };

      int found =
          db.readAll(
              MemorySegment.ofArray(request),
              new long[] {0, 2, 4, 6},
              new long[] {2, 2, 2, 2},
              4,
              sink);

      assertEquals(3, found);
      assertEquals(List.of("0=one", "1 absent", "2=three", "3=one"), seen);
    }
  }

  @Test
  void aKeyGivenTwiceInOneBatchEndsWithItsLastValueAndKeepsItAfterReopen() {
    try (Cellar db = Cellar.open(dir, options())) {
      db.putAll(
          new byte[][] {b("dup"), b("a"), b("dup"), b("b"), b("dup")},
          new byte[][] {b("first"), b("x"), b("second"), b("y"), b("last")},
          Cellar.NO_EXPIRY);
      assertArrayEquals(b("last"), db.get(b("dup")));
      assertEquals(3, db.size());
    }
    try (Cellar db = Cellar.open(dir, options())) {
      assertArrayEquals(b("last"), db.get(b("dup")));
    }
  }

  @Test
  void expiriesPerKeyAndAnExpiryInThePastDeletesAsASinglePutDoes() {
    try (Cellar db = Cellar.open(dir, options())) {
      db.put(b("gone"), b("old"));
      long later = System.currentTimeMillis() + 3_600_000;
      db.putAll(
          new byte[][] {b("kept"), b("timed"), b("gone")},
          new byte[][] {b("1"), b("2"), b("3")},
          new long[] {Cellar.NO_EXPIRY, later, 1});

      assertEquals(Cellar.NO_EXPIRY, db.expiryOf(b("kept")));
      assertEquals(later, db.expiryOf(b("timed")));
      assertNull(db.get(b("gone")));
      assertEquals(Cellar.ABSENT, db.expiryOf(b("gone")));
      assertEquals(2, db.size());
    }
  }

  @Test
  void anOversizedKeyOrValueFailsTheBatchWithNothingWritten() {
    try (Cellar db = Cellar.open(dir, options())) {
      db.put(b("a"), b("before"));
      byte[][] values = {b("after"), b("v"), b("v")};
      LimitExceededException tooLong =
          assertThrows(
              LimitExceededException.class,
              () ->
                  db.putAll(new byte[][] {b("a"), b("b"), new byte[65]}, values, Cellar.NO_EXPIRY));
      assertTrue(tooLong.getMessage().contains("key length 65 > max 64"), tooLong.getMessage());
      assertThrows(
          LimitExceededException.class,
          () ->
              db.putAll(
                  new byte[][] {b("a"), b("b"), b("c")},
                  new byte[][] {b("after"), b("v"), new byte[4097]},
                  Cellar.NO_EXPIRY));
      assertThrows(
          LimitExceededException.class,
          () -> db.putAll(new byte[][] {b("a"), new byte[0]}, new byte[2][1], Cellar.NO_EXPIRY));

      assertArrayEquals(b("before"), db.get(b("a")));
      assertNull(db.get(b("b")));
      assertEquals(1, db.size());
      assertEquals(1, db.stats().puts());
    }
  }

  @Test
  void aBatchAcrossEveryShardIsReadBackWholeAndSurvivesReopen() {
    int count = 5_000;
    byte[][] keys = keys("user:", count);
    byte[][] values = keys("value-", count);
    try (Cellar db = Cellar.open(dir, options())) {
      db.putAll(keys, values, Cellar.NO_EXPIRY);
      assertEquals(count, db.size());
      byte[][] read = db.getAll(keys);
      for (int i = 0; i < count; i++) {
        assertArrayEquals(values[i], read[i], "key " + i);
      }
    }
    try (Cellar db = Cellar.open(dir, options())) {
      byte[][] read = db.getAll(keys);
      for (int i = 0; i < count; i++) {
        assertArrayEquals(values[i], read[i], "key " + i + " after reopen");
      }
    }
  }

  @Test
  void batchesThatFillSegmentsAreSplitAtTheRollWithEverySeqInOrderAndSurviveReopen() {
    // Values of up to 3000 bytes in 1 MiB segments: most windows of 32 records (up to 96 KiB) do
    // not fit the space left in the active segment, and are appended in two parts.
    int count = 3_000;
    byte[][] keys = keys("big:", count);
    byte[][] values = new byte[count][];
    long[] expiries = new long[count];
    long later = System.currentTimeMillis() + 3_600_000;
    for (int i = 0; i < count; i++) {
      values[i] = new byte[1000 + (i * 37) % 2000];
      Arrays.fill(values[i], (byte) i);
      expiries[i] = i % 3 == 0 ? later + i : Cellar.NO_EXPIRY;
    }
    try (Cellar db = Cellar.open(dir, options())) {
      long before = db.lastSeq();
      for (int from = 0; from < count; from += 500) {
        db.putAll(
            Arrays.copyOfRange(keys, from, from + 500),
            Arrays.copyOfRange(values, from, from + 500),
            Arrays.copyOfRange(expiries, from, from + 500));
      }
      assertEquals(before + count, db.lastSeq(), "one seq a record, none skipped");
      assertTrue(db.stats().segments() > 4, db.stats().segments() + " segments");
      assertBatchReadsBack(db, keys, values, expiries);
    }
    try (Cellar db = Cellar.open(dir, options())) {
      assertEquals(0, db.recoveryReport().notes().size(), db.recoveryReport().toString());
      assertBatchReadsBack(db, keys, values, expiries);
    }
  }

  private static void assertBatchReadsBack(
      Cellar db, byte[][] keys, byte[][] values, long[] expiries) {
    assertEquals(keys.length, db.size());
    byte[][] read = db.getAll(keys);
    for (int i = 0; i < keys.length; i++) {
      assertArrayEquals(values[i], read[i], "key " + i);
      assertEquals(expiries[i], db.expiryOf(keys[i]), "expiry of key " + i);
    }
  }

  /**
   * A thread reuses one batch between calls: calls of growing and shrinking sizes, both forms in
   * turn, one refused half-way through its checks and one past the reused batch's size, each write
   * exactly what they were given, with nothing left over from the call before.
   */
  @Test
  void callsOnOneThreadOfEverySizeAndFormWriteWhatTheyAreGiven() {
    java.util.Random random = new java.util.Random(5);
    java.util.Map<String, byte[]> model = new java.util.HashMap<>();
    try (Cellar db = Cellar.open(dir, options())) {
      for (int call = 0; call < 200; call++) {
        int count = call % 50 == 49 ? 1_025 + random.nextInt(100) : random.nextInt(40);
        byte[][] keys = new byte[count][];
        byte[][] values = new byte[count][];
        for (int i = 0; i < count; i++) {
          keys[i] = b("k" + random.nextInt(3_000) + "x".repeat(random.nextInt(40)));
          values[i] = new byte[random.nextInt(300)];
          random.nextBytes(values[i]);
        }
        if (call % 7 == 3 && count > 0) {
          // Refused (a value over the limit): nothing of it may stay behind for the next call.
          byte[][] refused = values.clone();
          refused[count - 1] = new byte[5_000];
          assertThrows(
              LimitExceededException.class, () -> db.putAll(keys, refused, Cellar.NO_EXPIRY));
          continue;
        }
        if (call % 3 == 0) {
          putAsRanges(db, keys, values);
        } else if (call % 3 == 1) {
          long[] expiries = new long[count];
          db.putAll(keys, values, expiries);
        } else {
          db.putAll(keys, values, Cellar.NO_EXPIRY);
        }
        for (int i = 0; i < count; i++) {
          model.put(new String(keys[i], UTF_8), values[i]);
        }
        for (var entry : model.entrySet()) {
          assertArrayEquals(entry.getValue(), db.get(b(entry.getKey())), "call " + call);
        }
      }
      assertEquals(model.size(), db.size());
    }
  }

  /** {@code db.putAll} of the keys and values laid out one after another in one segment. */
  private static void putAsRanges(Cellar db, byte[][] keys, byte[][] values) {
    int count = keys.length;
    int total = 0;
    for (int i = 0; i < count; i++) {
      total += keys[i].length + values[i].length;
    }
    MemorySegment buffer = MemorySegment.ofArray(new byte[total]);
    long[] keyOffsets = new long[count];
    long[] keyLengths = new long[count];
    long[] valueOffsets = new long[count];
    long[] valueLengths = new long[count];
    long at = 0;
    for (int i = 0; i < count; i++) {
      MemorySegment.copy(keys[i], 0, buffer, ValueLayout.JAVA_BYTE, at, keys[i].length);
      keyOffsets[i] = at;
      keyLengths[i] = keys[i].length;
      at += keys[i].length;
      MemorySegment.copy(values[i], 0, buffer, ValueLayout.JAVA_BYTE, at, values[i].length);
      valueOffsets[i] = at;
      valueLengths[i] = values[i].length;
      at += values[i].length;
    }
    db.putAll(buffer, keyOffsets, keyLengths, valueOffsets, valueLengths, count, Cellar.NO_EXPIRY);
  }

  @Test
  void keysAndValuesAsRangesOfOneSegmentAreWrittenAsGiven() {
    byte[] buffer = b("k1v1k2value2k1v3");
    try (Cellar db = Cellar.open(dir, options())) {
      db.putAll(
          MemorySegment.ofArray(buffer),
          new long[] {0, 4, 12},
          new long[] {2, 2, 2},
          new long[] {2, 6, 14},
          new long[] {2, 6, 2},
          3,
          Cellar.NO_EXPIRY);
      assertArrayEquals(b("v3"), db.get(b("k1")));
      assertArrayEquals(b("value2"), db.get(b("k2")));
      assertEquals(2, db.size());
    }
  }

  @Test
  void underFsyncAlwaysABatchWaitsForOneGroupCommitNotOnePerKey() {
    int count = 200;
    try (Cellar db = Cellar.open(dir, options().fsync(Fsync.ALWAYS))) {
      long before = db.stats().fsyncs();
      db.putAll(keys("durable:", count), keys("v", count), Cellar.NO_EXPIRY);
      long fsyncs = db.stats().fsyncs() - before;
      assertTrue(fsyncs >= 1 && fsyncs <= 2, fsyncs + " fsyncs for one batch of " + count);
      assertArrayEquals(b("v7"), db.get(b("durable:7")));
    }
  }

  @Test
  void aDamagedValueIsNotReturnedByABatchRead() throws IOException {
    byte[] value = new byte[200];
    Arrays.fill(value, (byte) 'Q');
    try (Cellar db = Cellar.open(dir, options())) {
      db.put(b("victim"), value);
      db.put(b("bystander"), b("fine"));
    }
    flipFirstByteOf(value);
    try (Cellar db = Cellar.open(dir, options())) {
      assertThrows(CorruptStoreException.class, () -> db.getAll(new byte[][] {b("victim")}));
      byte[] key = b("victim");
      assertThrows(
          CorruptStoreException.class,
          () ->
              db.readAll(
                  MemorySegment.ofArray(key),
                  new long[] {0},
                  new long[] {key.length},
                  1,
                  new BatchValueSink() {
                    @Override
                    public void accept(int index, MemorySegment s, long offset, long length) {}

                    @Override
                    public void absent(int index) {}
                  }));
      assertArrayEquals(b("fine"), db.getAll(new byte[][] {b("bystander")})[0]);
    }
  }

  /** Flips a byte in the middle of the one run of {@code value} in the store's log segments. */
  private void flipFirstByteOf(byte[] value) throws IOException {
    try (var files = Files.list(dir)) {
      for (Path file : files.toList()) {
        byte[] bytes = Files.readAllBytes(file);
        int at = indexOf(bytes, value);
        if (at >= 0 && file.getFileName().toString().endsWith(".log")) {
          bytes[at + value.length / 2] ^= 1;
          Files.write(file, bytes);
          return;
        }
      }
    }
    fail("value not found in any log segment of " + dir);
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

  @Test
  void batchReadsSeeEveryValueWhileCompactionMovesThem() throws Exception {
    int stable = 2_000;
    byte[][] keys = keys("stable:", stable);
    byte[][] values = keys("s", stable);
    try (Cellar db = Cellar.open(dir, options().backgroundCompaction(false))) {
      // Each stable record sits among dead filler, so compaction moves it to a segment of its own.
      byte[] filler = new byte[500];
      for (int i = 0; i < stable; i++) {
        db.putAll(new byte[][] {keys[i], b("dead:" + i)}, new byte[][] {values[i], filler}, 0);
      }
      for (int i = 0; i < stable; i++) {
        db.delete(b("dead:" + i));
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> churnFailure = new AtomicReference<>();
      long[] compactedBytes = {0};
      Thread churn =
          new Thread(
              () -> {
                try {
                  for (int n = 0; !stop.get(); n++) {
                    db.put(b("churn:" + (n % 500)), filler);
                    if (n % 2_000 == 0) {
                      compactedBytes[0] += db.compact();
                    }
                  }
                } catch (Throwable e) {
                  churnFailure.set(e);
                }
              });
      churn.start();
      try {
        for (int round = 0; round < 40; round++) {
          byte[][] read = db.getAll(keys);
          for (int i = 0; i < stable; i++) {
            assertArrayEquals(values[i], read[i], "round " + round + ", key " + i);
          }
        }
      } finally {
        stop.set(true);
        churn.join();
      }
      assertNull(churnFailure.get());
      assertTrue(db.stats().compactions() > 0, "no compaction ran: " + db.stats());
    }
  }
}
