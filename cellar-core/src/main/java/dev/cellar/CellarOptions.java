package dev.cellar;

import dev.cellar.io.FileIO;
import dev.cellar.log.RecordDescriptor;
import dev.cellar.log.SegmentHeaderDescriptor;
import java.time.Duration;

/**
 * Every setting of a store, with its default, validated once by {@link #validate()} when the store
 * opens. Immutable: each {@code with} method returns a copy. Nothing else in Cellar reads system
 * properties or environment variables.
 */
public final class CellarOptions {
  public static final Fsync DEFAULT_FSYNC = Fsync.EVERYSEC;
  public static final int DEFAULT_SEGMENT_BYTES = 64 << 20;
  public static final int MIN_SEGMENT_BYTES = 1 << 16;

  /** Index slots address offsets inside a segment with 30 bits. */
  public static final int MAX_SEGMENT_BYTES = 1 << 30;

  /**
   * Most index shards a store can have; the shard count is a power of two from 1 to this. Fixed in
   * the store's identity file, {@code cellar.meta}.
   */
  public static final int MAX_SHARDS = 4096;

  /**
   * Most bytes a log record adds to its key and value (checksum, type, lengths, sequence number,
   * expiry): what a key costs in the log besides its bytes, for memory accounting. 32.
   */
  public static final int RECORD_OVERHEAD_BYTES = RecordDescriptor.MAX_FRAMING_LENGTH;

  /**
   * Bytes a segment needs besides the largest key and value it must hold: its header and one
   * record's overhead, since a record never spans two segments. 96. See {@link #largestValueBytes}.
   */
  public static final int RECORD_ALLOWANCE_BYTES =
      SegmentHeaderDescriptor.LENGTH + RECORD_OVERHEAD_BYTES;

  /**
   * {@link #RECORD_ALLOWANCE_BYTES} of an encrypted store: its segments' records start after a
   * cipher block, and each ends with an authentication tag. 176.
   */
  public static final int ENCRYPTED_RECORD_ALLOWANCE_BYTES =
      SegmentHeaderDescriptor.ENCRYPTED_DATA_START
          + RECORD_OVERHEAD_BYTES
          + dev.cellar.log.SegmentCipher.TAG_BYTES;

  public static final int DEFAULT_MAX_KEY_BYTES = 64 << 10;
  public static final int DEFAULT_MAX_VALUE_BYTES = 16 << 20;
  public static final int DEFAULT_SHARDS = 64;
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofMinutes(5);
  public static final double DEFAULT_COMPACTION_GARBAGE_RATIO = 0.5;
  public static final double DEFAULT_COMPACTION_SPACE_AMPLIFICATION = 2.0;
  public static final long DEFAULT_COMPACTION_BYTES_PER_SECOND = 256L << 20;
  public static final int DEFAULT_BACKGROUND_NICE = 0;
  public static final double DEFAULT_IDLE_COMPACTION_LIMIT = 3.0;
  public static final long DEFAULT_READ_CACHE_BYTES = 256L << 20;
  public static final long MIN_READ_CACHE_BYTES = 1L << 20;

  /**
   * The largest value a segment of {@code segmentBytes} can hold beside a key of {@code
   * maxKeyBytes}: the most {@link #maxValueBytes(int)} may be for those settings (negative when not
   * even the key fits).
   */
  public static long largestValueBytes(int segmentBytes, int maxKeyBytes) {
    return largestValueBytes(segmentBytes, maxKeyBytes, false);
  }

  /**
   * {@link #largestValueBytes(int, int)} for a store that is {@code encrypted} or not: an encrypted
   * segment's records start later and each carries a tag ({@link
   * #ENCRYPTED_RECORD_ALLOWANCE_BYTES}).
   */
  public static long largestValueBytes(int segmentBytes, int maxKeyBytes, boolean encrypted) {
    return largestValueBytes(segmentBytes, maxKeyBytes, encrypted, false);
  }

  /**
   * {@link #largestValueBytes(int, int, boolean)} for a store that also compresses or not ({@link
   * #compressedRecordAllowanceBytes}).
   */
  public static long largestValueBytes(
      int segmentBytes, int maxKeyBytes, boolean encrypted, boolean compressed) {
    return (long) segmentBytes
        - maxKeyBytes
        - (compressed
            ? compressedRecordAllowanceBytes(segmentBytes)
            : encrypted ? ENCRYPTED_RECORD_ALLOWANCE_BYTES : RECORD_ALLOWANCE_BYTES);
  }

  /**
   * {@link #RECORD_ALLOWANCE_BYTES} of a store that compresses (encrypted or not): compaction's
   * segments hold a codec block with a dictionary before their records (at most a sixteenth of the
   * segment, and 64 KiB), and a value that does not compress is stored there as it is.
   */
  public static int compressedRecordAllowanceBytes(int segmentBytes) {
    return dev.cellar.log.CodecBlockDescriptor.maxDataStart(segmentBytes)
        + RECORD_OVERHEAD_BYTES
        + dev.cellar.log.SegmentCipher.TAG_BYTES;
  }

  /** The largest value these options' segments can hold beside their largest key. */
  public long largestValueBytes() {
    return largestValueBytes(
        segmentBytes, maxKeyBytes, encryptionKeys != null, compression != Compression.NONE);
  }

  private Fsync fsync = DEFAULT_FSYNC;
  private int segmentBytes = DEFAULT_SEGMENT_BYTES;
  private int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;
  private int maxValueBytes = DEFAULT_MAX_VALUE_BYTES;
  private int shards = DEFAULT_SHARDS;
  private Duration checkpointInterval = DEFAULT_CHECKPOINT_INTERVAL;
  private double compactionGarbageRatio = DEFAULT_COMPACTION_GARBAGE_RATIO;
  private double compactionSpaceAmplification = DEFAULT_COMPACTION_SPACE_AMPLIFICATION;
  private long compactionBytesPerSecond = DEFAULT_COMPACTION_BYTES_PER_SECOND;
  private int backgroundNice = DEFAULT_BACKGROUND_NICE;
  private double idleCompactionLimit = DEFAULT_IDLE_COMPACTION_LIMIT;
  private long expectedKeys = 0;
  private boolean backgroundCompaction = true;
  private boolean zeroFillLog;
  private boolean hugePageLogTail = true;
  private boolean salvage = false;
  private boolean verifyChecksumsOnRead = true;
  private boolean writesAwaitDurability = true;
  private FileIO fileIO = FileIO.platform();
  private EncryptionKeys encryptionKeys;
  private Compression compression = Compression.NONE;
  private IoMode io = IoMode.BUFFERED;
  private long readCacheBytes = DEFAULT_READ_CACHE_BYTES;

  private CellarOptions() {}

  public static CellarOptions defaults() {
    return new CellarOptions();
  }

  private CellarOptions copy() {
    CellarOptions c = new CellarOptions();
    c.fsync = fsync;
    c.segmentBytes = segmentBytes;
    c.maxKeyBytes = maxKeyBytes;
    c.maxValueBytes = maxValueBytes;
    c.shards = shards;
    c.checkpointInterval = checkpointInterval;
    c.compactionGarbageRatio = compactionGarbageRatio;
    c.compactionSpaceAmplification = compactionSpaceAmplification;
    c.compactionBytesPerSecond = compactionBytesPerSecond;
    c.backgroundNice = backgroundNice;
    c.idleCompactionLimit = idleCompactionLimit;
    c.expectedKeys = expectedKeys;
    c.backgroundCompaction = backgroundCompaction;
    c.zeroFillLog = zeroFillLog;
    c.hugePageLogTail = hugePageLogTail;
    c.salvage = salvage;
    c.verifyChecksumsOnRead = verifyChecksumsOnRead;
    c.writesAwaitDurability = writesAwaitDurability;
    c.fileIO = fileIO;
    c.encryptionKeys = encryptionKeys;
    c.compression = compression;
    c.io = io;
    c.readCacheBytes = readCacheBytes;
    return c;
  }

  /** When writes reach disk; default {@code everysec}. */
  public CellarOptions fsync(Fsync mode) {
    CellarOptions c = copy();
    c.fsync = mode;
    return c;
  }

  /** Size of one log segment file, 64 KiB to 1 GiB; default 64 MiB. */
  public CellarOptions segmentBytes(int bytes) {
    CellarOptions c = copy();
    c.segmentBytes = bytes;
    return c;
  }

  /** Largest key accepted; default 64 KiB. */
  public CellarOptions maxKeyBytes(int bytes) {
    CellarOptions c = copy();
    c.maxKeyBytes = bytes;
    return c;
  }

  /** Largest value accepted; default 16 MiB; must fit a segment with its key. */
  public CellarOptions maxValueBytes(int bytes) {
    CellarOptions c = copy();
    c.maxValueBytes = bytes;
    return c;
  }

  /**
   * Number of index shards, a power of two from 1 to {@value #MAX_SHARDS}; default 64. More shards
   * mean less write contention but smaller tables, and tables under 2 MiB (2^18 slots, about 200K
   * keys per shard) get no huge pages, which costs random lookups a TLB miss each. Fixed when the
   * store is created (later opens use the stored value).
   */
  public CellarOptions shards(int count) {
    CellarOptions c = copy();
    c.shards = count;
    return c;
  }

  /** How often the background agent writes an index checkpoint; zero disables; default 5 min. */
  public CellarOptions checkpointInterval(Duration interval) {
    CellarOptions c = copy();
    c.checkpointInterval = interval;
    return c;
  }

  /**
   * Dead fraction of a sealed segment above which an explicit {@link Cellar#compact()}, or the
   * background pass once writes have stopped, rewrites it; default 0.5. Background compaction while
   * writes go on goes by {@link #compactionSpaceAmplification(double)}.
   */
  public CellarOptions compactionGarbageRatio(double ratio) {
    CellarOptions c = copy();
    c.compactionGarbageRatio = ratio;
    return c;
  }

  /**
   * How large the log may grow against its live data before background compaction starts: at the
   * default 2.0 it starts once the log holds as many dead bytes as live ones (Redis's {@code
   * auto-aof-rewrite-percentage 100}), and then rewrites the segments with the most garbage first.
   * A larger factor costs disk and page cache and saves compaction work: under random overwrites,
   * the segments it picks are then deader, so it copies fewer live bytes per byte it frees.
   * Segments that are almost all garbage are reclaimed whatever the factor.
   */
  public CellarOptions compactionSpaceAmplification(double factor) {
    CellarOptions c = copy();
    c.compactionSpaceAmplification = factor;
    return c;
  }

  public double compactionSpaceAmplification() {
    return compactionSpaceAmplification;
  }

  /**
   * Up to this many times its live data, the log is compacted only with CPU the application leaves
   * idle: background passes run on a thread of Linux's idle scheduling class ({@code SCHED_IDLE}),
   * which a waking application thread preempts at once, and a pass gives up (undoing its work) when
   * the log reaches the limit. From the limit on, passes run at the maintenance thread's priority
   * and share the CPU with the application until the log is back under it. Default 3.0: compaction
   * starts at {@link #compactionSpaceAmplification(double)} (2.0) and competes only past 3.0. Why:
   * with the application and compaction on one core, a pass cut throughput by a fifth while it ran
   * even when the application left a sixth of the core idle. A limit at or below the space
   * amplification makes every pass run at the maintenance thread's priority. Without native access,
   * or off Linux, the low-priority thread keeps the normal priority (where {@code SCHED_IDLE} is
   * refused, it runs at nice 19).
   */
  public CellarOptions idleCompactionLimit(double factor) {
    CellarOptions c = copy();
    c.idleCompactionLimit = factor;
    return c;
  }

  public double idleCompactionLimit() {
    return idleCompactionLimit;
  }

  /** Throttle for background compaction's reads and writes; default 256 MiB/s. */
  public CellarOptions compactionBytesPerSecond(long bytes) {
    CellarOptions c = copy();
    c.compactionBytesPerSecond = bytes;
    return c;
  }

  /**
   * The Linux nice value (0 to 19) of the thread that seals segments, writes checkpoints and
   * compacts; default 0, the application's own priority. A higher value gives the application's
   * threads more of a core they share with compaction (at 10, the kernel weighs them about ten to
   * one), at the price of a log that grows while compaction waits: with the server pinned to one
   * core and SETs arriving as fast as it can answer them, at nice 10 no compaction pass finished in
   * 4M overwrites of 1M keys and the log reached 4.9 times its live data, where at 0 two passes ran
   * and it ended at 2.6 times (4.3 at its highest, before a pass). Worth raising where writes come
   * in bursts and disk is not tight. Best effort: without native access, or off Linux, the thread
   * keeps its priority; an unprivileged process can raise a nice value but not lower it again.
   */
  public CellarOptions backgroundNice(int nice) {
    CellarOptions c = copy();
    c.backgroundNice = nice;
    return c;
  }

  /**
   * A sizing hint, not a limit: index tables start large enough for this many keys, so a load of a
   * known size does no growth work. The store grows past it as needed. Default 0 (start small).
   */
  public CellarOptions expectedKeys(long keys) {
    CellarOptions c = copy();
    c.expectedKeys = keys;
    return c;
  }

  public long expectedKeys() {
    return expectedKeys;
  }

  /**
   * Reserve log space ahead of the tail by writing zeros instead of {@code fallocate}. An fsync
   * after records were written into fallocated (unwritten) blocks must also commit the file
   * system's conversion of those blocks, a journal transaction; into zero-written blocks it is data
   * only. Worth it when fsyncs are frequent (a server with {@code appendfsync always}); it costs
   * writing the log's space twice. Off by default.
   */
  public CellarOptions zeroFillLog(boolean enabled) {
    CellarOptions c = copy();
    c.zeroFillLog = enabled;
    return c;
  }

  public boolean zeroFillLog() {
    return zeroFillLog;
  }

  /**
   * Whether the log segment being appended to is mapped with transparent huge pages; default yes,
   * and always no under {@link Fsync#ALWAYS} and {@link Fsync#EVERYSEC}. Huge pages make reads of
   * the log cheaper (one TLB entry per 2 MiB), but the page cache then tracks dirt per 2 MiB folio:
   * every fsync after a small write writes the whole folio back. With a fsync per batch of writes
   * that was 3.3 MB written per fsync, and fsyncs six times slower than Redis's (measured: 3.4 GB
   * written for 50,000 SETs of 60 bytes, against 19 MB with small pages). Turn it off wherever the
   * caller fsyncs often itself ({@link Cellar#sync()} after small writes), as the server does for
   * {@code appendfsync always}. Under {@link Fsync#EVERYSEC} the same folio rewrite costs 2 to 4
   * MiB a second whatever the write rate: sustained SETs at 34k a second wrote 1,375 MB under
   * {@code everysec} against 764 MB under {@code no} for the same 380 MB of keys and values (write
   * amplification 3.62 against 2.01), so that mode maps the tail with small pages too. Segments
   * compaction writes are unaffected: they are written once and synced once.
   */
  public CellarOptions hugePageLogTail(boolean enabled) {
    CellarOptions c = copy();
    c.hugePageLogTail = enabled;
    return c;
  }

  /**
   * Whether appends go to a huge-page mapping: {@link #hugePageLogTail} and {@link Fsync#NO} (no
   * periodic fsync to rewrite the tail's folio).
   */
  public boolean hugePageLogTail() {
    return hugePageLogTail && fsync == Fsync.NO;
  }

  /**
   * Whether the background agents compact on their own (else only {@link Cellar#compact()}): once
   * the log outgrows its live data by {@link #compactionSpaceAmplification}, and once more when
   * writes stop (within a second), then taking every segment at least {@link
   * #compactionGarbageRatio} dead, the one being written included.
   */
  public CellarOptions backgroundCompaction(boolean enabled) {
    CellarOptions c = copy();
    c.backgroundCompaction = enabled;
    return c;
  }

  /**
   * Whether an open that finds corruption inside sealed data skips to the next valid record
   * (reporting what it dropped) instead of failing. Default false.
   */
  public CellarOptions salvage(boolean enabled) {
    CellarOptions c = copy();
    c.salvage = enabled;
    return c;
  }

  /** Whether every read checks the record's CRC32C; default true. */
  public CellarOptions verifyChecksumsOnRead(boolean enabled) {
    CellarOptions c = copy();
    c.verifyChecksumsOnRead = enabled;
    return c;
  }

  /**
   * Under {@link Fsync#ALWAYS}, whether each write returns only once it is durable: true by
   * default. A caller that acknowledges writes itself, in batches, sets false: its writes return
   * once appended, and it asks {@link Cellar#whenDurable} after each batch before it acknowledges
   * the batch (a server holding a pipeline's replies does so). The engine still decides when to
   * fsync: one group-commit fsync then covers every batch that waits at once. Has no effect under
   * {@link Fsync#EVERYSEC} and {@link Fsync#NO}, whose writes never wait.
   */
  public CellarOptions writesAwaitDurability(boolean enabled) {
    CellarOptions c = copy();
    c.writesAwaitDurability = enabled;
    return c;
  }

  /**
   * Whether a write waits for its fsync: {@link Fsync#ALWAYS} and {@link #writesAwaitDurability}.
   */
  public boolean writesAwaitDurability() {
    return writesAwaitDurability && fsync == Fsync.ALWAYS;
  }

  /** The file-I/O seam; tests substitute a fault-injecting one. */
  public CellarOptions fileIO(FileIO io) {
    CellarOptions c = copy();
    c.fileIO = io;
    return c;
  }

  /**
   * Encrypts the store's files with these keys (AES-256-GCM; see {@code
   * docs/format/encryption.md}): every segment written from now on, by the log and by compaction,
   * with the current key; segments of older keys, or plaintext segments of a store that was not
   * encrypted before, stay readable and are rewritten by compaction. Null (the default): no
   * encryption, and a store with encrypted segments refuses to open.
   */
  public CellarOptions encryptionKeys(EncryptionKeys keys) {
    CellarOptions c = copy();
    c.encryptionKeys = keys;
    return c;
  }

  /**
   * {@link #encryptionKeys(EncryptionKeys)} with the keys of a key file (format in {@link
   * EncryptionKeys}), read now.
   *
   * @throws java.io.UncheckedIOException if the file cannot be read
   * @throws IllegalArgumentException if it is malformed (the message names the line, never a key)
   */
  public CellarOptions encryptionKeyFile(java.nio.file.Path file) {
    try {
      return encryptionKeys(EncryptionKeys.load(file));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(
          "cannot read the encryption key file " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Compresses values with this codec (default {@link Compression#NONE}): compaction rewrites every
   * sealed segment not yet compressed with it, off the request path (see {@link Compression}).
   * Segments compressed otherwise, or by a store set to {@code NONE} since, stay readable, and are
   * rewritten as compaction reaches them. Compression links libzstd and liblz4 (the ones
   * aircompressor bundles) through FFM, so it needs native access ({@code --enable-native-access});
   * a store that has compressed segments needs it to read them.
   */
  public CellarOptions compression(Compression codec) {
    CellarOptions c = copy();
    c.compression = codec;
    return c;
  }

  /** How the store compresses values. */
  public Compression compression() {
    return compression;
  }

  /**
   * How the store reads its files (default {@link IoMode#BUFFERED}); {@link IoMode#DIRECT} reads
   * sealed segments with O_DIRECT through an off-heap read cache of {@link #readCacheBytes}. Direct
   * reads need Linux, native access and a file system that supports O_DIRECT (tmpfs does not).
   */
  public CellarOptions io(IoMode mode) {
    CellarOptions c = copy();
    c.io = mode;
    return c;
  }

  public IoMode io() {
    return io;
  }

  /**
   * The size of the off-heap read cache of a store whose {@link #io(IoMode)} is direct (default 256
   * MiB, at least 1 MiB); a buffered store has none and ignores it.
   */
  public CellarOptions readCacheBytes(long bytes) {
    CellarOptions c = copy();
    c.readCacheBytes = bytes;
    return c;
  }

  public long readCacheBytes() {
    return readCacheBytes;
  }

  /** The keys the store encrypts with, or null. */
  public EncryptionKeys encryptionKeys() {
    return encryptionKeys;
  }

  public Fsync fsync() {
    return fsync;
  }

  public int segmentBytes() {
    return segmentBytes;
  }

  public int maxKeyBytes() {
    return maxKeyBytes;
  }

  public int maxValueBytes() {
    return maxValueBytes;
  }

  public int shards() {
    return shards;
  }

  public Duration checkpointInterval() {
    return checkpointInterval;
  }

  public double compactionGarbageRatio() {
    return compactionGarbageRatio;
  }

  public long compactionBytesPerSecond() {
    return compactionBytesPerSecond;
  }

  public int backgroundNice() {
    return backgroundNice;
  }

  public boolean backgroundCompaction() {
    return backgroundCompaction;
  }

  public boolean salvage() {
    return salvage;
  }

  public boolean verifyChecksumsOnRead() {
    return verifyChecksumsOnRead;
  }

  public FileIO fileIO() {
    return fileIO;
  }

  /** Checks every setting against the others; throws with the offending values. */
  public CellarOptions validate() {
    require(
        fsync != null && fileIO != null && compression != null && io != null,
        "fsync, fileIO, compression and io must be set");
    require(
        readCacheBytes >= MIN_READ_CACHE_BYTES,
        "readCacheBytes " + readCacheBytes + " < " + MIN_READ_CACHE_BYTES);
    require(
        segmentBytes >= MIN_SEGMENT_BYTES && segmentBytes <= MAX_SEGMENT_BYTES,
        "segmentBytes "
            + segmentBytes
            + " outside ["
            + MIN_SEGMENT_BYTES
            + ", "
            + MAX_SEGMENT_BYTES
            + "]");
    require(maxKeyBytes >= 1, "maxKeyBytes " + maxKeyBytes + " < 1");
    require(maxValueBytes >= 0, "maxValueBytes " + maxValueBytes + " < 0");
    require(
        maxValueBytes <= largestValueBytes(),
        "maxKeyBytes "
            + maxKeyBytes
            + " + maxValueBytes "
            + maxValueBytes
            + " do not fit a segment of "
            + segmentBytes
            + " bytes; raise segmentBytes");
    require(
        shards >= 1 && shards <= MAX_SHARDS && Integer.bitCount(shards) == 1,
        "shards " + shards + " is not a power of two in [1, " + MAX_SHARDS + "]");
    require(
        checkpointInterval != null && !checkpointInterval.isNegative(),
        "checkpointInterval must be zero or positive");
    require(
        compactionGarbageRatio > 0 && compactionGarbageRatio < 1,
        "compactionGarbageRatio " + compactionGarbageRatio + " outside (0, 1)");
    require(
        compactionSpaceAmplification > 1 && compactionSpaceAmplification <= 100,
        "compactionSpaceAmplification " + compactionSpaceAmplification + " outside (1, 100]");
    require(expectedKeys >= 0, "expectedKeys " + expectedKeys + " < 0");
    require(compactionBytesPerSecond > 0, "compactionBytesPerSecond must be positive");
    require(
        backgroundNice >= 0 && backgroundNice <= 19,
        "backgroundNice " + backgroundNice + " outside [0, 19]");
    require(
        idleCompactionLimit > 1 && idleCompactionLimit <= 100,
        "idleCompactionLimit " + idleCompactionLimit + " outside (1, 100]");
    return this;
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException("invalid Cellar option: " + message);
    }
  }
}
