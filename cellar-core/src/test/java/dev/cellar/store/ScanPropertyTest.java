package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.ScanPage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Random writes, bulk loads that grow the index, compaction, checkpoints and reopens, interleaved
 * with the pages of resumable scans, against a set of live keys. Every page may return only live
 * keys with the iteration's prefix, none twice; when an iteration completes, it must have returned
 * every key that had the prefix and was live from its start to its end. {@link Cellar#randomKey}
 * must return a live key, and null only when there is none.
 */
class ScanPropertyTest {
  sealed interface Op
      permits Put,
          PutTtl,
          PutExpired,
          Delete,
          Load,
          Unload,
          Page,
          RandomKey,
          Compact,
          Checkpoint,
          Reopen {}

  record Put(String key) implements Op {}

  record PutTtl(String key) implements Op {}

  record PutExpired(String key) implements Op {}

  record Delete(String key) implements Op {}

  /**
   * Puts keys {@code k:first} to {@code k:(first + n - 1)}, enough to make the index grow, fetching
   * a page of the scan after every {@code pageEvery} puts (never if 0) so that pages meet
   * migrations.
   */
  record Load(int first, int n, int pageEvery) implements Op {}

  record Unload(int first, int n) implements Op {}

  record Page(int count) implements Op {}

  record RandomKey() implements Op {}

  record Compact() implements Op {}

  record Checkpoint() implements Op {}

  record Reopen() implements Op {}

  static final CellarOptions OPTIONS =
      CellarOptions.defaults()
          .fsync(Fsync.NO)
          .segmentBytes(64 << 10)
          .maxKeyBytes(1024)
          .maxValueBytes(4 << 10)
          .shards(2)
          .compactionGarbageRatio(0.3)
          .backgroundCompaction(false)
          .checkpointInterval(Duration.ZERO);

  static final List<String> PREFIXES = List.of("", "k:", "k:1");

  @Provide
  Arbitrary<List<Op>> operations() {
    Arbitrary<String> keys =
        Combinators.combine(Arbitraries.of("k:", "o:"), Arbitraries.integers().between(0, 3000))
            .as((p, i) -> p + i);
    Arbitrary<Integer> firsts = Arbitraries.integers().between(0, 3000);
    Arbitrary<Integer> sizes = Arbitraries.integers().between(1, 1200);
    Arbitrary<Op> op =
        Arbitraries.frequencyOf(
            Tuple.of(8, keys.map(Put::new)),
            Tuple.of(2, keys.map(PutTtl::new)),
            Tuple.of(1, keys.map(PutExpired::new)),
            Tuple.of(5, keys.map(Delete::new)),
            Tuple.of(
                3,
                Combinators.combine(firsts, sizes, Arbitraries.of(0, 1, 4, 16, 64)).as(Load::new)),
            Tuple.of(1, Combinators.combine(firsts, sizes).as(Unload::new)),
            Tuple.of(20, Arbitraries.integers().between(1, 300).map(Page::new)),
            Tuple.of(2, Arbitraries.just(new RandomKey())),
            Tuple.of(1, Arbitraries.just(new Compact())),
            Tuple.of(1, Arbitraries.just(new Checkpoint())),
            Tuple.of(1, Arbitraries.just(new Reopen())));
    return op.list().ofMinSize(1).ofMaxSize(100);
  }

  /** The iteration in progress and what the model knows about it. */
  static final class Iteration {
    final String prefix;
    final Set<String> throughout = new HashSet<>();
    final Set<String> returned = new HashSet<>();
    long cursor = ScanPage.START;

    Iteration(String prefix, Set<String> live) {
      this.prefix = prefix;
      for (String k : live) {
        if (k.startsWith(prefix)) {
          throughout.add(k);
        }
      }
    }

    /** Fetches one page; returns whether the iteration is complete. */
    boolean page(Cellar db, int count, Set<String> live) {
      ScanPage page = db.scanPage(cursor, prefix.getBytes(UTF_8), count);
      for (byte[] bytes : page.keys()) {
        String k = new String(bytes, UTF_8);
        assertTrue(k.startsWith(prefix), k + " lacks prefix " + prefix);
        assertTrue(live.contains(k), "returned " + k + ", which is not live");
        assertTrue(returned.add(k), "returned twice: " + k);
      }
      cursor = page.nextCursor();
      if (cursor != ScanPage.START) {
        return false;
      }
      Set<String> missed = new HashSet<>(throughout);
      missed.removeAll(returned);
      assertEquals(Set.of(), missed, "live throughout the iteration but not returned");
      return true;
    }
  }

  @Property(tries = 40)
  void pagesAgreeWithTheModel(@ForAll("operations") List<Op> ops) throws IOException {
    Path dir = Files.createTempDirectory("cellar-scan-prop");
    Set<String> live = new HashSet<>();
    Cellar db = Cellar.open(dir, OPTIONS);
    int iterations = 0;
    Iteration scan = new Iteration(PREFIXES.get(0), live);
    try {
      for (Op op : ops) {
        switch (op) {
          case Put p -> {
            db.put(p.key().getBytes(UTF_8), "v".getBytes(UTF_8));
            live.add(p.key());
          }
          case PutTtl p -> {
            db.put(p.key().getBytes(UTF_8), "t".getBytes(UTF_8), Duration.ofHours(1));
            live.add(p.key());
          }
          case PutExpired p -> {
            db.putWithExpiry(p.key().getBytes(UTF_8), "e".getBytes(UTF_8), 1);
            removed(p.key(), live, scan);
          }
          case Delete d -> {
            db.delete(d.key().getBytes(UTF_8));
            removed(d.key(), live, scan);
          }
          case Load l -> {
            for (int i = l.first(); i < l.first() + l.n(); i++) {
              db.put(("k:" + i).getBytes(UTF_8), "l".getBytes(UTF_8));
              live.add("k:" + i);
              if (l.pageEvery() > 0 && i % l.pageEvery() == 0 && scan.page(db, 3, live)) {
                iterations++;
                scan = new Iteration(PREFIXES.get(iterations % PREFIXES.size()), live);
              }
            }
          }
          case Unload u -> {
            for (int i = u.first(); i < u.first() + u.n(); i++) {
              db.delete(("k:" + i).getBytes(UTF_8));
              removed("k:" + i, live, scan);
            }
          }
          case Page p -> {
            if (scan.page(db, p.count(), live)) {
              iterations++;
              scan = new Iteration(PREFIXES.get(iterations % PREFIXES.size()), live);
            }
          }
          case RandomKey r -> {
            byte[] key = db.randomKey();
            if (live.isEmpty()) {
              assertNull(key);
            } else {
              assertNotNull(key);
              assertTrue(live.contains(new String(key, UTF_8)));
            }
          }
          case Compact c -> db.compact();
          case Checkpoint c -> db.checkpoint();
          case Reopen r -> {
            db.close();
            db = Cellar.open(dir, OPTIONS);
          }
        }
      }
      while (!scan.page(db, 100, live)) {
        // finish the iteration in progress, with no more writes
      }
      Iteration last = new Iteration("", live);
      while (!last.page(db, 1000, live)) {
        // and one more over a quiet store, which must return exactly the live keys
      }
      assertEquals(live, last.returned);
    } finally {
      db.close();
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void removed(String key, Set<String> live, Iteration scan) {
    live.remove(key);
    scan.throughout.remove(key);
  }
}
