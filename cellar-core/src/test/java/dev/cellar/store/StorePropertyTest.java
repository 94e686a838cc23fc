package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Cursor;
import dev.cellar.Fsync;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random sequences of operations against a {@link HashMap} model: puts, deletes, expiring puts,
 * expiry by the passage of a simulated deadline, reopen (clean, or after deleting the checkpoint so
 * the whole log replays), compaction and checkpoints. After every step the store must agree with
 * the model on the keys the step touched, and at the end (and after each reopen) on every key.
 */
class StorePropertyTest {
  sealed interface Op
      permits Put, PutTtl, Delete, Reopen, ReplayReopen, Compact, Checkpoint, Scan {}

  /** {@code offset} 0: a put of arrays; otherwise of ranges that start that far into a buffer. */
  record Put(int key, int size, int offset) implements Op {}

  record PutTtl(int key, boolean alreadyExpired) implements Op {}

  record Delete(int key) implements Op {}

  record Reopen() implements Op {}

  record ReplayReopen() implements Op {}

  record Compact() implements Op {}

  record Checkpoint() implements Op {}

  record Scan() implements Op {}

  static final CellarOptions OPTIONS =
      CellarOptions.defaults()
          .fsync(Fsync.NO)
          .segmentBytes(64 << 10)
          .maxKeyBytes(1024)
          .maxValueBytes(4 << 10)
          .shards(4)
          .compactionGarbageRatio(0.3)
          .backgroundCompaction(false)
          .checkpointInterval(java.time.Duration.ZERO);

  @Provide
  Arbitrary<List<Op>> operations() {
    Arbitrary<Integer> keys = Arbitraries.integers().between(0, 40);
    Arbitrary<Op> put =
        Combinators.combine(
                keys, Arbitraries.integers().between(0, 3000), Arbitraries.integers().between(0, 9))
            .as(Put::new);
    Arbitrary<Op> ttl = Combinators.combine(keys, Arbitraries.of(true, false)).as(PutTtl::new);
    Arbitrary<Op> delete = keys.map(Delete::new);
    Arbitrary<Op> op =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(10, put),
            net.jqwik.api.Tuple.of(2, ttl),
            net.jqwik.api.Tuple.of(4, delete),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(new Reopen())),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(new ReplayReopen())),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(new Compact())),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(new Checkpoint())),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(new Scan())));
    return op.list().ofMinSize(1).ofMaxSize(120);
  }

  @Property(tries = 60)
  void behavesLikeAMap(@ForAll("operations") List<Op> ops) throws IOException {
    Path dir = Files.createTempDirectory("cellar-prop");
    Map<String, String> model = new HashMap<>();
    Cellar db = Cellar.open(dir, OPTIONS);
    try {
      int version = 0;
      for (Op op : ops) {
        version++;
        switch (op) {
          case Put p -> {
            String k = "key" + p.key();
            String v = version + ":" + "x".repeat(p.size());
            if (p.offset() == 0) {
              db.put(k.getBytes(UTF_8), v.getBytes(UTF_8));
            } else {
              // key and value inside one buffer, junk around them, as a server's input holds them
              MemorySegment buffer =
                  MemorySegment.ofArray(
                      (".".repeat(p.offset()) + k + "|" + v + "!").getBytes(UTF_8));
              db.put(
                  buffer,
                  p.offset(),
                  k.length(),
                  buffer,
                  p.offset() + k.length() + 1,
                  v.length(),
                  Cellar.NO_EXPIRY);
            }
            model.put(k, v);
            assertEquals(v, get(db, k));
          }
          case PutTtl t -> {
            String k = "key" + t.key();
            String v = "ttl" + version;
            if (t.alreadyExpired()) {
              db.putWithExpiry(k.getBytes(UTF_8), v.getBytes(UTF_8), 1);
              model.remove(k);
            } else {
              db.put(k.getBytes(UTF_8), v.getBytes(UTF_8), java.time.Duration.ofHours(1));
              model.put(k, v);
            }
            assertEquals(model.get(k), get(db, k));
          }
          case Delete d -> {
            String k = "key" + d.key();
            assertEquals(model.remove(k) != null, db.delete(k.getBytes(UTF_8)));
            assertNull(get(db, k));
          }
          case Reopen r -> {
            db.close();
            db = Cellar.open(dir, OPTIONS);
            assertAll(db, model);
          }
          case ReplayReopen r -> {
            db.close();
            try (Stream<Path> files = Files.list(dir)) {
              for (Path f :
                  files
                      .filter(f -> f.getFileName().toString().startsWith("checkpoint-"))
                      .toList()) {
                Files.delete(f);
              }
            }
            db = Cellar.open(dir, OPTIONS);
            assertAll(db, model);
          }
          case Compact c -> {
            db.compact();
            assertAll(db, model);
          }
          case Checkpoint c -> db.checkpoint();
          case Scan s -> {
            Map<String, String> seen = new HashMap<>();
            try (Cursor cursor = db.scan("key".getBytes(UTF_8))) {
              cursor.forEachRemaining(
                  e ->
                      assertNull(
                          seen.put(new String(e.key(), UTF_8), new String(e.value(), UTF_8))));
            }
            assertEquals(model, seen);
          }
        }
      }
      assertAll(db, model);
      db.close();
      db = Cellar.open(dir, OPTIONS);
      assertAll(db, model);
    } finally {
      db.close();
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** The value as {@code get} returns it, after checking that a read of ranges agrees. */
  private static String get(Cellar db, String key) {
    byte[] v = db.get(key.getBytes(UTF_8));
    String value = v == null ? null : new String(v, UTF_8);
    MemorySegment buffer = MemorySegment.ofArray(("**" + key + "*").getBytes(UTF_8));
    String[] sunk = new String[1];
    boolean found =
        db.read(
            buffer,
            2,
            key.length(),
            (source, offset, length) ->
                sunk[0] =
                    new String(
                        source.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE), UTF_8));
    assertEquals(value != null, found, "read of ranges found " + key);
    assertEquals(value, sunk[0], "read of ranges of " + key);
    return value;
  }

  private static void assertAll(Cellar db, Map<String, String> model) {
    for (int i = 0; i <= 40; i++) {
      String k = "key" + i;
      assertEquals(model.get(k), get(db, k), k);
    }
    assertEquals(model.size(), db.size());
  }
}
