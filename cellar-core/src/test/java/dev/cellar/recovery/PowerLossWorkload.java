package dev.cellar.recovery;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Cursor;
import dev.cellar.Entry;
import dev.cellar.Fsync;
import dev.cellar.WriteBatch;
import dev.cellar.io.DiskEvent;
import dev.cellar.io.SimulatedFileIO;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A random workload run once against a recording {@link SimulatedFileIO}, and what it promises
 * after a power loss at any point of the recorded trace.
 *
 * <h2>The workload</h2>
 *
 * Puts of unique values (the value names its key and operation, so a value that shows up under the
 * wrong key, or was never written, is caught), overwrites, deletes, puts expiring in an hour or in
 * a few milliseconds, explicit syncs, checkpoints, compactions and now and then a clean close and
 * reopen (which resumes appending to the last segment), over 64 KiB segments so the log rolls every
 * few dozen puts; then a clean close. A quarter of the workloads spread their calls over 300 keys
 * (the index grows), the rest over 12 (many overwrites); half reserve log space by writing zeros.
 * Every call is bracketed by marks in the trace, so a cut index tells which calls had returned.
 *
 * <h2>What must hold at a cut</h2>
 *
 * An operation <em>must</em> have survived if it returned before the cut and, unless the mode is
 * {@code always}, also before the start of a sync (an explicit {@code sync()}, a checkpoint, which
 * syncs the log before it publishes, or the close) that completed before the cut. For each key the
 * store may then show the last operation that must have survived (or nothing, if none must), or any
 * later operation on the key that had started: never an older value, never a value written for
 * another key or not at all. A put whose expiry has passed shows as absent.
 */
final class PowerLossWorkload {
  static final int SEGMENT_BYTES = CellarOptions.MIN_SEGMENT_BYTES;

  enum Kind {
    PUT,
    DELETE,
    SYNC,
    CHECKPOINT,
    COMPACT,
    CLOSE,
    OPEN
  }

  /** One API call and where its start and return are in the trace. */
  record Op(int index, Kind kind, int key, String value, long expireAt, int begin, int end) {
    boolean isWrite() {
      return kind == Kind.PUT || kind == Kind.DELETE;
    }

    boolean isSync() {
      return kind == Kind.SYNC || kind == Kind.CHECKPOINT || kind == Kind.CLOSE;
    }
  }

  final long seed;
  final Fsync mode;
  final Path directory;

  /**
   * In the order calls returned; each key's calls come from one thread, so they are in its order.
   */
  final List<Op> ops = java.util.Collections.synchronizedList(new ArrayList<>());

  final Map<String, Op> byValue = new java.util.concurrent.ConcurrentHashMap<>();

  /** The ops of each atomic batch, one per key. */
  final List<List<Op>> batches = java.util.Collections.synchronizedList(new ArrayList<>());

  boolean zeroFill;

  /** Keys are key-0 .. key-(keys - 1): few, for many overwrites, or enough to grow the index. */
  int keys;

  List<DiskEvent> trace;
  List<String> violations;

  private PowerLossWorkload(long seed, Fsync mode, Path directory) {
    this.seed = seed;
    this.mode = mode;
    this.directory = directory;
  }

  static CellarOptions options(Fsync mode, SimulatedFileIO io) {
    return CellarOptions.defaults()
        .fsync(mode)
        .segmentBytes(SEGMENT_BYTES)
        .shards(4)
        .maxKeyBytes(1024)
        .maxValueBytes(8 << 10)
        .compactionGarbageRatio(0.3)
        .backgroundCompaction(false)
        .checkpointInterval(Duration.ZERO)
        .fileIO(io);
  }

  private CellarOptions options(SimulatedFileIO io) {
    return options(mode, io).zeroFillLog(zeroFill);
  }

  /**
   * Generates the workload of {@code seed} and runs it once, recording the trace. With more than
   * one writer, that many threads run {@code length / writers} calls each at once, each on its own
   * keys (so each key's calls are still in one order), and there is no reopen.
   */
  static PowerLossWorkload record(long seed, Fsync mode, Path directory, int length, int writers) {
    PowerLossWorkload w = new PowerLossWorkload(seed, mode, directory);
    Random random = new Random(seed);
    try (SimulatedFileIO disk = new SimulatedFileIO(SEGMENT_BYTES)) {
      // Half the workloads reserve log space by writing zeros, half by allocating.
      w.zeroFill = random.nextBoolean();
      w.keys = random.nextInt(4) == 0 ? 300 : 12;
      Cellar db = Cellar.open(directory, w.options(disk));
      disk.mark("opened");
      try {
        if (writers > 1) {
          w.runConcurrently(db, disk, length, writers);
        } else {
          for (int i = 0; i < length; i++) {
            if (random.nextInt(60) == 0) {
              db = w.reopen(db, disk, directory, i);
            } else {
              w.step(db, disk, i, random.nextInt(w.keys), random, r -> r.nextInt(w.keys));
            }
          }
        }
      } finally {
        int begin = disk.mark("close");
        db.close();
        w.ops.add(new Op(length, Kind.CLOSE, -1, null, 0, begin, disk.mark("closed")));
      }
      w.trace = disk.trace();
      w.violations = disk.violations();
    }
    return w;
  }

  private void runConcurrently(Cellar db, SimulatedFileIO disk, int length, int writers) {
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < writers; t++) {
      int writer = t;
      Random random = new Random(seed * 31 + writer);
      threads.add(
          Thread.ofPlatform()
              .name("powerloss-writer-" + writer)
              .start(
                  () -> {
                    try {
                      for (int i = 0; i < length / writers; i++) {
                        int key = writer + writers * random.nextInt(Math.max(1, keys / writers));
                        step(
                            db,
                            disk,
                            writer * length + i,
                            key,
                            random,
                            r -> writer + writers * r.nextInt(Math.max(1, keys / writers)));
                      }
                    } catch (Throwable e) {
                      failures.add(e);
                    }
                  }));
    }
    for (Thread thread : threads) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while writers ran", e);
      }
    }
    if (!failures.isEmpty()) {
      throw new AssertionError("a writer failed", failures.getFirst());
    }
  }

  /** A clean close (which syncs everything) and an open, as two calls. */
  private Cellar reopen(Cellar db, SimulatedFileIO disk, Path directory, int index) {
    int begin = disk.mark("close " + index);
    db.close();
    ops.add(new Op(index, Kind.CLOSE, -1, null, 0, begin, disk.mark("closed " + index)));
    begin = disk.mark("open " + index);
    Cellar reopened = Cellar.open(directory, options(disk));
    ops.add(new Op(index, Kind.OPEN, -1, null, 0, begin, disk.mark("opened " + index)));
    return reopened;
  }

  private void step(
      Cellar db,
      SimulatedFileIO disk,
      int index,
      int key,
      Random random,
      java.util.function.ToIntFunction<Random> anotherKey) {
    int draw = random.nextInt(100);
    if (draw >= 55 && draw < 61) {
      batch(db, disk, index, key, random, anotherKey);
      return;
    }
    Kind kind;
    String value = null;
    long expireAt = 0;
    if (draw < 55) {
      kind = Kind.PUT;
      value = valueFor(key, index, random);
      if (draw >= 47) {
        expireAt =
            System.currentTimeMillis()
                + (draw % 2 == 0 ? Duration.ofHours(1).toMillis() : 1 + random.nextInt(30));
      }
    } else if (draw < 72) {
      kind = Kind.DELETE;
    } else if (draw < 84) {
      kind = Kind.SYNC;
    } else if (draw < 92) {
      kind = Kind.CHECKPOINT;
    } else {
      kind = Kind.COMPACT;
    }
    int begin = disk.mark(kind + " " + index);
    switch (kind) {
      case PUT -> {
        if (expireAt == 0) {
          db.put(keyBytes(key), value.getBytes(UTF_8));
        } else {
          db.putWithExpiry(keyBytes(key), value.getBytes(UTF_8), expireAt);
        }
      }
      case DELETE -> db.delete(keyBytes(key));
      case SYNC -> db.sync();
      case CHECKPOINT -> db.checkpoint();
      case COMPACT -> db.compact();
      case CLOSE, OPEN -> throw new IllegalStateException(kind + " is not drawn at random");
    }
    Op op =
        new Op(
            index,
            kind,
            kind.ordinal() <= Kind.DELETE.ordinal() ? key : -1,
            value,
            expireAt,
            begin,
            disk.mark("done " + index));
    ops.add(op);
    if (value != null) {
      byValue.put(value, op);
    }
  }

  /**
   * One {@link Cellar#write(WriteBatch)} of puts and deletes to a few distinct keys (those {@code
   * anotherKey} draws: the same writer's), recorded as one op per key sharing the call's index,
   * begin and end, and remembered in {@link #batches} for the atomicity check.
   */
  private void batch(
      Cellar db,
      SimulatedFileIO disk,
      int index,
      int key,
      Random random,
      java.util.function.ToIntFunction<Random> anotherKey) {
    java.util.Set<Integer> keysOfBatch = new java.util.LinkedHashSet<>();
    keysOfBatch.add(key);
    int size = 2 + random.nextInt(4);
    for (int tries = 0; keysOfBatch.size() < size && tries < 20; tries++) {
      keysOfBatch.add(anotherKey.applyAsInt(random));
    }
    WriteBatch batch = new WriteBatch();
    List<String> values = new ArrayList<>();
    for (int k : keysOfBatch) {
      String value = random.nextInt(4) == 0 ? null : valueFor(k, index, random);
      values.add(value);
      if (value == null) {
        batch.delete(keyBytes(k));
      } else {
        batch.put(keyBytes(k), value.getBytes(UTF_8));
      }
    }
    int begin = disk.mark("BATCH " + index);
    db.write(batch);
    int end = disk.mark("done " + index);
    List<Op> members = new ArrayList<>();
    int i = 0;
    for (int k : keysOfBatch) {
      String value = values.get(i++);
      Op op = new Op(index, value == null ? Kind.DELETE : Kind.PUT, k, value, 0, begin, end);
      members.add(op);
      ops.add(op);
      if (value != null) {
        byValue.put(value, op);
      }
    }
    batches.add(members);
  }

  /** A value no other operation writes: its key and index, then filler of a random length. */
  private static String valueFor(int key, int index, Random random) {
    int filler = random.nextInt(10) == 0 ? 4000 + random.nextInt(4000) : random.nextInt(2500);
    StringBuilder v = new StringBuilder("key-" + key + "@op" + index + ":");
    char c = (char) ('a' + index % 26);
    v.repeat(c, filler);
    return v.toString();
  }

  static byte[] keyBytes(int key) {
    return ("key-" + key).getBytes(UTF_8);
  }

  // ---------------------------------------------------------------- the oracle

  private java.util.Set<Integer> writtenKeys() {
    java.util.Set<Integer> written = new java.util.TreeSet<>();
    for (Op op : ops) {
      if (op.isWrite()) {
        written.add(op.key());
      }
    }
    return written;
  }

  /**
   * The operations key {@code key} may show after a cut before trace index {@code cut}: the last
   * one that must have survived (null standing for "never written") and every later one started.
   */
  List<Op> candidates(int key, int cut) {
    int syncStart = -1;
    for (Op op : ops) {
      if (op.isSync() && op.end() < cut) {
        syncStart = Math.max(syncStart, op.begin());
      }
    }
    List<Op> out = new ArrayList<>();
    out.add(null);
    for (Op op : ops) {
      if (!op.isWrite() || op.key() != key || op.begin() >= cut) {
        continue;
      }
      boolean mustSurvive = op.end() < cut && (mode == Fsync.ALWAYS || op.end() < syncStart);
      if (mustSurvive) {
        out.clear();
      }
      out.add(op);
    }
    return out;
  }

  /**
   * Checks every key of a store recovered from a crash at {@code cut}; returns what is wrong, or
   * null.
   */
  String check(Cellar db, int cut) {
    long before = System.currentTimeMillis();
    // Keys no call wrote are checked by the scan, which must not show them.
    Map<Integer, byte[]> got = new TreeMap<>();
    for (int key : writtenKeys()) {
      got.put(key, db.get(keyBytes(key)));
    }
    Map<String, byte[]> scanned = new TreeMap<>();
    try (Cursor cursor = db.scan(new byte[0])) {
      while (cursor.hasNext()) {
        Entry e = cursor.next();
        if (scanned.put(new String(e.key(), UTF_8), e.value()) != null) {
          return "scan returned key " + new String(e.key(), UTF_8) + " twice";
        }
      }
    }
    long after = System.currentTimeMillis();
    List<String> problems = new ArrayList<>();
    for (int key : got.keySet()) {
      List<Op> allowed = candidates(key, cut);
      byte[] fromGet = got.get(key);
      byte[] fromScan = scanned.remove("key-" + key);
      String getProblem = judge(fromGet, allowed, key, before, after);
      String scanProblem = judge(fromScan, allowed, key, before, after);
      if (getProblem != null) {
        problems.add("get " + getProblem);
      } else if (scanProblem != null) {
        problems.add("scan " + scanProblem);
      } else if (!sameOrExpiryRace(fromGet, fromScan)) {
        problems.add(
            "key-" + key + ": get shows " + describe(fromGet) + " but scan " + describe(fromScan));
      }
    }
    if (!scanned.isEmpty()) {
      problems.add("scan returned keys never written: " + scanned.keySet());
    }
    String half = halfBatch(got, cut);
    if (half != null) {
      problems.add(half);
    }
    return problems.isEmpty() ? null : String.join("; ", problems);
  }

  /**
   * A batch some key of which shows the batch's own put while another key of it shows an op older
   * than the batch (or nothing, with no delete of it since the batch began): half a unit. Null if
   * every batch is whole or absent.
   */
  private String halfBatch(Map<Integer, byte[]> got, int cut) {
    synchronized (batches) {
      for (List<Op> batch : batches) {
        int index = batch.getFirst().index();
        boolean shown = false;
        for (Op op : batch) {
          byte[] seen = got.get(op.key());
          shown |= seen != null && byValue.get(new String(seen, UTF_8)) == op;
        }
        if (!shown) {
          continue;
        }
        for (Op op : batch) {
          byte[] seen = got.get(op.key());
          if (seen == null
              ? !deletedSince(op.key(), batch.getFirst(), cut)
              : !atOrAfter(seen, op)) {
            return "key-"
                + op.key()
                + " shows "
                + describe(seen)
                + " though another key of batch op "
                + index
                + " shows the batch: half a unit";
          }
        }
      }
    }
    return null;
  }

  /** Whether value {@code seen} was written by {@code member}'s batch or a later call. */
  private boolean atOrAfter(byte[] seen, Op member) {
    Op writer = byValue.get(new String(seen, UTF_8));
    return writer != null && (writer == member || writer.begin() > member.begin());
  }

  /**
   * Whether {@code key} was deleted (or given an expiry) by the batch of {@code first} or a call
   * begun after it.
   */
  private boolean deletedSince(int key, Op first, int cut) {
    for (Op op : ops) {
      boolean removes = op.kind() == Kind.DELETE || (op.kind() == Kind.PUT && op.expireAt() != 0);
      if (op.key() == key && removes && op.begin() >= first.begin() && op.begin() < cut) {
        return true;
      }
    }
    return false;
  }

  private String judge(byte[] seen, List<Op> allowed, int key, long before, long after) {
    if (seen == null) {
      for (Op op : allowed) {
        if (op == null
            || op.kind() == Kind.DELETE
            || (op.expireAt() != 0 && op.expireAt() <= after)) {
          return null;
        }
      }
      return "key-" + key + ": absent, but " + describe(allowed) + " must show";
    }
    Op writer = byValue.get(new String(seen, UTF_8));
    if (writer == null || writer.key() != key) {
      return "key-"
          + key
          + ": "
          + describe(seen)
          + " was never written "
          + (writer == null ? "at all" : "to this key");
    }
    if (!allowed.contains(writer)) {
      return "key-"
          + key
          + ": shows op "
          + writer.index()
          + " but allowed are "
          + describe(allowed);
    }
    if (writer.expireAt() != 0 && writer.expireAt() <= before) {
      return "key-"
          + key
          + ": shows op "
          + writer.index()
          + " whose expiry "
          + writer.expireAt()
          + " passed at "
          + before;
    }
    return null;
  }

  private boolean sameOrExpiryRace(byte[] a, byte[] b) {
    if (a == null && b == null) {
      return true;
    }
    if (a != null && b != null) {
      return java.util.Arrays.equals(a, b);
    }
    Op writer = byValue.get(new String(a != null ? a : b, UTF_8));
    return writer != null && writer.expireAt() != 0;
  }

  private String describe(byte[] value) {
    if (value == null) {
      return "nothing";
    }
    String v = new String(value, UTF_8);
    int colon = v.indexOf(':');
    return "\""
        + (colon > 0 ? v.substring(0, colon) : v.substring(0, Math.min(24, v.length())))
        + "...\" ("
        + value.length
        + " bytes)";
  }

  private static String describe(List<Op> allowed) {
    List<String> out = new ArrayList<>();
    for (Op op : allowed) {
      out.add(
          op == null
              ? "never written"
              : op.kind()
                  + " op "
                  + op.index()
                  + (op.expireAt() != 0 ? " (expires " + op.expireAt() + ")" : ""));
    }
    return out.toString();
  }

  /** Which calls had returned at {@code cut}, for failure messages. */
  String progressAt(int cut) {
    int returned = 0;
    Op last = null;
    for (Op op : ops) {
      if (op.end() < cut) {
        returned++;
        last = op;
      }
    }
    return returned
        + " of "
        + ops.size()
        + " calls returned"
        + (last == null ? "" : ", last " + last.kind() + " op " + last.index());
  }
}
