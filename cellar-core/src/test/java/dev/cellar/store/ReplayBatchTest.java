package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.index.HashIndex;
import dev.cellar.index.KeyHasher;
import dev.cellar.io.FileIO;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import dev.cellar.recovery.Recovery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replay in batches, with the index's misses prefetched and the records applied on a second thread,
 * must build exactly what applying one record at a time builds: the same index entries in every
 * shard and the same accounting (dead bytes, TTL bytes, dead-record marks) in every segment. The
 * log holds overwrites, deletes (of present and absent keys), records with a TTL (some already
 * expired), a compaction's output (old records under new segment ids, so replayed out of seq order)
 * and an unsealed last segment, as a kill -9 leaves it.
 */
class ReplayBatchTest {
  private static final int KEYS = 1500;

  @TempDir Path work;

  @Test
  void batchedReplayBuildsWhatOneAtATimeBuilds() throws IOException {
    Path crashed = work.resolve("crashed");
    long indexed = writeLogAndCrash(crashed);

    Snapshot oneAtATime = replay(copy(crashed, "single"), 1, false);
    assertEquals(indexed, oneAtATime.keys(), "replay one at a time lost or invented keys");
    assertTrue(oneAtATime.deadBytes() > 0, "the log has no garbage: the test proves nothing");
    assertTrue(oneAtATime.deadMarks() > 0, "no record was marked dead: the test proves nothing");
    assertTrue(oneAtATime.ttlBytes() > 0, "no TTL record survived: the test proves nothing");

    for (int batch : new int[] {Recovery.DEFAULT_BATCH, 7, ReplayApplier.GROUP + 1}) {
      for (boolean parallel : new boolean[] {false, true}) {
        Snapshot batched = replay(copy(crashed, "b" + batch + parallel), batch, parallel);
        assertEquals(
            "",
            oneAtATime.firstDifference(batched),
            "batch " + batch + ", parallel " + parallel + " differs from one at a time");
      }
    }
  }

  /**
   * Writes the log, copies it while the store is open (a crash), and returns the keys in the
   * store's index then.
   */
  private long writeLogAndCrash(Path directory) throws IOException {
    Path open = work.resolve("open");
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.NO)
            .segmentBytes(CellarOptions.MIN_SEGMENT_BYTES)
            .maxKeyBytes(64)
            .maxValueBytes(1024)
            .checkpointInterval(Duration.ZERO)
            .backgroundCompaction(false)
            .shards(8);
    SplittableRandom random = new SplittableRandom(20261125);
    try (Cellar db = Cellar.open(open, options)) {
      workload(db, random, 12_000);
      db.compact();
      workload(db, random, 12_000);
      db.sync();
      copyFiles(open, directory);
      return db.size();
    }
  }

  private static void workload(Cellar db, SplittableRandom random, int operations) {
    long now = System.currentTimeMillis();
    for (int op = 0; op < operations; op++) {
      int k = random.nextInt(KEYS);
      byte[] key = ("key:" + k).getBytes(StandardCharsets.UTF_8);
      byte[] value = new byte[1 + random.nextInt(40)];
      random.nextBytes(value);
      int kind = random.nextInt(10);
      if (kind < 2) {
        db.delete(key);
      } else if (kind < 4) {
        db.putWithExpiry(key, value, now + 3_600_000 + random.nextInt(1000));
      } else if (kind == 4) {
        // Already expired: whatever the store makes of it, replay must make the same.
        db.putWithExpiry(key, value, now - 1000 - random.nextInt(1000));
      } else {
        db.put(key, value);
      }
    }
  }

  /** Replays a store directory into fresh shards, as {@code Store.recover} does. */
  private static Snapshot replay(Path directory, int batch, boolean parallel) throws IOException {
    FileIO io = FileIO.platform();
    StoreMetaDescriptor meta = StoreMetaDescriptor.read(io, directory);
    KeyHasher hasher = new KeyHasher(meta.seed0(), meta.seed1());
    SegmentTable segments = new SegmentTable();
    Shard[] shards = new Shard[meta.shards()];
    for (int i = 0; i < shards.length; i++) {
      shards[i] = new Shard(segments, hasher);
    }
    Recovery recovery =
        new Recovery(io, directory, false, shards.length, batch, parallel ? 0 : Long.MAX_VALUE);
    try {
      recovery.scanDirectory();
      assertEquals(
          null,
          recovery.loadCheckpoint((shard, slots, keys, elements) -> {}),
          "the crashed store has a checkpoint: nothing would be replayed");
      recovery.placeSegments(segments);
      for (Shard shard : shards) {
        shard.index = new HashIndex(shard, 0); // small: the replay grows the tables too
      }
      try (ReplayApplier applier =
          new ReplayApplier(shards, hasher, segments, new GarbageAccounting(segments), null)) {
        recovery.replay(applier);
      }
      assertTrue(
          recovery.report().notes().stream().anyMatch(n -> n.contains("unclean shutdown")),
          "the copy has no unsealed segment: " + recovery.report().notes());
      return Snapshot.of(shards, segments);
    } finally {
      for (Shard shard : shards) {
        if (shard.index != null) {
          shard.index.close();
        }
      }
      recovery.openedSegments().forEach(Segment::close);
    }
  }

  /** What replay built: each shard's sorted locations, and each segment's accounting. */
  private record Snapshot(List<String> shards, List<String> segments) {
    static Snapshot of(Shard[] shards, SegmentTable table) {
      List<String> indexes = new ArrayList<>();
      for (Shard shard : shards) {
        List<Long> locations = new ArrayList<>();
        shard.index.forEachLocation(locations::add);
        locations.sort(null);
        indexes.add(shard.index.size() + " " + locations);
      }
      List<String> accounts = new ArrayList<>();
      for (Segment s : table.all()) {
        accounts.add(
            String.join(
                " ",
                "id=" + s.id(),
                "slot=" + s.slot(),
                "compacted=" + s.isCompacted(),
                "dead=" + s.deadBytes(),
                "ttl=" + s.ttlLiveBytes(),
                "maxExpiry=" + s.maxExpiry(),
                "seqs=" + s.minSeq() + ".." + s.maxSeq(),
                "end=" + s.end()));
      }
      return new Snapshot(indexes, accounts);
    }

    /** The first shard or segment that differs, abbreviated; empty if none does. */
    String firstDifference(Snapshot other) {
      for (int i = 0; i < Math.max(shards.size(), other.shards.size()); i++) {
        if (i >= shards.size() || i >= other.shards.size()) {
          return "shard count " + shards.size() + " against " + other.shards.size();
        }
        if (!shards.get(i).equals(other.shards.get(i))) {
          return "index of shard " + i + ": " + diff(shards.get(i), other.shards.get(i));
        }
      }
      for (int i = 0; i < Math.max(segments.size(), other.segments.size()); i++) {
        if (i >= segments.size() || i >= other.segments.size()) {
          return "segment count " + segments.size() + " against " + other.segments.size();
        }
        if (!segments.get(i).equals(other.segments.get(i))) {
          return "segment " + diff(segments.get(i), other.segments.get(i));
        }
      }
      return "";
    }

    private static String diff(String expected, String actual) {
      int at = 0;
      while (at < Math.min(expected.length(), actual.length())
          && expected.charAt(at) == actual.charAt(at)) {
        at++;
      }
      int from = Math.max(0, at - 60);
      return "expected ..."
          + expected.substring(from, Math.min(expected.length(), at + 60))
          + "... but was ..."
          + actual.substring(from, Math.min(actual.length(), at + 60))
          + "...";
    }

    long keys() {
      return shards.stream().mapToLong(s -> Long.parseLong(s.substring(0, s.indexOf(' ')))).sum();
    }

    long deadBytes() {
      return sum("dead=");
    }

    long ttlBytes() {
      return sum("ttl=");
    }

    long deadMarks() {
      return segments.stream().filter(s -> !s.endsWith("marks=[]")).count();
    }

    private long sum(String field) {
      long total = 0;
      for (String s : segments) {
        int at = s.indexOf(field) + field.length();
        total += Long.parseLong(s.substring(at, s.indexOf(' ', at)));
      }
      return total;
    }
  }

  private Path copy(Path from, String name) throws IOException {
    Path to = work.resolve(name);
    copyFiles(from, to);
    return to;
  }

  private static void copyFiles(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path file : files.toList()) {
        String name = file.getFileName().toString();
        if (!name.equals("LOCK") && !name.startsWith("checkpoint-")) {
          Files.copy(file, to.resolve(name));
        }
      }
    }
  }
}
