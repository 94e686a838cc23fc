package dev.cellar.model;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.cellar.Cellar;
import dev.cellar.CellarHealth;
import dev.cellar.Cursor;
import dev.cellar.DiskFullException;
import dev.cellar.Entry;
import dev.cellar.Fsync;
import dev.cellar.ScanPage;
import dev.cellar.StoreIOException;
import dev.cellar.io.FaultInjectingFileIO;
import dev.cellar.io.PowerLossModel;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one interpreter of {@link Op}s: applies each to a store on a {@link ModelDisk} and to the
 * model (a {@link HashMap} of {@link KeyState}s), and judges every answer the store gives. Both
 * drivers, {@code StoreModelTest} (seeded) and {@code StoreModelFuzzTest} (Jazzer), feed it.
 *
 * <h2>The rules it holds the store to</h2>
 *
 * These are the promises of docs/reliability.md and docs/durability.md, stated per operation:
 *
 * <ul>
 *   <li>An acknowledged write shows at once, to every kind of read, and to scans and pages; a key
 *       whose expiry has passed reads as absent; a put with an expiry in the past deletes.
 *   <li>A clean close and open, with or without the checkpoints, changes nothing visible. A clean
 *       close syncs; so do {@code sync} and {@code checkpoint}.
 *   <li><b>Failed fsync.</b> The write whose fsync failed is not acknowledged ({@link
 *       StoreIOException}) and may or may not have happened, now and after a crash. From then on
 *       every write and sync is refused with {@link StoreIOException}, changing nothing, while
 *       reads go on; a reopen recovers what is on disk and writes work again.
 *   <li><b>Disk full.</b> Writes are refused with {@link DiskFullException} before anything of them
 *       is written, so a refused write changes nothing and nothing acknowledged is lost; once the
 *       first is refused, every write and checkpoint is until space returns, and the first write
 *       after that is accepted (no reopen).
 *   <li><b>Power loss.</b> Under {@code fsync always} every acknowledged write survives; under
 *       {@code no} every write acknowledged before the last completed sync does. For each key the
 *       store shows that version or any later one written (acknowledged or not): never an older
 *       one, another key's value or one never written. Recovery succeeds without salvage.
 * </ul>
 *
 * <p>A put that needs a new segment whose header's fsync fails is refused with nothing written, and
 * writes go on: the segment is deleted, so no fsync is trusted after failing.
 *
 * <p>The model found two issues, both fixed: an explicit compaction after a failed fsync rewrote
 * segments (it is refused now), and after a power loss compaction refused a segment the loss left
 * with a hole, calling it damaged (a power loss leaves no such hole since the log's prefix rule).
 * Any outcome that breaks these rules fails the run.
 *
 * <p>Owned by one thread. Every judgement takes the wall-clock window around the call it judges, so
 * short expiries can be tested against the store's real clock. One class, though a long one: every
 * operation, fault or not, reads and updates the same store handle, per-key model and fault state
 * (writes disabled, disk full), and the faults are made of the plain writes and reads; split apart,
 * the pieces would call back into each other.
 */
final class ModelRun implements AutoCloseable {
  private static final int HISTORY = 12;

  private final String label;
  private final Workload workload;
  private final ModelDisk disk;
  private final Random crashes;
  private final Map<String, KeyState> keys = new HashMap<>();
  private final ArrayDeque<String> history = new ArrayDeque<>();
  private Cellar db;
  private boolean writesDisabled;
  private boolean diskFull;
  private ScanIteration iteration;
  private int iterations;
  private int step;
  private boolean crashed;

  private final Map<String, Integer> counts = new java.util.TreeMap<>();

  /**
   * @param label what a failure message names first: the seed, or that it was a fuzzer's input
   * @param crashSeed seeds the draws of crash states, so a run replays exactly
   */
  ModelRun(String label, Workload workload, Path directory, long crashSeed) {
    this.label = label + " (" + workload + ")";
    this.workload = workload;
    this.disk = new ModelDisk(directory);
    this.crashes = new Random(crashSeed);
    this.db = open();
    this.iteration = new ScanIteration(Op.prefix(0), keys, now());
  }

  /** What the run did: how many times each kind of operation ran, and what the store refused. */
  String summary() {
    return label + ": " + step + " steps " + counts;
  }

  /** Applies one operation and judges the store's answers; throws an AssertionError naming it. */
  void apply(Op op) {
    step++;
    history.addLast(step + ": " + op);
    if (history.size() > HISTORY) {
      history.removeFirst();
    }
    counts.merge(op.getClass().getSimpleName(), 1, Integer::sum);
    try {
      switch (op) {
        case Op.Put p -> put(p);
        case Op.Delete d -> delete(Op.key(d.key()));
        case Op.Get g -> get(Op.key(g.key()), g.read());
        case Op.Wait w -> sleep(w.millis());
        case Op.Scan s -> scan(Op.prefix(s.prefix()));
        case Op.Page p -> page(p.count());
        case Op.Load l -> load(l);
        case Op.Unload u -> {
          for (int i = u.first(); i < u.first() + u.n(); i++) {
            delete("a:" + i);
          }
        }
        case Op.RandomKey r -> randomKey();
        case Op.Expire e -> expire(e.count());
        case Op.Reopen r -> reopen(r.replay());
        case Op.Compact c -> compact();
        case Op.Checkpoint c -> checkpoint();
        case Op.Sync s -> sync();
        case Op.FsyncFailure f -> fsyncFailure(f);
        case Op.DiskFull f -> diskFull(f);
        case Op.Crash c -> crash(c.choice(), -1);
        case Op.CrashDuring c -> crashDuring(c);
      }
    } catch (ModelViolation e) {
      throw failure(e.getMessage(), null);
    } catch (RuntimeException | IOException e) {
      throw failure("unexpected " + e, e);
    }
  }

  /**
   * The end of a run: finishes the iteration in progress and runs one more over the quiet store,
   * checks every key, and checks them again after a clean reopen.
   */
  void finish() {
    step++;
    history.addLast(step + ": finish");
    try {
      while (!page(100)) {
        // no writes meanwhile
      }
      while (!page(1000)) {
        // a whole iteration over a quiet store returns every live key
      }
      checkAll("at the end");
      reopen(false);
      assertDisk();
    } catch (ModelViolation e) {
      throw failure(e.getMessage(), null);
    } catch (RuntimeException | IOException e) {
      throw failure("unexpected " + e, e);
    }
  }

  private AssertionError failure(String problem, Throwable cause) {
    return new AssertionError(
        label
            + ": step "
            + step
            + ": "
            + problem
            + "\n  last steps:\n    "
            + String.join("\n    ", history),
        cause);
  }

  /** A broken rule, caught in {@link #apply} and reported with the run and step. */
  private static final class ModelViolation extends RuntimeException {
    ModelViolation(String message) {
      super(message, null, false, false);
    }
  }

  private static void check(boolean ok, Supplier<String> problem) {
    if (!ok) {
      throw new ModelViolation(problem.get());
    }
  }

  private static void check(String problem) {
    if (problem != null) {
      throw new ModelViolation(problem);
    }
  }

  private static long now() {
    return System.currentTimeMillis();
  }

  private KeyState state(String key) {
    return keys.computeIfAbsent(key, k -> new KeyState());
  }

  private Cellar open() {
    return Cellar.open(disk.directory, workload.options(disk.faults()));
  }

  // ---------------------------------------------------------------- writes

  private void put(Op.Put p) {
    String key = Op.key(p.key());
    String value = "v" + step + "/" + key + "/" + "x".repeat(p.size());
    long t0 = now();
    long expireAt =
        switch (p.expiry()) {
          case NONE -> Cellar.NO_EXPIRY;
          case LATER -> t0 + Duration.ofHours(1).toMillis();
          case SOON -> t0 + p.millis();
          case PAST -> Math.max(1, t0 - p.millis() * 60_000L);
        };
    boolean duration = p.expiry() == Op.Expiry.LATER && p.form() == Op.Form.ARRAY;
    Runnable call =
        switch (p.form()) {
          case ARRAY ->
              duration
                  ? () -> db.put(bytes(key), bytes(value), Duration.ofHours(1))
                  : expireAt == Cellar.NO_EXPIRY
                      ? () -> db.put(bytes(key), bytes(value))
                      : () -> db.putWithExpiry(bytes(key), bytes(value), expireAt);
          case SEGMENT ->
              () ->
                  db.put(
                      MemorySegment.ofArray(bytes(key)),
                      MemorySegment.ofArray(bytes(value)),
                      expireAt);
          case RANGES -> {
            // key and value inside one buffer, junk around them, as a server's input holds them
            int offset = 1 + p.size() % 7;
            MemorySegment buffer =
                MemorySegment.ofArray(bytes(".".repeat(offset) + key + "|" + value + "!"));
            yield () ->
                db.put(
                    buffer,
                    offset,
                    key.length(),
                    buffer,
                    offset + key.length() + 1,
                    value.length(),
                    expireAt);
          }
        };
    write(key, () -> versionOf(value, p, expireAt, t0), call);
  }

  private static Version versionOf(String value, Op.Put p, long expireAt, long t0) {
    return switch (p.expiry()) {
      case NONE -> Version.of(value);
      case PAST -> Version.ABSENT;
      // The store read its clock somewhere between t0 and now.
      case LATER ->
          p.form() == Op.Form.ARRAY
              ? new Version(value, expireAt, now() + Duration.ofHours(1).toMillis())
              : new Version(value, expireAt, expireAt);
      case SOON -> new Version(value, expireAt, expireAt);
    };
  }

  /**
   * Runs a write and applies its outcome to the model: acknowledged, refused (nothing changes), or
   * failed on its fsync (it may or may not have happened). Returns whether it was acknowledged.
   */
  private boolean write(String key, Supplier<Version> version, Runnable call) {
    KeyState state = state(key);
    try {
      call.run();
    } catch (StoreIOException e) {
      check(
          writesDisabled,
          () -> "write of " + key + " failed although no fsync had failed: " + e.getMessage());
      check(
          e.getMessage().contains("writes are disabled"),
          () -> "write of " + key + " refused without saying writes are disabled: " + e);
      return false;
    } catch (DiskFullException e) {
      check(!writesDisabled, () -> "after a failed fsync a write was refused as disk full: " + e);
      check(diskFull, () -> "write of " + key + " refused as disk full on a disk with room: " + e);
      return false;
    }
    check(!writesDisabled, () -> "write of " + key + " acknowledged after an fsync failed");
    state.acknowledged(version.get(), workload.fsync() == Fsync.ALWAYS);
    iteration.changed(key, state);
    return true;
  }

  private void delete(String key) {
    Set<Version> before = Set.copyOf(state(key).visible);
    long t0 = now();
    boolean[] existed = {false};
    boolean acknowledged =
        write(key, () -> Version.ABSENT, () -> existed[0] = db.delete(bytes(key)));
    long t1 = now();
    // Judged against what the key held before: the model already holds the delete.
    check(
        !acknowledged
            || before.stream()
                .anyMatch(v -> existed[0] ? v.mayBeLiveAt(t0) : v.mayRead(null, t0, t1)),
        () -> "delete of " + key + " returned " + existed[0] + ", but the key was " + before);
  }

  private void load(Op.Load l) {
    for (int i = l.first(); i < l.first() + l.n(); i++) {
      String key = "a:" + i;
      String value = "l" + step + "/" + key;
      write(key, () -> Version.of(value), () -> db.put(bytes(key), bytes(value)));
      if (l.pageEvery() > 0 && i % l.pageEvery() == 0) {
        page(3);
      }
    }
  }

  // ---------------------------------------------------------------- reads

  private void get(String key, Op.Read how) {
    KeyState state = state(key);
    long t0 = now();
    switch (how) {
      case GET, RANGES, FUNCTION -> {
        String got = read(key, how);
        long t1 = now();
        check(state.observe(v -> v.mayRead(got, t0, t1), how + " of " + key + " gave " + got));
      }
      case CONTAINS -> {
        boolean got = db.contains(bytes(key));
        long t1 = now();
        check(
            state.observe(
                v -> got ? v.mayBeLiveAt(t0) : v.mayRead(null, t0, t1),
                "contains(" + key + ") gave " + got));
      }
      case EXPIRY -> {
        long got = db.expiryOf(bytes(key));
        long t1 = now();
        check(
            state.observe(v -> v.mayHaveExpiry(got, t0, t1), "expiryOf(" + key + ") gave " + got));
      }
    }
  }

  private String read(String key, Op.Read how) {
    return switch (how) {
      case RANGES -> {
        MemorySegment buffer = MemorySegment.ofArray(bytes("**" + key + "*"));
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
        check(found == (sunk[0] != null), () -> "read of ranges of " + key + " said " + found);
        yield sunk[0];
      }
      case FUNCTION ->
          db.read(bytes(key), segment -> new String(segment.toArray(ValueLayout.JAVA_BYTE), UTF_8));
      default -> {
        byte[] v = db.get(bytes(key));
        yield v == null ? null : new String(v, UTF_8);
      }
    };
  }

  /** Every key the model knows, by {@code get} and a read of ranges, and the size's bounds. */
  private void checkAll(String when) {
    for (Map.Entry<String, KeyState> e : keys.entrySet()) {
      String key = e.getKey();
      long t0 = now();
      String got = read(key, Op.Read.GET);
      String ranged = read(key, Op.Read.RANGES);
      long t1 = now();
      check(
          e.getValue()
              .observe(
                  v -> v.mayRead(got, t0, t1) && v.mayRead(ranged, t0, t1),
                  when + ", get of " + key + " gave " + got + " and a read of ranges " + ranged));
    }
    checkSize();
  }

  /**
   * {@code size()} counts the keys in the index, expired ones not yet reclaimed included: at least
   * the keys live for certain, at most those that may hold a value.
   */
  private void checkSize() {
    long t0 = now();
    long size = db.size();
    long surely = keys.values().stream().filter(s -> s.allVisible(v -> v.surelyLiveAt(t0))).count();
    long maybe = keys.values().stream().filter(s -> s.anyVisible(Version::present)).count();
    check(
        size >= surely && size <= maybe,
        () -> "size() is " + size + ", but " + surely + " keys are live and " + maybe + " may be");
  }

  private void scan(String prefix) {
    Map<String, Entry> seen = new HashMap<>();
    long t0 = now();
    try (Cursor cursor = db.scan(bytes(prefix))) {
      cursor.forEachRemaining(
          entry -> {
            String key = new String(entry.key(), UTF_8);
            check(seen.put(key, entry) == null, () -> "scan returned " + key + " twice");
          });
    }
    long t1 = now();
    for (Map.Entry<String, Entry> e : seen.entrySet()) {
      String key = e.getKey();
      check(key.startsWith(prefix), () -> "scan of '" + prefix + "' returned " + key);
      check(keys.containsKey(key), () -> "scan returned " + key + ", never written");
      String value = new String(e.getValue().value(), UTF_8);
      long expiry = e.getValue().expireAtEpochMillis();
      check(
          keys.get(key)
              .observe(
                  v -> v.mayRead(value, t0, t1) && v.mayHaveExpiry(expiry, t0, t1),
                  "scan returned " + key + " = " + value + " expiring at " + expiry));
    }
    for (Map.Entry<String, KeyState> e : keys.entrySet()) {
      if (e.getKey().startsWith(prefix) && !seen.containsKey(e.getKey())) {
        check(
            e.getValue()
                .observe(
                    v -> v.mayRead(null, t0, t1),
                    "scan of '" + prefix + "' did not return " + e.getKey()));
      }
    }
  }

  /** Fetches one page of the iteration; returns whether that completed it. */
  private boolean page(int count) {
    long t0 = now();
    ScanPage page = db.scanPage(iteration.cursor, bytes(iteration.prefix), count);
    long t1 = now();
    check(iteration.page(page, keys, t0, t1));
    if (!page.complete()) {
      return false;
    }
    iterations++;
    iteration = new ScanIteration(Op.prefix(iterations % Op.PREFIXES), keys, now());
    return true;
  }

  private void randomKey() {
    long t0 = now();
    byte[] got = db.randomKey();
    long t1 = now();
    if (got != null) {
      String key = new String(got, UTF_8);
      KeyState state = keys.get(key);
      check(state != null, () -> "randomKey returned " + key + ", never written");
      check(
          state.anyVisible(v -> v.mayBeLiveAt(t0)),
          () -> "randomKey returned " + key + ", which is not live: " + state.visible);
      return;
    }
    // It may give up when the keys it draws have expired but are not yet reclaimed.
    boolean anyLive = keys.values().stream().anyMatch(s -> s.allVisible(v -> v.surelyLiveAt(t1)));
    boolean anyExpired =
        keys.values().stream().anyMatch(s -> s.anyVisible(v -> v.present() && !v.surelyLiveAt(t1)));
    check(!anyLive || anyExpired, () -> "randomKey returned null, but live keys exist");
  }

  /**
   * Every key {@code expiredKeys} returns must be one that may have expired; {@code
   * deleteIfExpired} may remove only such a key, and a removed key reads as absent from then on (a
   * power loss may bring back its expired value, which reads as absent too: the tombstone is not
   * waited for).
   */
  private void expire(int count) {
    java.util.List<byte[]> found = new java.util.ArrayList<>();
    long cursor = ScanPage.START;
    do {
      ScanPage page = db.expiredKeys(cursor, count);
      found.addAll(page.keys());
      cursor = page.nextCursor();
    } while (cursor != ScanPage.START);
    long t1 = now();
    for (byte[] k : found) {
      String key = new String(k, UTF_8);
      KeyState state = keys.get(key);
      check(state != null, () -> "expiredKeys returned " + key + ", never written");
      check(
          state.anyVisible(v -> v.present() && v.expires() && v.expireFrom() <= t1),
          () -> "expiredKeys returned " + key + ", which cannot have expired: " + state.visible);
    }
    for (byte[] k : found) {
      String key = new String(k, UTF_8);
      KeyState state = state(key);
      Set<Version> before = Set.copyOf(state.visible);
      boolean removed;
      try {
        removed = db.deleteIfExpired(k);
      } catch (StoreIOException e) {
        check(writesDisabled, () -> "deleteIfExpired failed with writes enabled: " + e);
        continue;
      } catch (DiskFullException e) {
        check(diskFull, () -> "deleteIfExpired refused as disk full on a disk with room: " + e);
        continue;
      }
      long t2 = now();
      if (removed) {
        check(
            before.stream().anyMatch(v -> v.present() && v.expires() && v.expireFrom() <= t2),
            () -> "deleteIfExpired removed " + key + ", which cannot have expired: " + before);
        state.acknowledged(Version.ABSENT, false);
        iteration.changed(key, state);
      }
    }
  }

  private static void sleep(int millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while letting time pass", e);
    }
  }

  // ---------------------------------------------------------------- maintenance

  private void synced() {
    for (KeyState state : keys.values()) {
      state.synced();
    }
  }

  private void sync() {
    try {
      db.sync();
    } catch (StoreIOException e) {
      check(writesDisabled, () -> "sync failed although no fsync had: " + e);
      return;
    }
    check(!writesDisabled, () -> "sync succeeded after an fsync failed");
    synced();
  }

  private void checkpoint() {
    try {
      db.checkpoint();
    } catch (StoreIOException e) {
      check(writesDisabled, () -> "checkpoint failed although no fsync had: " + e);
      return;
    }
    // After a failed fsync nothing more is written: a checkpoint would vouch for the log.
    check(!writesDisabled, () -> "a checkpoint was written after an fsync failed");
    // A checkpoint syncs the log before it publishes.
    synced();
  }

  private void compact() {
    long reclaimed = 0;
    try {
      reclaimed = db.compact();
    } catch (StoreIOException e) {
      // A power loss no longer leaves a hole in an unsealed segment for compaction to refuse (the
      // prefix rule ends the log there), so only a failed fsync may stop it.
      check(writesDisabled, () -> "compaction failed although no fsync had: " + e);
    }
    // After a failed fsync nothing more is written, compaction included.
    long rewrote = reclaimed;
    check(
        !writesDisabled || rewrote == 0, () -> "compaction rewrote segments after an fsync failed");
    checkAll("after compaction");
  }

  private void reopen(boolean replay) throws IOException {
    db.close();
    if (!writesDisabled) {
      synced(); // a clean close syncs; after a failed fsync it writes nothing
    }
    if (replay) {
      disk.deleteCheckpoints();
    }
    db = open();
    writesDisabled = false;
    checkAll(replay ? "after a reopen that replayed the log" : "after a reopen");
    keys.forEach(iteration::changed);
  }

  // ---------------------------------------------------------------- faults

  private void fsyncFailure(Op.FsyncFailure f) {
    String key = Op.key(f.key());
    String value = "f" + step + "/" + key + "/" + "x".repeat(f.size());
    if (writesDisabled) {
      write(key, () -> Version.of(value), () -> db.put(bytes(key), bytes(value)));
      return;
    }
    FaultInjectingFileIO io = disk.faults();
    KeyState state = state(key);
    if (workload.fsync() == Fsync.ALWAYS) {
      io.fsyncFails = true;
      String refusal;
      try {
        db.put(bytes(key), bytes(value));
        throw new ModelViolation("a put under fsync always was acknowledged, but its fsync failed");
      } catch (StoreIOException expected) {
        refusal = expected.getMessage();
      } finally {
        io.fsyncFails = false;
      }
      if (refusal.startsWith("log append failed")) {
        // The put needed a new segment, whose header's fsync failed: the segment is deleted and
        // nothing of the put written, so writes go on (unless the maintenance agent, sealing the
        // segment left behind, met the failing fsync too).
        rollFailed(key);
        return;
      }
      check(
          refusal.contains("fsync failed"),
          () -> "the refusal does not say the fsync failed: " + refusal);
      state.unacknowledged(Version.of(value));
    } else if (!syncFails(key, value)) {
      return;
    }
    writesDisabled = true;
    iteration.changed(key, state);
    // Reads go on, and show the failed write or what it replaced.
    get(key, Op.Read.GET);
    // Writes stay refused although fsync works again: no retry-and-pretend.
    write(key, () -> Version.of("never"), () -> db.put(bytes(key), bytes("never")));
  }

  /** After a roll whose fsync failed: the next write is accepted, or refused as disabled. */
  private void rollFailed(String key) {
    String value = "p" + step + "/" + key;
    try {
      db.put(bytes(key), bytes(value));
    } catch (StoreIOException e) {
      check(
          e.getMessage().contains("writes are disabled"),
          () -> "after a failed roll a write failed: " + e);
      writesDisabled = true;
      return;
    }
    KeyState state = state(key);
    state.acknowledged(Version.of(value), true);
    iteration.changed(key, state);
  }

  /**
   * Under fsync no: a put, then a sync whose fsync fails. A sync may also find nothing to do, when
   * the maintenance agent, sealing the segment the put filled, synced everything first (or is
   * syncing it now, with an fsync begun before the fault); then it succeeds, and the fault is tried
   * again, twice at most. A sync that succeeds must not have swallowed a refused fsync: if one was
   * refused meanwhile, it was the agent's, and writes must now be disabled. Returns whether an
   * fsync failed.
   */
  private boolean syncFails(String key, String value) {
    FaultInjectingFileIO io = disk.faults();
    for (int attempt = 0; attempt < 3; attempt++) {
      String attempted = value + "." + attempt;
      write(key, () -> Version.of(attempted), () -> db.put(bytes(key), bytes(attempted)));
      long refused = io.refusedFsyncs.get();
      io.fsyncFails = true;
      try {
        db.sync();
      } catch (StoreIOException expected) {
        check(
            expected.getMessage().contains("fsync failed"),
            () -> "the refusal does not say the fsync failed: " + expected);
        return true;
      } finally {
        io.fsyncFails = false;
      }
      // Everything the sync covered is durable: the fsync that covered it succeeded.
      synced();
      if (io.refusedFsyncs.get() != refused) {
        CellarHealth health = agentFailure();
        check(
            !health.writable(),
            () -> "sync succeeded, an fsync was refused meanwhile, and writes go on: " + health);
        return true;
      }
    }
    return false;
  }

  /**
   * The store's health once the agent whose fsync was refused has reported it: the refusal is
   * counted in the fault layer before the agent's thread reaches the store's health.
   */
  private CellarHealth agentFailure() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    CellarHealth health = db.health();
    while (health.writable() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
      health = db.health();
    }
    return health;
  }

  private void diskFull(Op.DiskFull f) {
    if (writesDisabled) {
      String key = Op.key(f.key());
      write(key, () -> Version.of("never"), () -> db.put(bytes(key), bytes("never")));
      return;
    }
    FaultInjectingFileIO io = disk.faults();
    io.diskFull = true;
    diskFull = true;
    try {
      int puts = 0;
      boolean refused = false;
      // Enough to fill two segments: the log must roll, and cannot.
      int bound = 2 * Workload.SEGMENT_BYTES / f.size() + 2;
      for (; puts < bound && !refused; puts++) {
        String key = Op.key((f.key() + puts) % workload.keys());
        String value = "d" + step + "." + puts + "/" + key + "/" + "x".repeat(f.size());
        refused = !write(key, () -> Version.of(value), () -> db.put(bytes(key), bytes(value)));
      }
      int attempted = puts;
      check(refused, () -> attempted + " puts of " + f.size() + " bytes all fit on a full disk");
      for (int i = 0; i < f.after(); i++) {
        String key = Op.key((f.key() + i) % workload.keys());
        switch (i % 3) {
          case 0 -> {
            try {
              db.checkpoint();
              throw new ModelViolation("a checkpoint succeeded on a full disk");
            } catch (DiskFullException expected) {
              // nothing changes
            }
          }
          case 1 ->
              check(
                  !write(key, () -> Version.of("never"), () -> db.put(bytes(key), bytes("never"))),
                  () -> "a put was acknowledged on a disk that had refused one");
          default ->
              check(
                  !write(key, () -> Version.ABSENT, () -> db.delete(bytes(key))),
                  () -> "a delete was acknowledged on a disk that had refused a write");
        }
        get(key, Op.Read.GET);
      }
    } finally {
      io.diskFull = false;
      diskFull = false;
    }
    // Space is back: the next write is accepted without a reopen.
    String key = Op.key(f.key());
    String value = "r" + step + "/" + key;
    check(
        write(key, () -> Version.of(value), () -> db.put(bytes(key), bytes(value))),
        () -> "the first write after space returned was refused");
  }

  /**
   * Runs a maintenance step, then loses power at a random point of what it wrote: the store may
   * show anything a loss before the step could have left (a sync, checkpoint or close that had not
   * completed promises nothing), or anything after it.
   */
  private void crashDuring(Op.CrashDuring c) throws IOException {
    int mark = disk.mark(step + ": " + c);
    Map<String, Set<Version>> before = new HashMap<>();
    keys.forEach((key, state) -> before.put(key, Set.copyOf(state.survivors)));
    switch (c.step()) {
      case Op.Compact x -> compact();
      case Op.Checkpoint x -> checkpoint();
      case Op.Sync x -> sync();
      case Op.Reopen r -> reopen(r.replay());
      default -> throw new IllegalArgumentException("not a maintenance step: " + c.step());
    }
    before.forEach((key, survivors) -> state(key).survivors.addAll(survivors));
    crash(c.choice(), mark);
  }

  /** Loses power at the end of the trace, or at a random point after {@code from}. */
  private void crash(PowerLossModel.Choice choice, int from) {
    Map<Path, byte[]> image = disk.crashImage(choice, crashes, from);
    String how = choice + (from >= 0 ? ", during the step" : "");
    try {
      db.close(); // the crashed store: nothing it does now reaches the image
    } catch (RuntimeException ignored) {
      // whatever it says, it is gone
    }
    assertDisk();
    disk.replace(image);
    crashed = true;
    try {
      db = open();
    } catch (RuntimeException e) {
      throw new ModelViolation("recovery from the power loss (" + how + ") failed: " + e);
    }
    writesDisabled = false;
    for (Map.Entry<String, KeyState> e : keys.entrySet()) {
      String key = e.getKey();
      long t0 = now();
      String got = read(key, Op.Read.GET);
      long t1 = now();
      check(
          e.getValue()
              .observeAfterCrash(
                  v -> v.mayRead(got, t0, t1),
                  "after a power loss (" + how + "), get of " + key + " gave " + got));
      iteration.changed(key, e.getValue());
    }
    checkSize();
  }

  private void assertDisk() {
    List<String> violations = disk.violations();
    check(
        violations.isEmpty(), () -> "writes through a mapping past the end of file: " + violations);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  @Override
  public void close() {
    try {
      db.close();
    } catch (RuntimeException ignored) {
      // a failed run is reported already; a passing one closed cleanly in finish()
    } finally {
      disk.close();
    }
  }
}
