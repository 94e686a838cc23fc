package dev.cellar.store;

import dev.cellar.BatchValueSink;
import dev.cellar.Cellar;
import dev.cellar.CellarException;
import dev.cellar.CellarHealth;
import dev.cellar.CellarOptions;
import dev.cellar.CellarStats;
import dev.cellar.ChangeStream;
import dev.cellar.Codec;
import dev.cellar.CorruptStoreException;
import dev.cellar.Cursor;
import dev.cellar.DiskFullException;
import dev.cellar.DurabilityListener;
import dev.cellar.Fsync;
import dev.cellar.LimitExceededException;
import dev.cellar.RecoveryReport;
import dev.cellar.ScanPage;
import dev.cellar.StoreIOException;
import dev.cellar.StoreSnapshot;
import dev.cellar.TypedMap;
import dev.cellar.ValueSink;
import dev.cellar.WriteBatch;
import dev.cellar.checkpoint.CheckpointImage;
import dev.cellar.index.HashIndex;
import dev.cellar.index.KeyHasher;
import dev.cellar.io.FileIO;
import dev.cellar.log.LogWriter;
import dev.cellar.log.RecordDescriptor;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentHeaderDescriptor;
import dev.cellar.log.SegmentTable;
import dev.cellar.platform.NativeAccess;
import dev.cellar.recovery.Recovery;
import dev.cellar.stream.LogChangeStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The engine behind {@link Cellar}: it opens and closes a store, and writes; the other jobs belong
 * to the parts it assembles.
 *
 * <ul>
 *   <li>{@link Keyspace}: the sharded off-heap indexes and every read;
 *   <li>{@link Durability}: the fsync policy, group commit, and {@link #whenDurable};
 *   <li>{@link StoreHealth}: whether writes are accepted (failed fsync, full disk) and how
 *       background work went;
 *   <li>{@link Maintenance}: sealing, checkpoints and compaction under the {@link MaintenanceLock},
 *       run by the {@link MaintenanceAgent} and the {@link IdleCompactor};
 *   <li>{@link ObsoleteSegments}: segments compaction replaced, deleted after a checkpoint.
 * </ul>
 *
 * <h2>Write path</h2>
 *
 * Hash the key (SipHash, seeded per store), take the shard's write lock, append the record to the
 * log (a memory copy into the mapped active segment), point the index at it, account the replaced
 * record as garbage in its segment, unlock; under {@code always}, wait for group commit unless the
 * caller acknowledges writes itself ({@link CellarOptions#writesAwaitDurability}).
 *
 * <h2>Scans</h2>
 *
 * {@link #scan(byte[])} copies one shard's locations at a time and pins the segments it reads
 * ({@link StoreCursor}); {@link #scanPage} keeps no state between calls, its cursor being a
 * position in the hash space ({@link ScanPageTask}).
 *
 * <h2>Close</h2>
 *
 * The agents stop first; then, holding the maintenance lock and every shard's write lock (in the
 * order a compaction pass takes them), the store syncs, seals, checkpoints and unmaps.
 */
public final class Store implements Cellar {
  private static final System.Logger LOG = System.getLogger("dev.cellar");

  private final Path directory;
  private final CellarOptions options;
  private final FileIO io;
  private final DirectoryLock lock;
  private final KeyHasher hasher;
  private final SegmentTable segments = new SegmentTable();
  private final GarbageAccounting accounting = new GarbageAccounting(segments);
  private final AtomicLong segmentIds = new AtomicLong();
  private final StoreHealth health;
  private final Keyspace keyspace;
  private final ObsoleteSegments obsolete;
  private final MaintenanceCounters counters = new MaintenanceCounters();

  /** The dictionaries of compressed segments, one instance each, and the one compaction uses. */
  private final dev.cellar.compress.Dictionaries dictionaries =
      new dev.cellar.compress.Dictionaries();

  private LogWriter log;
  private Durability durability;
  private Maintenance maintenance;
  private RecoveryReport recoveryReport;
  private MaintenanceAgent maintenanceAgent;
  private IdleCompactor idleCompactor;

  private Store(
      Path directory, CellarOptions options, DirectoryLock lock, StoreMetaDescriptor meta) {
    this.directory = directory;
    this.options = options;
    this.io = options.fileIO();
    this.lock = lock;
    this.hasher = new KeyHasher(meta.seed0(), meta.seed1());
    this.health = new StoreHealth(directory, io);
    this.keyspace = new Keyspace(meta.shards(), hasher, segments, options, health);
    this.obsolete = new ObsoleteSegments(segments, io, directory);
    if (options.io() == dev.cellar.IoMode.DIRECT) {
      readCache = new dev.cellar.cache.BlockCache(options.readCacheBytes());
      segments.readCache(readCache, io);
      blockReads = io.blockReads();
      keyspace.blockReads(blockReads);
    }
  }

  /** What reads a batch's cache misses at once, when the store reads with O_DIRECT; else null. */
  private dev.cellar.io.BlockReads blockReads;

  /** The read cache of a store that reads with O_DIRECT; null when buffered. */
  private dev.cellar.cache.BlockCache readCache;

  /** The segments, in id order (tests). */
  List<Segment> segmentsForTest() {
    List<Segment> all = new java.util.ArrayList<>(segments.all());
    all.sort(java.util.Comparator.comparingLong(Segment::id));
    return all;
  }

  /** The files of the segments compaction replaced and no checkpoint has deleted yet, for tests. */
  List<Path> obsoleteFiles() {
    List<Path> files = new java.util.ArrayList<>();
    for (Segment s : segments.all()) {
      if (s.obsolete()) {
        files.add(s.path());
      }
    }
    return files;
  }

  /** What reads a batch's misses at once, for tests; null when buffered. */
  dev.cellar.io.BlockReads blockReads() {
    return blockReads;
  }

  /** The read cache, for tests; null when buffered. */
  dev.cellar.cache.BlockCache readCache() {
    return readCache;
  }

  /**
   * Opens or creates the store in {@code directory}; see {@link Cellar#open(Path, CellarOptions)}.
   */
  public static Store open(Path directory, CellarOptions options) {
    Objects.requireNonNull(directory, "directory");
    options.validate();
    String codecProblem = dev.cellar.compress.Codecs.problem(options.compression());
    if (codecProblem != null) {
      throw new IllegalArgumentException(
          "invalid Cellar option: compression "
              + options.compression().label()
              + ": "
              + codecProblem);
    }
    NativeAccess.warnOnceIfDenied(LOG);
    FileIO io = options.fileIO();
    DirectoryLock lock;
    StoreMetaDescriptor meta;
    try {
      io.createDirectories(directory);
      lock = DirectoryLock.acquire(io, directory);
    } catch (IOException e) {
      throw new StoreIOException(
          "cannot open store directory " + directory + ": " + e.getMessage(), e);
    }
    Store store = null;
    try {
      meta = readOrCreateMeta(io, directory, options);
      if (options.io() == dev.cellar.IoMode.DIRECT) {
        checkDirectReads(io, directory);
      }
      store = new Store(directory, options, lock, meta);
      store.recover();
      store.startAgents();
      return store;
    } catch (IOException | RuntimeException e) {
      if (store != null) {
        store.abandon();
      } else {
        closeQuietly(lock);
      }
      if (e instanceof IOException io1) {
        throw new StoreIOException("cannot open store " + directory + ": " + io1.getMessage(), io1);
      }
      throw (RuntimeException) e;
    }
  }

  /**
   * Refuses direct I/O where it cannot work, at open rather than at the first read of a sealed
   * segment: without native access or off Linux, or on a file system that refuses O_DIRECT.
   */
  private static void checkDirectReads(FileIO io, Path directory) {
    try (dev.cellar.io.DirectReader probe =
        io.openDirect(directory.resolve(StoreMetaDescriptor.FILE_NAME))) {
      // opened: direct reads work here
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "invalid Cellar option: io direct: "
              + e.getMessage()
              + " (the file system of "
              + directory
              + " must accept O_DIRECT, and the JVM must grant the engine native access); use io"
              + " buffered",
          e);
    }
  }

  private static StoreMetaDescriptor readOrCreateMeta(
      FileIO io, Path directory, CellarOptions options) throws IOException {
    // Asked through the seam, like every other question about the directory: a FileIO that is not
    // the platform's (a simulated disk in the power-loss tests) is the only truth about it.
    List<Path> files = io.list(directory);
    if (files.contains(directory.resolve(StoreMetaDescriptor.FILE_NAME))) {
      return StoreMetaDescriptor.read(io, directory);
    }
    for (Path file : files) {
      if (Segment.idOf(file.getFileName().toString()) >= 0) {
        throw new CorruptStoreException(
            "store "
                + directory
                + " has log segments but no "
                + StoreMetaDescriptor.FILE_NAME
                + " (it holds the hash seed); restore that file from a backup",
            List.of(directory.resolve(StoreMetaDescriptor.FILE_NAME) + ": missing"));
      }
    }
    StoreMetaDescriptor meta =
        StoreMetaDescriptor.createNew(options.shards(), System.currentTimeMillis());
    meta.write(io, directory);
    return meta;
  }

  // ---------------------------------------------------------------- recovery

  private void recover() throws IOException {
    Shard[] shards = keyspace.shards();
    Recovery recovery = new Recovery(io, directory, options.salvage(), shards.length);
    recovery.encryptionKeys(options.encryptionKeys());
    recovery.dictionaries(dictionaries);
    recovery.scanDirectory();
    CheckpointImage image =
        recovery.loadCheckpoint(
            (shard, slots, keyCount, elementCount) -> {
              shards[shard].index = HashIndex.copyOf(shards[shard], slots, keyCount);
              shards[shard].elements = elementCount;
            });
    recovery.placeSegments(segments);
    for (Segment s : segments.all()) {
      if (s.dictionary() != null) {
        dictionaries.found(s.dictionary(), s.id(), options.compression());
      }
    }
    long expectedKeys = options.expectedKeys();
    if (image == null) {
      expectedKeys = Math.max(expectedKeys, recovery.estimateRecordsToReplay());
    }
    for (Shard shard : shards) {
      if (shard.index == null) {
        shard.index = new HashIndex(shard, expectedKeys / shards.length);
      }
    }
    ReplayApplier applier = new ReplayApplier(shards, hasher, segments, accounting, blockReads);
    try {
      recovery.replay(applier);
    } finally {
      applier.close();
    }
    recoveryReport = recovery.report();
    // Recovery read segments from start to end; from now on they are read at random.
    for (Segment s : segments.all()) {
      if (s.state() == Segment.State.SEALED) {
        s.adviseRandomReads();
      }
    }
    segmentIds.set(recovery.maxSegmentId());
    long maxSeq = recovery.maxSeq();
    log =
        new LogWriter(
            io,
            directory,
            segments,
            segmentIds,
            options.segmentBytes(),
            maxSeq + 1,
            System::currentTimeMillis);
    log.zeroFill(options.zeroFillLog());
    log.hugePages(options.hugePageLogTail());
    log.directAppends(logAppendsDirect());
    log.encryption(options.encryptionKeys());
    String name = directory.getFileName() + "";
    durability =
        new Durability(options.fsync(), options.writesAwaitDurability(), log, health, maxSeq, name);
    maintenance =
        new Maintenance(
            directory,
            options,
            keyspace,
            segments,
            segmentIds,
            log,
            durability,
            health,
            obsolete,
            counters,
            image == null ? 0 : image.sequence(),
            recoveryReport,
            dictionaries);
    log.start(resumableTail());
    if (recoveryReport.replayedRecords() > 0 || !recoveryReport.notes().isEmpty()) {
      LOG.log(System.Logger.Level.INFO, "{0}: {1}", directory, recoveryReport);
    }
  }

  /**
   * The last log segment, reopened for appends, if the store was closed cleanly while it was small.
   */
  private Segment resumableTail() throws IOException {
    List<Segment> all = segments.all();
    if (all.isEmpty()) {
      return null;
    }
    Segment last = all.getLast();
    if (last.kind() != SegmentHeaderDescriptor.KIND_LOG
        || last.state() != Segment.State.SEALED
        // Recovery leaves a segment with holes unsealed on disk; appending would seal the holes in.
        || !SegmentHeaderDescriptor.isSealed(last.memory())
        || last.end() > options.segmentBytes() / 2
        || last.memory().byteSize() < last.end()
        // An encrypted segment is never appended to again: its nonces are its offsets, and a crash
        // may have left ciphertext past its end (SegmentCipher). And a store given keys writes only
        // encrypted segments, so it does not extend a plaintext one either.
        || last.encrypted()
        || options.encryptionKeys() != null
        // Compressed segments are compaction's outputs; the log never extends one.
        || last.compressed()) {
      return null;
    }
    Segment reopened =
        Segment.reopenForAppend(
            io, last, options.segmentBytes(), options.hugePageLogTail(), logAppendsDirect());
    segments.replace(last, reopened);
    last.close();
    return reopened;
  }

  /**
   * Whether the log is appended with O_DIRECT: with {@code io direct}, where every write waits for
   * its sync ({@code fsync always}). Under {@code no} and {@code everysec} the tail stays in the
   * page cache, as a database's write-ahead log does (RocksDB's direct I/O options cover reads,
   * flushes and compactions, not its WAL): there an acknowledged write must survive a crash of the
   * process, and an O_DIRECT write-out before each acknowledgment would wait for the device
   * (docs/direct-io.md).
   */
  private boolean logAppendsDirect() {
    return options.io() == dev.cellar.IoMode.DIRECT && options.fsync() == Fsync.ALWAYS;
  }

  private void startAgents() {
    String name = directory.getFileName() + "";
    durability.start();
    maintenanceAgent = new MaintenanceAgent(maintenance, name);
    if (options.backgroundCompaction()) {
      idleCompactor = new IdleCompactor(maintenance, name);
    }
    log.onSegmentFull(this::wakeAgents);
    maintenanceAgent.start();
    if (idleCompactor != null) {
      idleCompactor.start();
    }
  }

  private void wakeAgents() {
    maintenanceAgent.wake();
    if (idleCompactor != null) {
      idleCompactor.wake();
    }
  }

  /** Releases everything after a failed open, writing nothing. */
  private void abandon() {
    health.markClosed();
    if (log != null) {
      log.stopPrefaulting();
    }
    for (Shard s : keyspace.shards()) {
      if (s.index != null) {
        s.index.close();
      }
    }
    for (Segment s : segments.all()) {
      s.close();
    }
    if (blockReads != null) {
      blockReads.close();
    }
    if (readCache != null) {
      readCache.close();
    }
    closeQuietly(lock);
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // already failing; the original error is what the caller needs
    }
  }

  /** The store's upkeep, for tests that drive it by hand. */
  Maintenance maintenance() {
    return maintenance;
  }

  @Override
  public RecoveryReport recoveryReport() {
    return recoveryReport;
  }

  // ---------------------------------------------------------------- writes

  @Override
  public void put(byte[] key, byte[] value) {
    Objects.requireNonNull(value, "value");
    MemorySegment k = segmentOf(key);
    write(
        RecordDescriptor.PUT,
        k,
        0,
        key.length,
        hasher.hash(key),
        MemorySegment.ofArray(value),
        0,
        value.length,
        0);
  }

  @Override
  public void put(byte[] key, byte[] value, Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new LimitExceededException("ttl " + ttl + " must be positive");
    }
    putWithExpiry(key, value, System.currentTimeMillis() + ttl.toMillis());
  }

  @Override
  public void putWithExpiry(byte[] key, byte[] value, long expireAtEpochMillis) {
    Objects.requireNonNull(value, "value");
    put(segmentOf(key), MemorySegment.ofArray(value), expireAtEpochMillis);
  }

  @Override
  public void put(MemorySegment key, MemorySegment value, long expireAtEpochMillis) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    put(key, 0, key.byteSize(), value, 0, value.byteSize(), expireAtEpochMillis);
  }

  @Override
  public void put(
      MemorySegment keySource,
      long keyOffset,
      long keyLength,
      MemorySegment valueSource,
      long valueOffset,
      long valueLength,
      long expireAtEpochMillis) {
    Objects.requireNonNull(keySource, "key");
    Objects.requireNonNull(valueSource, "value");
    Objects.checkFromIndexSize(keyOffset, keyLength, keySource.byteSize());
    Objects.checkFromIndexSize(valueOffset, valueLength, valueSource.byteSize());
    if (expireAtEpochMillis < 0) {
      throw new LimitExceededException("expiry " + expireAtEpochMillis + " is negative");
    }
    long hash = hasher.hash(keySource, keyOffset, keyLength);
    if (expireAtEpochMillis != NO_EXPIRY && expireAtEpochMillis <= System.currentTimeMillis()) {
      // Redis semantics: setting an expiry in the past deletes the key.
      write(RecordDescriptor.DELETE, keySource, keyOffset, keyLength, hash, null, 0, 0, 0);
      return;
    }
    write(
        RecordDescriptor.PUT,
        keySource,
        keyOffset,
        keyLength,
        hash,
        valueSource,
        valueOffset,
        valueLength,
        expireAtEpochMillis);
  }

  @Override
  public boolean delete(byte[] key) {
    MemorySegment k = segmentOf(key);
    return write(RecordDescriptor.DELETE, k, 0, key.length, hasher.hash(key), null, 0, 0, 0);
  }

  @Override
  public boolean deleteIfExpired(byte[] key) {
    Objects.requireNonNull(key, "key");
    checkKey(key.length);
    health.checkWritable();
    MemorySegment k = segmentOf(key);
    long hash = hasher.hash(k);
    Shard shard = keyspace.shard(hash);
    long stamp = shard.lock.writeLock();
    try {
      health.checkOpen();
      long location = shard.index.get(hash, k, 0, key.length);
      if (location == 0 || !keyspace.expiredAt(location, System.currentTimeMillis())) {
        return false;
      }
      appendLocked(shard, RecordDescriptor.DELETE, k, 0, key.length, hash, null, 0, 0, 0);
      counters.expiredKeys.increment();
      return true;
    } catch (DiskFullException e) {
      health.diskFull(e);
      throw e;
    } finally {
      shard.lock.unlockWrite(stamp);
    }
  }

  private static void checkScanCount(int count) {
    if (count < 1) {
      throw new CellarException(
          CellarException.Category.INVALID_ARGUMENT, "scan count " + count + " must be at least 1");
    }
  }

  @Override
  public ScanPage expiredKeys(long cursor, int count) {
    checkScanCount(count);
    health.checkOpen();
    return new ScanPageTask(keyspace, null, count, false).run(cursor);
  }

  @Override
  public boolean delete(MemorySegment key) {
    Objects.requireNonNull(key, "key");
    return write(RecordDescriptor.DELETE, key, 0, key.byteSize(), hasher.hash(key), null, 0, 0, 0);
  }

  /**
   * Appends a put or a delete (then {@code value} is null) of the key in {@code key[keyOffset,
   * keyOffset + keyLength)}; returns whether a live value existed before.
   */
  private boolean write(
      int type,
      MemorySegment key,
      long keyOffset,
      long keyLength,
      long hash,
      MemorySegment value,
      long valueOffset,
      long valueLength,
      long expireAt) {
    checkKey(keyLength);
    checkValue(valueLength);
    health.checkWritable();
    boolean waits = durability.beginWrite();
    try {
      boolean existed =
          append(type, key, keyOffset, keyLength, hash, value, valueOffset, valueLength, expireAt);
      if (waits) {
        durability.awaitAppended();
      }
      return existed;
    } catch (DiskFullException e) {
      health.diskFull(e);
      throw e;
    } finally {
      durability.endWrite(waits);
    }
  }

  private boolean append(
      int type,
      MemorySegment key,
      long keyOffset,
      long keyLength,
      long hash,
      MemorySegment value,
      long valueOffset,
      long valueLength,
      long expireAt) {
    Shard shard = keyspace.shard(hash);
    long stamp = shard.lock.writeLock();
    try {
      health.checkOpen();
      return appendLocked(
          shard, type, key, keyOffset, keyLength, hash, value, valueOffset, valueLength, expireAt);
    } finally {
      shard.lock.unlockWrite(stamp);
    }
  }

  private MemorySegment segmentOf(byte[] key) {
    return Keyspace.segmentOf(key);
  }

  // ---------------------------------------------------------------- batches

  /** {@link #append}'s work, the caller holding {@code shard}'s write lock. */
  private boolean appendLocked(
      Shard shard,
      int type,
      MemorySegment key,
      long keyOffset,
      long keyLength,
      long hash,
      MemorySegment value,
      long valueOffset,
      long valueLength,
      long expireAt) {
    assert shard == keyspace.shard(hash) && shard.lock.isWriteLocked()
        : "a key's record is appended under its own shard's write lock";
    if (type == RecordDescriptor.PUT) {
      long location =
          log.append(type, key, keyOffset, keyLength, value, valueOffset, valueLength, expireAt);
      return indexPut(shard, hash, key, keyOffset, keyLength, location);
    }
    long previous = shard.index.get(hash, key, keyOffset, keyLength);
    if (previous == 0) {
      return false;
    }
    long location = log.append(type, key, keyOffset, keyLength, null, 0, 0, 0);
    shard.index.remove(hash, key, keyOffset, keyLength);
    boolean existed = accounting.retire(previous);
    accounting.deadAt(location);
    shard.deletes++;
    return existed;
  }

  /**
   * Points the key at its put's record, just appended at {@code location}, and retires the record
   * it replaces; returns whether a live value existed before. The caller holds {@code shard}'s
   * write lock.
   */
  private boolean indexPut(
      Shard shard, long hash, MemorySegment key, long keyOffset, long keyLength, long location) {
    long previous = shard.index.put(hash, key, keyOffset, keyLength, location);
    shard.puts++;
    return previous != 0 && accounting.retire(previous);
  }

  @Override
  public void write(WriteBatch batch) {
    Objects.requireNonNull(batch, "batch");
    for (int i = 0; i < batch.size(); i++) {
      checkKey(batch.key(i).length);
      byte[] value = batch.value(i);
      if (value != null) {
        checkValue(value.length);
      }
    }
    if (batch.isEmpty()) {
      return;
    }
    health.checkWritable();
    AtomicWrite unit = AtomicWrite.of(batch, hasher, keyspace);
    try {
      durably(unit, applyUnitLocked);
    } finally {
      unit.release();
    }
  }

  /** {@link #applyLocked}, made once: a method reference made per write would be garbage. */
  private final Consumer<AtomicWrite> applyUnitLocked = this::applyLocked;

  /** {@link #appendBatch}, made once. */
  private final Consumer<PutBatch> appendPutBatch = this::appendBatch;

  /**
   * Runs {@code body} on {@code writes} inside the durability gate: it waits for its group commit
   * when the mode asks, and a full disk is recorded in the store's health. (The single-key put, the
   * GET/SET path, does the same inline: its eight arguments would need an object a call.)
   */
  private <W> void durably(W writes, Consumer<W> body) {
    boolean waits = durability.beginWrite();
    try {
      body.accept(writes);
      if (waits) {
        durability.awaitAppended();
      }
    } catch (DiskFullException e) {
      health.diskFull(e);
      throw e;
    } finally {
      durability.endWrite(waits);
    }
  }

  /**
   * {@link #applyUnit} under the write locks of every shard the unit writes, taken in ascending
   * order as close() takes them: a reader of any of its keys waits until the whole unit is in the
   * index.
   */
  private void applyLocked(AtomicWrite unit) {
    Shard[] locked = unit.locked;
    long[] stamps = unit.stamps;
    int shards = 0;
    try {
      for (int j = 0; j < unit.count; j++) {
        Shard shard = keyspace.shard(unit.hashes[j]);
        if (shards == 0 || locked[shards - 1] != shard) {
          stamps[shards] = shard.lock.writeLock();
          locked[shards++] = shard;
        }
      }
      health.checkOpen();
      applyUnit(unit);
    } finally {
      for (int i = shards - 1; i >= 0; i--) {
        locked[i].lock.unlockWrite(stamps[i]);
      }
    }
  }

  /**
   * Plans {@code unit}'s records (a put whose expiry has passed deletes; a delete of an absent key
   * writes nothing), appends them as one unit and points the index at them; the caller holds the
   * write locks of every shard the unit touches.
   */
  private void applyUnit(AtomicWrite unit) {
    long now = System.currentTimeMillis();
    unit.clearPlan();
    for (int j = 0; j < unit.count; j++) {
      boolean delete =
          unit.values[j] == null || (unit.expiries[j] != NO_EXPIRY && unit.expiries[j] <= now);
      boolean element = unit.kinds[j] == WriteBatch.ELEMENT;
      if (!delete) {
        unit.plan(
            j,
            element
                ? RecordDescriptor.ELEMENT_PUT
                : unit.kinds[j] == WriteBatch.HEADER
                    ? RecordDescriptor.HEADER
                    : RecordDescriptor.PUT);
      } else if (keyspace
              .shard(unit.hashes[j])
              .index
              .get(unit.hashes[j], unit.keySource, unit.keyOffsets[j], unit.keyLengths[j])
          != 0) {
        unit.plan(j, element ? RecordDescriptor.ELEMENT_DELETE : RecordDescriptor.DELETE);
      }
    }
    int n = unit.records();
    if (n == 0) {
      return;
    }
    log.appendUnit(unit, n, unit.locations);
    for (int r = 0; r < n; r++) {
      int j = unit.op(r);
      Shard shard = keyspace.shard(unit.hashes[j]);
      MemorySegment keys = unit.keySource;
      int keyAt = unit.keyOffsets[j];
      int keyLength = unit.keyLengths[j];
      int type = unit.type(r);
      if (!RecordDescriptor.isDelete(type)) {
        long previous = shard.index.put(unit.hashes[j], keys, keyAt, keyLength, unit.locations[r]);
        shard.puts++;
        if (previous != 0) {
          accounting.retire(previous);
        } else if (type == RecordDescriptor.ELEMENT_PUT) {
          shard.elements++;
        }
      } else {
        long previous = shard.index.remove(unit.hashes[j], keys, keyAt, keyLength);
        accounting.retire(previous);
        accounting.deadAt(unit.locations[r]);
        shard.deletes++;
        if (type == RecordDescriptor.ELEMENT_DELETE) {
          shard.elements--;
        }
      }
    }
  }

  @Override
  public long version(byte[] key) {
    return keyspace.version(segmentOf(Objects.requireNonNull(key, "key")));
  }

  @Override
  public byte[][] getAll(byte[][] keys) {
    return keyspace.getAll(keys);
  }

  @Override
  public int readAll(
      MemorySegment source, long[] offsets, long[] lengths, int count, BatchValueSink sink) {
    return keyspace.readAll(source, offsets, lengths, count, sink);
  }

  @Override
  public void putAll(byte[][] keys, byte[][] values, long[] expireAtEpochMillis) {
    putAll(PutBatch.of(keys, values, expireAtEpochMillis));
  }

  @Override
  public void putAll(
      MemorySegment source,
      long[] keyOffsets,
      long[] keyLengths,
      long[] valueOffsets,
      long[] valueLengths,
      int count,
      long expireAtEpochMillis) {
    putAll(
        PutBatch.of(
            source,
            keyOffsets,
            keyLengths,
            valueOffsets,
            valueLengths,
            count,
            expireAtEpochMillis));
  }

  /**
   * Writes a batch window by window: hashes a window's keys, touches their slots and records, takes
   * the write locks of its shards in ascending order, appends all its records to the log at once
   * and points the index at them. The whole batch is checked first (nothing written if any of it is
   * refused) and waits once for its group commit.
   */
  private void putAll(PutBatch batch) {
    for (int i = 0; i < batch.count; i++) {
      checkKey(batch.keyLengths[i]);
      checkValue(batch.valueLengths[i]);
      if (batch.expiries[i] < 0) {
        throw new LimitExceededException(
            "expiry " + batch.expiries[i] + " of key " + i + " of the batch is negative");
      }
    }
    health.checkWritable();
    durably(batch, appendPutBatch);
  }

  private void appendBatch(PutBatch batch) {
    Keyspace.BatchScratch scratch = Keyspace.takeScratch();
    try {
      long now = System.currentTimeMillis();
      for (int from = 0; from < batch.count; from += Keyspace.BATCH_WINDOW) {
        appendWindow(
            batch, from, Math.min(Keyspace.BATCH_WINDOW, batch.count - from), now, scratch);
      }
    } finally {
      Keyspace.releaseScratch(scratch);
    }
  }

  private void appendWindow(
      PutBatch batch, int from, int n, long now, Keyspace.BatchScratch scratch) {
    long[] hashes = scratch.hashes;
    int[] order = scratch.order;
    for (int i = 0; i < n; i++) {
      int k = from + i;
      hashes[i] = batch.hash(hasher, k);
    }
    scratch.digest ^= keyspace.touch(hashes, n, true);
    // Insertion sort by shard, stable: a key given twice keeps its order, so the last value wins.
    for (int i = 0; i < n; i++) {
      int shard = keyspace.shardIndex(hashes[i]);
      int j = i;
      for (; j > 0 && keyspace.shardIndex(hashes[order[j - 1]]) > shard; j--) {
        order[j] = order[j - 1];
      }
      order[j] = i;
    }
    if (expiresAny(batch, from, n, now)) {
      appendByShard(batch, from, n, now, hashes, order);
      return;
    }
    int shards = 0;
    try {
      // In ascending shard order, as close() takes them; nothing else holds two at once.
      for (int g = 0; g < n; g++) {
        Shard shard = keyspace.shard(hashes[order[g]]);
        if (shards == 0 || batch.locked[shards - 1] != shard) {
          batch.stamps[shards] = shard.lock.writeLock();
          batch.locked[shards++] = shard;
        }
        batch.items[g] = from + order[g];
      }
      health.checkOpen();
      // Every record of the window in one append (two if the segment fills), in shard order: a key
      // given twice keeps its order in the log and in the index, so the last value wins.
      for (int g = 0; g < n; ) {
        int end = g + log.appendAll(batch, batch.items, g, n, batch.locations);
        for (; g < end; g++) {
          int k = batch.items[g];
          long hash = hashes[k - from];
          indexPut(
              keyspace.shard(hash),
              hash,
              batch.keys,
              batch.keyOffsets[k],
              batch.keyLengths[k],
              batch.locations[g]);
        }
      }
    } finally {
      for (int i = shards - 1; i >= 0; i--) {
        batch.locked[i].lock.unlockWrite(batch.stamps[i]);
        batch.locked[i] = null;
      }
    }
  }

  /** Whether an item of the window has an expiry in the past (which deletes its key). */
  private static boolean expiresAny(PutBatch batch, int from, int n, long now) {
    for (int k = from; k < from + n; k++) {
      long expireAt = batch.expiries[k];
      if (expireAt != NO_EXPIRY && expireAt <= now) {
        return true;
      }
    }
    return false;
  }

  /** A window with deletes in it, key by key, each shard's write lock taken once. */
  private void appendByShard(
      PutBatch batch, int from, int n, long now, long[] hashes, int[] order) {
    for (int g = 0; g < n; ) {
      Shard shard = keyspace.shard(hashes[order[g]]);
      long stamp = shard.lock.writeLock();
      try {
        health.checkOpen();
        for (; g < n && keyspace.shard(hashes[order[g]]) == shard; g++) {
          appendOne(batch, from + order[g], shard, hashes[order[g]], now);
        }
      } finally {
        shard.lock.unlockWrite(stamp);
      }
    }
  }

  /** Item {@code k} of the batch; an expiry in the past deletes the key, as {@link #put} does. */
  private void appendOne(PutBatch batch, int k, Shard shard, long hash, long now) {
    long expireAt = batch.expiries[k];
    if (expireAt != NO_EXPIRY && expireAt <= now) {
      appendLocked(
          shard,
          RecordDescriptor.DELETE,
          batch.keys,
          batch.keyOffsets[k],
          batch.keyLengths[k],
          hash,
          null,
          0,
          0,
          0);
      return;
    }
    appendLocked(
        shard,
        RecordDescriptor.PUT,
        batch.keys,
        batch.keyOffsets[k],
        batch.keyLengths[k],
        hash,
        batch.valueSegment(k),
        batch.valueOffsets[k],
        batch.valueLengths[k],
        expireAt);
  }

  private void checkValue(long length) {
    if (length > options.maxValueBytes()) {
      throw new LimitExceededException(
          "value length "
              + length
              + " > max "
              + options.maxValueBytes()
              + " bytes (maxValueBytes)");
    }
  }

  private void checkKey(long length) {
    if (length == 0) {
      throw new LimitExceededException(
          "key is empty; keys must be 1 to " + options.maxKeyBytes() + " bytes");
    }
    if (length > options.maxKeyBytes()) {
      throw new LimitExceededException(
          "key length " + length + " > max " + options.maxKeyBytes() + " bytes (maxKeyBytes)");
    }
  }

  // ---------------------------------------------------------------- reads

  @Override
  public byte[] get(byte[] key) {
    return keyspace.get(key);
  }

  @Override
  public <R> R read(byte[] key, Function<MemorySegment, R> reader) {
    return keyspace.read(key, reader);
  }

  @Override
  public <R> R read(MemorySegment key, Function<MemorySegment, R> reader) {
    return keyspace.read(key, reader);
  }

  @Override
  public boolean read(MemorySegment keySource, long keyOffset, long keyLength, ValueSink sink) {
    return keyspace.read(keySource, keyOffset, keyLength, sink);
  }

  @Override
  public long prefetch(MemorySegment source, long[] offsets, long[] lengths, int count) {
    return keyspace.prefetch(source, offsets, lengths, count);
  }

  @Override
  public long expiryOf(byte[] key) {
    return keyspace.expiryOf(key);
  }

  @Override
  public long expiryOf(MemorySegment key) {
    return keyspace.expiryOf(key);
  }

  @Override
  public boolean contains(byte[] key) {
    return keyspace.contains(key);
  }

  @Override
  public long size() {
    return keyspace.size();
  }

  @Override
  public byte[] randomKey() {
    return keyspace.randomKey();
  }

  @Override
  public Cursor scan(byte[] prefix) {
    Objects.requireNonNull(prefix, "prefix");
    health.checkOpen();
    obsolete.cursorOpened();
    return new StoreCursor(keyspace, obsolete, prefix.clone());
  }

  @Override
  public ScanPage scanPage(long cursor, byte[] prefix, int count) {
    Objects.requireNonNull(prefix, "prefix");
    checkScanCount(count);
    health.checkOpen();
    return new ScanPageTask(keyspace, prefix, count, false).run(cursor);
  }

  @Override
  public ScanPage scanElements(long cursor, byte[] prefix, int count) {
    Objects.requireNonNull(prefix, "prefix");
    checkScanCount(count);
    health.checkOpen();
    return new ScanPageTask(keyspace, prefix, count, true).run(cursor);
  }

  @Override
  public <R> R readHeader(MemorySegment key, Function<MemorySegment, R> reader) {
    return keyspace.readHeader(key, reader);
  }

  @Override
  public <R> R readHeader(MemorySegment key, HeaderReader<R> reader) {
    return keyspace.readHeader(key, reader);
  }

  @Override
  public boolean readHeader(byte[] key, HeaderSink sink) {
    return keyspace.readHeader(key, sink);
  }

  @Override
  public byte[] getElement(byte[] key) {
    return keyspace.getElement(key);
  }

  @Override
  public <R> R readElement(MemorySegment key, Function<MemorySegment, R> reader) {
    return keyspace.readElement(key, reader);
  }

  @Override
  public boolean readElement(
      MemorySegment keySource, long keyOffset, long keyLength, ValueSink sink) {
    return keyspace.readElement(keySource, keyOffset, keyLength, sink);
  }

  @Override
  public long elementCount() {
    return keyspace.elementCount();
  }

  @Override
  public <K, V> TypedMap<K, V> map(String name, Codec<K> keyCodec, Codec<V> valueCodec) {
    return TypedMap.of(this, name, keyCodec, valueCodec);
  }

  // ---------------------------------------------------------------- change stream

  @Override
  public ChangeStream changes(long fromSeq) {
    health.checkOpen();
    StoreChangeHorizon horizon =
        new StoreChangeHorizon(options.fsync() == Fsync.ALWAYS, log, durability, health);
    return new LogChangeStream(segments, horizon, fromSeq);
  }

  @Override
  public long lastSeq() {
    health.checkOpen();
    return log.appendedSeq();
  }

  /** No open check: a server's memory estimate reads it on every command, even while closing. */
  @Override
  public long appendedBytes() {
    LogWriter writer = log;
    return writer == null ? 0 : writer.appendedBytes();
  }

  // ---------------------------------------------------------------- durability and maintenance

  @Override
  public void sync() {
    health.checkOpen();
    durability.syncAll();
  }

  @Override
  public void whenDurable(DurabilityListener listener) {
    Objects.requireNonNull(listener, "listener");
    health.checkOpen();
    durability.whenDurable(listener);
  }

  @Override
  public boolean durableOnReturn() {
    return options.fsync() != Fsync.ALWAYS || options.writesAwaitDurability();
  }

  @Override
  public CellarHealth health() {
    return health.snapshot();
  }

  @Override
  public void checkpoint() {
    health.checkOpen();
    try {
      maintenance.writeCheckpoint(true, false);
    } catch (IOException e) {
      throw failure("checkpoint of " + directory + " failed", e);
    }
  }

  @Override
  public StoreSnapshot snapshot(Path target) {
    health.checkOpen();
    try {
      return maintenance.snapshot(target);
    } catch (IOException e) {
      throw failure("snapshot of " + directory + " into " + target + " failed", e);
    }
  }

  @Override
  public long compact() {
    health.checkOpen();
    try {
      return maintenance.compactNow();
    } catch (IOException e) {
      throw failure("compaction of " + directory + " failed", e);
    }
  }

  /** An I/O failure as the typed exception a caller can act on. */
  private static CellarException failure(String what, IOException e) {
    if (DiskFullException.isNoSpace(e)) {
      return new DiskFullException(
          what + ": disk full (" + e.getMessage() + "); retry once space is freed", e);
    }
    return new StoreIOException(what + ": " + e.getMessage(), e);
  }

  @Override
  public CellarStats stats() {
    long indexBytes = 0;
    long puts = 0;
    long deletes = 0;
    for (Shard s : keyspace.shards()) {
      long stamp = s.lock.readLock();
      try {
        indexBytes += s.index.memoryBytes();
        puts += s.puts;
        deletes += s.deletes;
      } finally {
        s.lock.unlockRead(stamp);
      }
    }
    long logBytes = 0;
    long garbage = 0;
    long mapped = 0;
    long now = System.currentTimeMillis();
    List<Segment> all = segments.all();
    for (Segment s : all) {
      logBytes += s.end();
      mapped += s.memory().byteSize();
      // Compaction has moved everything out of an obsolete segment: all of it is dead, although it
      // stays on disk until the next checkpoint. Counted as live, it would hold maxmemory up. A
      // running pass's output holds copies of records its victims still count as live until the
      // pass retires them: counted twice, a pass's copies made maxmemory evict for nothing and,
      // under a slow pass, answer -OOM although every key that could be evicted had been.
      garbage += s.obsolete() || s.passOutput() ? s.end() : s.garbageBytes(now);
    }
    dev.cellar.cache.BlockCache cache = health.isClosed() ? null : readCache;
    return new CellarStats(
        health.isClosed() ? 0 : size(),
        indexBytes,
        logBytes,
        garbage,
        all.size(),
        puts,
        deletes,
        durability.fsyncs(),
        durability.fsyncNanos(),
        counters.compactions.sum(),
        counters.compactedBytes.sum(),
        counters.checkpoints.sum(),
        mapped,
        counters.expiredKeys.sum(),
        cache == null ? 0 : cache.capacityBlocks() * dev.cellar.cache.BlockCache.BLOCK_BYTES,
        cache == null ? 0 : cache.hits(),
        cache == null ? 0 : cache.misses(),
        cache == null ? 0 : cache.readAhead());
  }

  // ---------------------------------------------------------------- close

  @Override
  public void close() {
    synchronized (this) {
      if (health.isClosed()) {
        return;
      }
      health.markClosed();
    }
    log.appendSignal().close(); // wakes change streams waiting for the log to grow
    durability.stop(directory.toString());
    // Both asked first, then both joined: a pass at rest may be waiting for the lock a throttled
    // pass of the maintenance thread holds, and that pass gives up only once its thread is asked.
    if (idleCompactor != null) {
      idleCompactor.requestStop();
    }
    if (maintenanceAgent != null) {
      maintenanceAgent.requestStop();
    }
    if (idleCompactor != null) {
      idleCompactor.stop();
    }
    if (maintenanceAgent != null) {
      maintenanceAgent.stop();
    }
    log.stopPrefaulting();
    CellarException failure;
    try {
      // The maintenance lock first, then the shard locks: the order of a compaction pass, which
      // holds the first while it takes the second. The other way round, a close() during an
      // explicit compaction (a server's BGREWRITEAOF, then SHUTDOWN) waited for the pass, which
      // waited for it.
      failure = maintenance.lock().hold(this::closeUnderMaintenanceLock);
    } catch (IOException e) {
      throw new StoreIOException("close of " + directory + " failed: " + e.getMessage(), e);
    }
    if (failure != null) {
      throw failure;
    }
  }

  private CellarException closeUnderMaintenanceLock() {
    Shard[] shards = keyspace.shards();
    // Wait for writes already past their open check.
    long[] stamps = new long[shards.length];
    for (int i = 0; i < shards.length; i++) {
      stamps[i] = shards[i].lock.writeLock();
    }
    CellarException failure = null;
    try {
      if (health.writeFailure() == null) {
        durability.syncAllOrThrow();
        maintenance.sealFullSegments();
        log.active().seal();
        maintenance.closingCheckpoint();
      }
    } catch (IOException | RuntimeException e) {
      failure =
          new StoreIOException(
              "close of " + directory + " could not sync or checkpoint: " + e.getMessage(), e);
    } finally {
      for (int i = 0; i < shards.length; i++) {
        shards[i].index.close();
        shards[i].lock.unlockWrite(stamps[i]);
      }
      for (Segment s : segments.all()) {
        s.close();
      }
      if (blockReads != null) {
        blockReads.close();
      }
      if (readCache != null) {
        readCache.close();
      }
      closeQuietly(lock);
    }
    return failure;
  }
}
