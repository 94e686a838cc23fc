package dev.cellar.store;

import dev.cellar.Cellar;
import dev.cellar.CellarException;
import dev.cellar.CellarOptions;
import dev.cellar.CellarStats;
import dev.cellar.Codec;
import dev.cellar.CorruptStoreException;
import dev.cellar.Cursor;
import dev.cellar.DiskFullException;
import dev.cellar.Fsync;
import dev.cellar.LimitExceededException;
import dev.cellar.ScanPage;
import dev.cellar.StoreClosedException;
import dev.cellar.StoreIOException;
import dev.cellar.TypedMap;
import dev.cellar.ValueSink;
import dev.cellar.checkpoint.CheckpointImage;
import dev.cellar.index.HashIndex;
import dev.cellar.index.KeyHasher;
import dev.cellar.io.FileIO;
import dev.cellar.io.NativeAccess;
import dev.cellar.io.StoreFile;
import dev.cellar.log.LogLocation;
import dev.cellar.log.LogWriter;
import dev.cellar.log.RecordDescriptor;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentHeaderDescriptor;
import dev.cellar.log.SegmentTable;
import dev.cellar.recovery.Recovery;
import dev.cellar.recovery.RecoveryReport;
import java.io.IOException;
import java.io.SyncFailedException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * The engine behind {@link Cellar}: sharded off-heap indexes over one append-only log.
 *
 * <h2>Write path</h2>
 *
 * Hash the key (SipHash, seeded per store), take the shard's write lock, append the record to the
 * log (a memory copy into the mapped active segment), point the index at it, account the replaced
 * record as garbage in its segment, unlock; under {@code always}, wait for group commit.
 *
 * <h2>Read path</h2>
 *
 * Hash, find the location in the shard's index under an optimistic stamp, read the record header,
 * validate the stamp; then copy the value out (records are immutable) and check its CRC. No lock
 * word is written on a read, so reads scale with cores.
 *
 * <h2>Scans</h2>
 *
 * {@link #scan(byte[])} copies one shard's locations at a time and pins the segments it reads
 * ({@link StoreCursor}); {@link #scanPage} keeps no state between calls, its cursor being a
 * position in the hash space ({@link ScanPageTask}); {@link #randomKey()} draws index slots at
 * random.
 *
 * <h2>Background work</h2>
 *
 * A flusher agent fsyncs once a second under {@code everysec}; a maintenance agent seals full
 * segments, writes checkpoints and compacts. Checkpoints and compaction exclude each other through
 * {@link #maintenanceLock}; segments compaction replaced are deleted only after a later checkpoint
 * (which no longer names them) is durable and no cursor is open.
 *
 * <h2>Write failures</h2>
 *
 * A failed fsync of the log disables writes for good ({@link #writeFailure()}): the kernel may have
 * dropped the pages it could not write, so no later fsync can vouch for them (PostgreSQL's
 * "fsyncgate"); reads go on, and a reopen recovers from what is on disk. A full disk refuses writes
 * ({@link DiskFullException}, {@link #diskFull()}) from the first one that found no space until a
 * probe finds space again ({@link #probeSpace()}, run by each refused write and once a second by
 * the maintenance agent, so the state clears without a write). The log reserves blocks ahead, so a
 * refused write has written nothing, and every acknowledged one is intact.
 */
public final class Store implements Cellar, GroupCommit.FailureSink {
  private static final System.Logger LOG = System.getLogger("dev.cellar");
  private static final int OPTIMISTIC_ATTEMPTS = 8;

  /** Uniform draws {@link #randomKey()} makes: enough unless the index is under about 1/8 full. */
  private static final int RANDOM_KEY_PROBES = 32;

  /** Walks {@link #randomKey()} makes after that, before concluding that every key has expired. */
  private static final int RANDOM_KEY_WALKS = 16;

  private static final MemorySegment NO_PREFIX = MemorySegment.ofArray(new byte[0]);

  private final Path directory;
  private final CellarOptions options;
  private final FileIO io;
  private final DirectoryLock lock;
  private final KeyHasher hasher;
  private final Shard[] shards;
  private final int shardMask;
  private final SegmentTable segments = new SegmentTable();
  private final GarbageAccounting accounting = new GarbageAccounting(segments);
  private final AtomicLong segmentIds = new AtomicLong();
  private final AtomicLong checkpointSequence = new AtomicLong();
  private final AtomicInteger openCursors = new AtomicInteger();
  final Object maintenanceLock = new Object();

  /**
   * Threads about to wait for {@link #maintenanceLock} other than the low-priority compactor, which
   * yields to them: starved of CPU by a busy application, its pass could otherwise hold a
   * checkpoint, a SHUTDOWN or an explicit compaction back for as long as the application is busy.
   */
  final AtomicInteger maintenanceWaiters = new AtomicInteger();

  /** A low-priority pass holds, or is about to take, {@link #maintenanceLock}. */
  private volatile boolean idlePassRunning;

  private final List<Segment> obsolete = new ArrayList<>();
  private LogWriter log;
  private GroupCommit commit;
  private RecoveryReport recoveryReport;
  private FlushAgent flusher;
  private MaintenanceAgent maintenance;
  private IdleCompactor idleCompactor;

  private volatile boolean closed;
  private volatile IOException writeFailure;

  /** The last write refused for lack of space, until a write or the space probe succeeds. */
  private volatile DiskFullException diskFull;

  private volatile long diskFullLoggedNanos = System.nanoTime() - DISK_FULL_LOG_NANOS;

  /** Serialises probes, which share one scratch file. */
  private final Object spaceProbe = new Object();

  private volatile Exception checkpointFailure;
  private volatile Exception compactionFailure;
  private volatile long checkpointedSeq = -1;

  /**
   * What the holder of {@link #maintenanceLock} is doing, for monitoring (INFO); written under the
   * lock.
   */
  private volatile boolean compacting;

  private volatile boolean checkpointing;

  final LongAdder compactions = new LongAdder();
  final LongAdder compactedBytes = new LongAdder();

  /** Keys compaction took out of the index because they had expired. */
  final LongAdder expiredKeys = new LongAdder();

  private final LongAdder checkpoints = new LongAdder();

  private Store(
      Path directory, CellarOptions options, DirectoryLock lock, StoreMetaDescriptor meta) {
    this.directory = directory;
    this.options = options;
    this.io = options.fileIO();
    this.lock = lock;
    this.hasher = new KeyHasher(meta.seed0(), meta.seed1());
    this.shards = new Shard[meta.shards()];
    this.shardMask = meta.shards() - 1;
    for (int i = 0; i < shards.length; i++) {
      shards[i] = new Shard(segments, hasher);
    }
  }

  /**
   * Opens or creates the store in {@code directory}; see {@link Cellar#open(Path, CellarOptions)}.
   */
  public static Store open(Path directory, CellarOptions options) {
    Objects.requireNonNull(directory, "directory");
    options.validate();
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
    Recovery recovery = new Recovery(io, directory, options.salvage(), shards.length);
    recovery.scanDirectory();
    CheckpointImage image =
        recovery.loadCheckpoint(
            (shard, slots, keyCount) ->
                shards[shard].index = HashIndex.copyOf(shards[shard], slots, keyCount));
    recovery.placeSegments(segments);
    for (int i = 0; i < shards.length; i++) {
      if (shards[i].index == null) {
        shards[i].index = new HashIndex(shards[i], options.expectedKeys() / shards.length);
      }
    }
    if (image != null) {
      checkpointSequence.set(image.sequence());
    }
    ReplayApplier applier = new ReplayApplier(shards, hasher, segments, accounting);
    try {
      recovery.replay(applier);
    } finally {
      applier.close();
    }
    recoveryReport = recovery.report();
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
    commit = new GroupCommit(log, this, maxSeq);
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
        || last.memory().byteSize() < last.end()) {
      return null;
    }
    Segment reopened =
        Segment.reopenForAppend(io, last, options.segmentBytes(), options.hugePageLogTail());
    segments.replace(last, reopened);
    last.close();
    return reopened;
  }

  private void startAgents() {
    if (options.fsync() == Fsync.EVERYSEC) {
      flusher = new FlushAgent(this, directory.getFileName() + "");
      flusher.start();
    }
    maintenance = new MaintenanceAgent(this, directory.getFileName() + "");
    if (options.backgroundCompaction()) {
      idleCompactor = new IdleCompactor(this, directory.getFileName() + "");
    }
    log.onSegmentFull(this::wakeAgents);
    maintenance.start();
    if (idleCompactor != null) {
      idleCompactor.start();
    }
  }

  /** Releases everything after a failed open, writing nothing. */
  private void abandon() {
    closed = true;
    if (log != null) {
      log.stopPrefaulting();
    }
    for (Shard s : shards) {
      if (s.index != null) {
        s.index.close();
      }
    }
    for (Segment s : segments.all()) {
      s.close();
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
    if (valueLength > options.maxValueBytes()) {
      throw new LimitExceededException(
          "value length "
              + valueLength
              + " > max "
              + options.maxValueBytes()
              + " bytes (maxValueBytes)");
    }
    checkWritable();
    checkSpace();
    boolean always = options.fsync() == Fsync.ALWAYS;
    if (always) {
      commit.enter();
    }
    try {
      return writeAndCommit(
          type, key, keyOffset, keyLength, hash, value, valueOffset, valueLength, expireAt, always);
    } catch (DiskFullException e) {
      noteDiskFull(e);
      throw e;
    } finally {
      if (always) {
        commit.exit();
      }
    }
  }

  private boolean writeAndCommit(
      int type,
      MemorySegment key,
      long keyOffset,
      long keyLength,
      long hash,
      MemorySegment value,
      long valueOffset,
      long valueLength,
      long expireAt,
      boolean always) {
    Shard shard = shards[(int) hash & shardMask];
    boolean existed;
    long stamp = shard.lock.writeLock();
    try {
      checkOpen();
      if (type == RecordDescriptor.PUT) {
        long location =
            log.append(type, key, keyOffset, keyLength, value, valueOffset, valueLength, expireAt);
        long previous = shard.index.put(hash, key, keyOffset, keyLength, location);
        existed = previous != 0 && accounting.retire(previous);
        shard.puts++;
      } else {
        long previous = shard.index.get(hash, key, keyOffset, keyLength);
        if (previous == 0) {
          return false;
        }
        long location = log.append(type, key, keyOffset, keyLength, null, 0, 0, 0);
        shard.index.remove(hash, key, keyOffset, keyLength);
        existed = accounting.retire(previous);
        accounting.deadAt(location);
        shard.deletes++;
      }
    } finally {
      shard.lock.unlockWrite(stamp);
    }
    if (always) {
      awaitDurable(log.appendedSeq());
    }
    return existed;
  }

  private void awaitDurable(long seq) {
    try {
      commit.awaitDurable(seq);
    } catch (IOException e) {
      throw new StoreIOException(
          "fsync failed; this write is not acknowledged and writes are disabled until the store is reopened: "
              + e.getMessage(),
          e);
    }
  }

  private MemorySegment segmentOf(byte[] key) {
    Objects.requireNonNull(key, "key");
    return MemorySegment.ofArray(key);
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

  void checkOpen() {
    if (closed) {
      throw new StoreClosedException("store " + directory + " is closed");
    }
  }

  private void checkWritable() {
    checkOpen();
    IOException failure = writeFailure;
    if (failure != null) {
      throw new StoreIOException(
          "writes are disabled since an fsync failed ("
              + failure.getMessage()
              + "); reads go on; reopen the store to recover from what is on disk",
          failure);
    }
  }

  @Override
  public void writeFailed(IOException cause) {
    if (writeFailure == null) {
      writeFailure = cause;
      LOG.log(
          System.Logger.Level.ERROR, "fsync failed in " + directory + "; writes disabled", cause);
    }
  }

  /** An fsync of the log outside group commit failed: as if group commit's had. */
  private void syncFailed(IOException cause) {
    writeFailed(cause);
    commit.fail(cause);
  }

  /**
   * Whether a compaction pass (the background agent's or {@link #compact()}'s) is rewriting
   * segments now.
   */
  public boolean compacting() {
    return compacting;
  }

  /** Whether a checkpoint is being written now. */
  public boolean checkpointing() {
    return checkpointing;
  }

  void compacting(boolean running) {
    compacting = running;
  }

  /** The fsync failure that disabled writes, or null. */
  public IOException writeFailure() {
    return writeFailure;
  }

  /**
   * The last write refused for lack of disk space, or null once space has returned (a probe, by a
   * later write or by the maintenance agent, found some).
   */
  public DiskFullException diskFull() {
    return diskFull;
  }

  /** Why the last checkpoint attempt failed, or null if it succeeded (or none was tried). */
  public Exception checkpointFailure() {
    return checkpointFailure;
  }

  /** Why the last compaction pass failed, or null if it succeeded (or none was tried). */
  public Exception compactionFailure() {
    return compactionFailure;
  }

  /** Logs the first refusal of a disk-full episode (and at most one a minute while it lasts). */
  private void noteDiskFull(DiskFullException e) {
    boolean first = diskFull == null;
    diskFull = e;
    long now = System.nanoTime();
    if (first && now - diskFullLoggedNanos > DISK_FULL_LOG_NANOS) {
      diskFullLoggedNanos = now;
      LOG.log(
          System.Logger.Level.WARNING,
          directory
              + ": disk full, writes refused until space returns; reads go on ("
              + e.getMessage()
              + ")");
    }
  }

  private void spaceReturned() {
    if (diskFull != null) {
      diskFull = null;
      LOG.log(System.Logger.Level.INFO, directory + ": disk space returned; writes accepted again");
    }
  }

  /**
   * Once a write has found the disk full, every write is refused until a probe finds space again,
   * even one small enough for the blocks still reserved ahead of the log's tail: otherwise small
   * writes would succeed while large ones fail, and the state that {@code INFO} and health checks
   * report would flap with each. Each refused write probes (about the system calls the failed
   * reservation took), so writes resume with the first one after space returns.
   */
  private void checkSpace() {
    DiskFullException full = diskFull;
    if (full == null) {
      return;
    }
    try {
      probeSpace();
    } catch (IOException e) {
      throw new DiskFullException(full.getMessage(), e);
    }
  }

  private static final long DISK_FULL_LOG_NANOS = 60_000_000_000L;
  static final String SPACE_PROBE = "space-probe.tmp";

  /**
   * Tells whether space for the log's next reservation has returned: reserves as much in a scratch
   * file (deleted at once; recovery deletes any {@code .tmp} a crash leaves) and, if that works,
   * clears {@link #diskFull()}. The log itself is not touched, so a probe cannot disturb appends.
   *
   * @throws IOException if there is still no space
   */
  void probeSpace() throws IOException {
    synchronized (spaceProbe) {
      if (diskFull == null) {
        return;
      }
      Path probe = directory.resolve(SPACE_PROBE);
      try (StoreFile file = io.open(probe, true)) {
        file.allocate(0, LogWriter.RESERVE_CHUNK + SegmentHeaderDescriptor.LENGTH);
      } finally {
        io.delete(probe);
      }
      spaceReturned();
    }
  }

  // ---------------------------------------------------------------- reads

  @Override
  public byte[] get(byte[] key) {
    Objects.requireNonNull(key, "key");
    // A segment over the caller's array would be allocated per call (the lookup is too large for
    // escape analysis to remove it): a short key is looked up from a per-thread copy instead, so
    // the value returned is the call's only allocation. No caller code runs during the lookup
    // (copyOut calls none), so a nested read cannot overwrite the copy while it is in use.
    MemorySegment lookupKey;
    if (key.length <= KEY_SCRATCH_BYTES) {
      lookupKey = KEY_SCRATCH.get();
      MemorySegment.copy(key, 0, lookupKey, ValueLayout.JAVA_BYTE, 0, key.length);
    } else {
      lookupKey = MemorySegment.ofArray(key);
    }
    return readLive(lookupKey, 0, key.length, hasher.hash(key), copyOut, null);
  }

  /** Keys up to this length are looked up by {@link #get(byte[])} from {@link #KEY_SCRATCH}. */
  private static final int KEY_SCRATCH_BYTES = 256;

  private static final ThreadLocal<MemorySegment> KEY_SCRATCH =
      ThreadLocal.withInitial(() -> MemorySegment.ofArray(new byte[KEY_SCRATCH_BYTES]));

  @Override
  public <R> R read(byte[] key, Function<MemorySegment, R> reader) {
    return read(segmentOf(key), reader);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <R> R read(MemorySegment key, Function<MemorySegment, R> reader) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(reader, "reader");
    return (R) readLive(key, 0, key.byteSize(), applyReader, reader);
  }

  @Override
  public boolean read(MemorySegment keySource, long keyOffset, long keyLength, ValueSink sink) {
    Objects.requireNonNull(keySource, "key");
    Objects.requireNonNull(sink, "sink");
    Objects.checkFromIndexSize(keyOffset, keyLength, keySource.byteSize());
    return readLive(keySource, keyOffset, keyLength, feedSink, sink) != null;
  }

  /**
   * What a read does with the live record it found, given the caller's argument ({@code with}): one
   * instance per kind of read, made with the store, so that a read creates no lambda.
   */
  private interface RecordAction<R, A> {
    R apply(Segment segment, RecordView view, A with);
  }

  private final RecordAction<byte[], Void> copyOut =
      (segment, view, unused) -> {
        byte[] value = view.checkedValue(verifiesChecksumsOnRead());
        if (value == null) {
          throw corruptRecord(segment, view);
        }
        return value;
      };

  private final RecordAction<Object, Function<MemorySegment, ?>> applyReader =
      (segment, view, reader) -> {
        verifyOnRead(segment, view);
        return reader.apply(view.value().asReadOnly());
      };

  private final RecordAction<Boolean, ValueSink> feedSink =
      (segment, view, sink) -> {
        verifyOnRead(segment, view);
        sink.accept(segment.readOnlyMemory(), view.valueOffset(), view.valueLength());
        return Boolean.TRUE;
      };

  private void verifyOnRead(Segment segment, RecordView view) {
    if (verifiesChecksumsOnRead() && !view.checksumValid()) {
      throw corruptRecord(segment, view);
    }
  }

  private boolean verifiesChecksumsOnRead() {
    return options.verifyChecksumsOnRead();
  }

  /**
   * Per-thread header scratch for lookups, so a read allocates none. Safe to share between nested
   * reads on one thread (a reader that reads the store again) because no read looks at the view
   * after it has called out to a caller's code: a retry parses it anew.
   */
  private static final ThreadLocal<RecordView> LOOKUP_VIEW =
      ThreadLocal.withInitial(RecordView::new);

  /** Per-thread room for {@link #prefetch}'s hashes. */
  private static final ThreadLocal<long[]> PREFETCH_HASHES =
      ThreadLocal.withInitial(() -> new long[64]);

  @Override
  public long prefetch(MemorySegment source, long[] offsets, long[] lengths, int count) {
    if (closed) {
      return 0;
    }
    long[] hashes = PREFETCH_HASHES.get();
    if (hashes.length < count) {
      hashes = new long[count];
      PREFETCH_HASHES.set(hashes);
    }
    // Three tight passes rather than one: the loads of a pass are independent of each other and
    // few instructions apart, so the CPU has many of them in flight at once.
    for (int i = 0; i < count; i++) {
      hashes[i] = hasher.hash(source, offsets[i], lengths[i]);
    }
    long digest = 0;
    for (int i = 0; i < count; i++) {
      digest ^= shards[(int) hashes[i] & shardMask].index.touch(hashes[i]);
    }
    // The slots are in cache now; the records they point at are the second round of misses.
    for (int i = 0; i < count; i++) {
      long location = shards[(int) hashes[i] & shardMask].index.guessLocation(hashes[i]);
      Segment segment = location == 0 ? null : segments.get(LogLocation.slot(location));
      if (segment != null) {
        try {
          long offset = LogLocation.offset(location);
          if (offset < segment.end()) {
            digest ^= segment.memory().get(ValueLayout.JAVA_BYTE, offset);
            // A SET of this key will mark that record dead; its word of the dead map is a miss too.
            digest ^= segment.touchDeadMark(offset);
          }
        } catch (IllegalStateException | IndexOutOfBoundsException unmapped) {
          // compaction replaced the segment meanwhile: nothing to gain from it
        }
      }
    }
    return digest;
  }

  /**
   * Finds the live, unexpired record for the key in {@code key[offset, offset + length)} and
   * applies {@code action} to it; returns null if there is none. If compaction unmaps the record's
   * segment while the action runs (it moved the record after we found it), the lookup is repeated,
   * so the action may run twice.
   */
  private <R, A> R readLive(
      MemorySegment key, long offset, long length, RecordAction<R, A> action, A with) {
    return readLive(key, offset, length, hasher.hash(key, offset, length), action, with);
  }

  /** {@link #readLive}, given the key's hash. */
  private <R, A> R readLive(
      MemorySegment key, long offset, long length, long hash, RecordAction<R, A> action, A with) {
    checkOpen();
    Shard shard = shards[(int) hash & shardMask];
    RecordView view = LOOKUP_VIEW.get();
    for (int attempt = 0; ; attempt++) {
      Segment segment = locate(shard, hash, key, offset, length, view, attempt);
      if (segment == null || (view.expireAt() != 0 && view.expiredAt(System.currentTimeMillis()))) {
        return null;
      }
      try {
        return action.apply(segment, view, with);
      } catch (IllegalStateException e) {
        // Compaction removes a segment from the table before it unmaps it: anything else is not
        // ours to retry (a caller's reader may throw this exception for its own reasons).
        if (segments.get(segment.slot()) == segment) {
          throw e;
        }
        checkOpen();
      }
    }
  }

  /**
   * Finds the live record for {@code key} and parses its header into {@code view}; returns its
   * segment, or null if the key is absent (tombstones read as absent). The result was current at
   * some instant during the call.
   */
  private Segment locate(
      Shard shard,
      long hash,
      MemorySegment key,
      long keyOffset,
      long keyLength,
      RecordView view,
      int retries) {
    for (int attempt = 0; ; attempt++) {
      boolean locked = attempt + retries >= OPTIMISTIC_ATTEMPTS;
      long stamp = locked ? shard.lock.readLock() : shard.lock.tryOptimisticRead();
      try {
        if (stamp == 0) {
          Thread.onSpinWait();
          continue;
        }
        long location = shard.index.get(hash, key, keyOffset, keyLength);
        Segment segment = location == 0 ? null : segments.get(LogLocation.slot(location));
        boolean parsed =
            segment != null
                && view.parse(segment.memory(), LogLocation.offset(location), segment.end());
        if (locked || shard.lock.validate(stamp)) {
          if (location == 0) {
            return null;
          }
          if (!parsed) {
            throw new CorruptStoreException(
                "the index points at an unreadable record",
                List.of(
                    segment == null
                        ? "location " + Long.toHexString(location) + " has no segment"
                        : segment.path()
                            + " offset "
                            + LogLocation.offset(location)
                            + ": malformed record header"));
          }
          return view.isDelete() ? null : segment;
        }
      } catch (IllegalStateException | IndexOutOfBoundsException raced) {
        // A writer changed what we were reading (resized the index, unmapped a segment): retry.
        if (locked) {
          throw raced;
        }
      } finally {
        if (locked) {
          shard.lock.unlockRead(stamp);
        }
      }
    }
  }

  private static CorruptStoreException corruptRecord(Segment segment, RecordView view) {
    return new CorruptStoreException(
        "a record failed its checksum; the value is not returned",
        List.of(
            segment.path()
                + " offset "
                + view.offset()
                + ": "
                + view.length()
                + " bytes, CRC32C mismatch"));
  }

  @Override
  public long expiryOf(byte[] key) {
    return expiryOf(segmentOf(key));
  }

  @Override
  public long expiryOf(MemorySegment key) {
    Objects.requireNonNull(key, "key");
    return readMeta(key);
  }

  /**
   * The expiry of the live record for {@code k}, {@link #NO_EXPIRY} for none, or {@link #ABSENT}.
   */
  private long readMeta(MemorySegment k) {
    checkOpen();
    long hash = hasher.hash(k);
    RecordView view = LOOKUP_VIEW.get();
    Segment segment = locate(shards[(int) hash & shardMask], hash, k, 0, k.byteSize(), view, 0);
    if (segment == null || view.expiredAt(System.currentTimeMillis())) {
      return ABSENT;
    }
    return view.expireAt();
  }

  @Override
  public boolean contains(byte[] key) {
    return readMeta(segmentOf(key)) != ABSENT;
  }

  @Override
  public long size() {
    checkOpen();
    long total = 0;
    for (Shard s : shards) {
      long stamp = s.lock.readLock();
      try {
        total += s.index.size();
      } finally {
        s.lock.unlockRead(stamp);
      }
    }
    return total;
  }

  @Override
  public Cursor scan(byte[] prefix) {
    Objects.requireNonNull(prefix, "prefix");
    checkOpen();
    openCursors.incrementAndGet();
    return new StoreCursor(this, prefix.clone());
  }

  @Override
  public ScanPage scanPage(long cursor, byte[] prefix, int count) {
    Objects.requireNonNull(prefix, "prefix");
    if (count < 1) {
      throw new CellarException(
          CellarException.Category.INVALID_ARGUMENT, "scan count " + count + " must be at least 1");
    }
    checkOpen();
    return new ScanPageTask(this, shards, prefix, count).run(cursor);
  }

  /**
   * Draws a shard and a slot in it uniformly until a slot holds a live key. With shards' tables of
   * equal size (as they are, give or take a doubling, since hashing spreads keys evenly) that is a
   * uniform draw over all keys, and it takes about 1 / load draws, 2 to 3 normally. A sparse index,
   * or one full of expired keys, falls back to {@link HashIndex#sample}'s walk.
   */
  @Override
  public byte[] randomKey() {
    checkOpen();
    RandomGenerator random = ThreadLocalRandom.current();
    RecordView view = new RecordView();
    for (int draw = 0; draw < RANDOM_KEY_PROBES; draw++) {
      byte[] key = randomKeyIn(shards[random.nextInt(shards.length)], random, view, true);
      if (key != null) {
        return key;
      }
    }
    for (int attempt = 0; attempt < RANDOM_KEY_WALKS; attempt++) {
      Shard shard = nonEmptyShardFrom(random.nextInt(shards.length));
      if (shard == null) {
        return null;
      }
      byte[] key = randomKeyIn(shard, random, view, false);
      if (key != null) {
        return key;
      }
    }
    return null;
  }

  /** A probed or sampled live key of {@code shard}, or null (a free slot, an expired key). */
  private byte[] randomKeyIn(Shard shard, RandomGenerator random, RecordView view, boolean probe) {
    long stamp = shard.lock.readLock();
    try {
      checkOpen();
      long location = probe ? shard.index.probe(random) : shard.index.sample(random);
      return location == 0
          ? null
          : liveKeyAt(location, NO_PREFIX, System.currentTimeMillis(), view);
    } finally {
      shard.lock.unlockRead(stamp);
    }
  }

  /**
   * The first shard from {@code first} on (cyclically) that has entries, or null if none has. An
   * empty shard passes the draw on to the next, a bias that matters only in a nearly empty store.
   */
  private Shard nonEmptyShardFrom(int first) {
    for (int k = 0; k < shards.length; k++) {
      Shard shard = shards[(first + k) & shardMask];
      long stamp = shard.lock.tryOptimisticRead();
      long size = shard.index.size();
      if (stamp == 0 || !shard.lock.validate(stamp)) {
        stamp = shard.lock.readLock();
        try {
          size = shard.index.size();
        } finally {
          shard.lock.unlockRead(stamp);
        }
      }
      if (size > 0) {
        return shard;
      }
    }
    return null;
  }

  /**
   * A copy of the key of the record at {@code location} if that record is a live, unexpired value
   * whose key starts with {@code prefix}; otherwise null. The caller holds the read lock of the
   * shard whose index yielded {@code location}, which keeps the segment mapped (see {@link
   * ScanPageTask}). The record's checksum is not verified: only the key is read, and a damaged
   * value is reported when it is read.
   */
  byte[] liveKeyAt(long location, MemorySegment prefix, long now, RecordView view) {
    Segment segment = segments.get(LogLocation.slot(location));
    if (segment == null
        || !view.parse(segment.memory(), LogLocation.offset(location), segment.end())
        || view.isDelete()
        || view.expiredAt(now)) {
      return null;
    }
    long prefixLength = prefix.byteSize();
    if (view.keyLength() < prefixLength
        || MemorySegment.mismatch(
                segment.memory(),
                view.keyOffset(),
                view.keyOffset() + prefixLength,
                prefix,
                0,
                prefixLength)
            != -1) {
      return null;
    }
    return view.key().toArray(ValueLayout.JAVA_BYTE);
  }

  /** Copies the locations in shard {@code i} at one instant. */
  long[] snapshotLocations(int i) {
    Shard shard = shards[i];
    long stamp = shard.lock.readLock();
    try {
      long[] out = new long[(int) shard.index.size()];
      int[] n = {0};
      shard.index.forEachLocation(
          location -> {
            if (n[0] < out.length) {
              out[n[0]++] = location;
            }
          });
      return n[0] == out.length ? out : java.util.Arrays.copyOf(out, n[0]);
    } finally {
      shard.lock.unlockRead(stamp);
    }
  }

  int shardCount() {
    return shards.length;
  }

  Segment segmentAt(long location) {
    return segments.get(LogLocation.slot(location));
  }

  void cursorClosed() {
    openCursors.decrementAndGet();
  }

  @Override
  public <K, V> TypedMap<K, V> map(String name, Codec<K> keyCodec, Codec<V> valueCodec) {
    return TypedMap.of(this, name, keyCodec, valueCodec);
  }

  // ---------------------------------------------------------------- durability and maintenance

  @Override
  public void sync() {
    checkOpen();
    syncAll();
  }

  void syncAll() {
    try {
      commit.syncAll();
    } catch (IOException e) {
      throw new StoreIOException(
          "fsync failed; writes are disabled until the store is reopened: " + e.getMessage(), e);
    }
  }

  @Override
  public void checkpoint() {
    checkOpen();
    try {
      writeCheckpoint(true, false);
    } catch (IOException e) {
      throw failure("checkpoint of " + directory + " failed", e);
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

  /**
   * Writes a checkpoint if anything changed since the last one (or if {@code force}); {@code
   * locksHeld} when the caller holds every shard's write lock (close).
   */
  void writeCheckpoint(boolean force, boolean locksHeld) throws IOException {
    maintenanceWaiters.incrementAndGet(); // a low-priority compaction pass yields to us
    synchronized (maintenanceLock) {
      maintenanceWaiters.decrementAndGet();
      long seq = log.appendedSeq();
      if (!force && seq == checkpointedSeq && obsoleteCount() == 0) {
        return;
      }
      checkpointing = true;
      try {
        List<Segment> deletable = obsoleteSnapshot();
        try {
          new CheckpointTask(this, io, directory, shards, segments, log, locksHeld)
              .write(checkpointSequence.incrementAndGet());
        } catch (IOException | RuntimeException e) {
          checkpointFailure = e;
          throw e;
        }
        checkpointFailure = null;
        checkpointedSeq = seq;
        checkpoints.increment();
        deleteSegments(deletable);
      } finally {
        checkpointing = false;
      }
    }
  }

  @Override
  public long compact() {
    checkOpen();
    try {
      return runCompaction(false, null, false);
    } catch (IOException e) {
      throw failure("compaction of " + directory + " failed", e);
    }
  }

  /** One throttled background compaction pass at the caller's priority. */
  long compactInBackground() throws IOException {
    return runCompaction(true, null, false);
  }

  /**
   * As {@link #compactInBackground()}, for the maintenance thread: the pass gives up, undoing its
   * work, once {@code stopping} says so, so that close() does not wait out a throttled pass.
   */
  long compactInBackground(BooleanSupplier stopping) throws IOException {
    return runCompaction(true, stopping, false);
  }

  /**
   * One throttled background pass for the low-priority thread: it gives up, undoing its work, once
   * the log reaches {@link CellarOptions#idleCompactionLimit()} (a pass at normal priority takes
   * over) or {@code stopping} says so; returns bytes reclaimed, 0 if it gave up.
   */
  long compactWhileIdle(BooleanSupplier stopping) throws IOException {
    idlePassRunning = true;
    try {
      if (maintenanceWaiters.get() > 0) {
        return 0;
      }
      return runCompaction(
          true,
          () -> stopping.getAsBoolean() || maintenanceWaiters.get() > 0 || compactionUrgent(),
          true);
    } finally {
      idlePassRunning = false;
    }
  }

  /**
   * Whether a low-priority pass holds the maintenance lock, or is about to: the agent then leaves
   * sealing to that pass (which seals first) rather than wait behind it.
   */
  boolean idlePassRunning() {
    return idlePassRunning;
  }

  /**
   * Whether background compaction should compete with the application for CPU: the log has reached
   * {@link CellarOptions#idleCompactionLimit()} times its live data (or the limit is not above the
   * point where compaction starts).
   */
  boolean compactionUrgent() {
    return options.idleCompactionLimit() <= options.compactionSpaceAmplification()
        || Compactor.logAmplification(segments, System.currentTimeMillis())
            >= options.idleCompactionLimit();
  }

  private void wakeAgents() {
    maintenance.wake();
    if (idleCompactor != null) {
      idleCompactor.wake();
    }
  }

  /**
   * One pass; returns bytes reclaimed, 0 when it gave up (a yield is not a failure).
   *
   * @param yieldWhen asked during the pass; when true, the pass gives up (null: never)
   * @param idle whether this is the low-priority pass, which does not count as waiting for the
   *     maintenance lock (the others do, and it yields to them)
   */
  private long runCompaction(boolean throttled, BooleanSupplier yieldWhen, boolean idle)
      throws IOException {
    try {
      long reclaimed =
          new Compactor(
                  this,
                  io,
                  directory,
                  shards,
                  hasher,
                  segments,
                  segmentIds,
                  options,
                  throttled,
                  yieldWhen,
                  idle)
              .runOnce();
      compactionFailure = null;
      return reclaimed;
    } catch (CompactionYieldedException yielded) {
      return 0;
    } catch (IOException | RuntimeException e) {
      compactionFailure = e;
      throw e;
    }
  }

  void addObsolete(Segment segment) {
    synchronized (obsolete) {
      segment.markObsolete();
      obsolete.add(segment);
    }
  }

  /** Bytes of the segments compaction replaced that wait for a checkpoint to be deleted. */
  long obsoleteBytes() {
    synchronized (obsolete) {
      long bytes = 0;
      for (Segment s : obsolete) {
        bytes += s.end();
      }
      return bytes;
    }
  }

  /** Off-heap bytes of the index tables: about the size of a checkpoint. */
  long indexBytes() {
    long bytes = 0;
    for (Shard s : shards) {
      long stamp = s.lock.readLock();
      try {
        bytes += s.index.memoryBytes();
      } finally {
        s.lock.unlockRead(stamp);
      }
    }
    return bytes;
  }

  private int obsoleteCount() {
    synchronized (obsolete) {
      return obsolete.size();
    }
  }

  private List<Segment> obsoleteSnapshot() {
    synchronized (obsolete) {
      return new ArrayList<>(obsolete);
    }
  }

  /** Deletes segments replaced by compaction, once no cursor can still be reading them. */
  private void deleteSegments(List<Segment> deletable) throws IOException {
    if (deletable.isEmpty() || openCursors.get() > 0) {
      return;
    }
    for (Segment s : deletable) {
      segments.remove(s);
      s.close();
      io.delete(s.path());
      synchronized (obsolete) {
        obsolete.remove(s);
      }
    }
    io.syncDirectory(directory);
  }

  /**
   * The agent's sealing: skipped while a low-priority compaction pass holds the maintenance lock
   * (that pass seals first), rather than waiting behind it for as long as the application keeps the
   * CPU busy.
   */
  void sealFullSegmentsUnlessIdlePass() throws IOException {
    // Counted first, then checked: a pass that starts meanwhile sees the count and gives up.
    maintenanceWaiters.incrementAndGet();
    try {
      if (!idlePassRunning) {
        sealFullSegments();
      }
    } finally {
      maintenanceWaiters.decrementAndGet();
    }
  }

  /**
   * Seals segments the log writer has moved past (fsync, final header, truncate). Their records are
   * first made durable through group commit, so that a failed fsync of them reaches the writers
   * waiting on it; a failed fsync in the seal itself disables writes just the same.
   */
  void sealFullSegments() throws IOException {
    synchronized (maintenanceLock) {
      boolean synced = false;
      for (Segment s : segments.all()) {
        if (s.state() == Segment.State.FULL) {
          if (!synced) {
            syncAll();
            synced = true;
          }
          try {
            s.seal();
          } catch (SyncFailedException e) {
            syncFailed(e);
            throw e;
          }
          log.sealed(s);
        }
      }
    }
  }

  boolean isClosed() {
    return closed;
  }

  CellarOptions options() {
    return options;
  }

  Path directory() {
    return directory;
  }

  long appendedSeq() {
    return log.appendedSeq();
  }

  long durableSeq() {
    return commit.durableSeq();
  }

  @Override
  public CellarStats stats() {
    long indexBytes = 0;
    long puts = 0;
    long deletes = 0;
    for (Shard s : shards) {
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
      // stays on disk until the next checkpoint. Counted as live, it would hold maxmemory up.
      garbage += s.obsolete() ? s.end() : s.garbageBytes(now);
    }
    return new CellarStats(
        closed ? 0 : size(),
        indexBytes,
        logBytes,
        garbage,
        all.size(),
        puts,
        deletes,
        commit.fsyncs(),
        commit.fsyncNanos(),
        compactions.sum(),
        compactedBytes.sum(),
        checkpoints.sum(),
        mapped,
        expiredKeys.sum());
  }

  // ---------------------------------------------------------------- close

  /**
   * The checkpoint on the way out. Everything is synced by now, so on a full disk it is only an
   * optimisation lost (the next open replays the log instead): said in the log, not thrown.
   */
  private void closingCheckpoint() throws IOException {
    try {
      writeCheckpoint(true, true);
    } catch (IOException e) {
      if (!DiskFullException.isNoSpace(e)) {
        throw e;
      }
      LOG.log(
          System.Logger.Level.WARNING,
          directory
              + ": closed without a checkpoint, the disk is full ("
              + e.getMessage()
              + "); every write is synced, and the next open replays the log");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    if (flusher != null) {
      flusher.stop();
    }
    if (idleCompactor != null) {
      idleCompactor.stop();
    }
    if (maintenance != null) {
      maintenance.stop();
    }
    if (log != null) {
      log.stopPrefaulting();
    }
    CellarException failure;
    // The maintenance lock first, then the shard locks: the order of a compaction pass, which holds
    // the first while it takes the second. The other way round, a close() during an explicit
    // compaction (a server's BGREWRITEAOF, then SHUTDOWN) waited for the pass, which waited for it.
    maintenanceWaiters.incrementAndGet();
    synchronized (maintenanceLock) {
      maintenanceWaiters.decrementAndGet();
      failure = closeUnderMaintenanceLock();
    }
    if (failure != null) {
      throw failure;
    }
  }

  private CellarException closeUnderMaintenanceLock() {
    // Wait for writes already past their open check.
    long[] stamps = new long[shards.length];
    for (int i = 0; i < shards.length; i++) {
      stamps[i] = shards[i].lock.writeLock();
    }
    CellarException failure = null;
    try {
      if (writeFailure == null) {
        commit.syncAll();
        sealFullSegments();
        log.active().seal();
        closingCheckpoint();
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
      closeQuietly(lock);
    }
    return failure;
  }
}
