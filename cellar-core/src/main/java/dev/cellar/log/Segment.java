package dev.cellar.log;

import dev.cellar.cache.BlockCache;
import dev.cellar.compress.Dictionaries;
import dev.cellar.compress.ValueDictionary;
import dev.cellar.io.DirectAppender;
import dev.cellar.io.DirectReader;
import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import dev.cellar.platform.IoSwitches;
import dev.cellar.platform.MemoryAdvice;
import java.io.IOException;
import java.io.SyncFailedException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One segment file, mapped into memory. Readers read records straight from {@link #memory()}.
 *
 * <h2>Lifecycle</h2>
 *
 * ACTIVE (the log writer appends through a writable mapping) → FULL (no more appends; not yet known
 * durable) → SEALED (fsynced, header rewritten with the final length, file truncated to it).
 *
 * <h2>Appends with O_DIRECT</h2>
 *
 * A segment created or reopened with {@code directAppend} (and a file system that allows it) is
 * appended in memory of the process's own ({@link DirectAppender}) instead of a shared mapping:
 * {@link #force} first writes the blocks appended since the last force to the file with {@code
 * O_DIRECT}, and {@link #seal} then puts a read-only mapping of the file over the same addresses.
 * Its appends never pass through the page cache; but what no force has written out yet lives only
 * in the process, so only a writer that forces before it acknowledges ({@code fsync always}, and
 * compaction's outputs, which are sealed before they are used) appends this way. Segments found on
 * disk at open are SEALED, or are recovered and sealed by recovery. A segment replaced by
 * compaction becomes obsolete and is deleted once a checkpoint no longer names it.
 *
 * <h2>Concurrency</h2>
 *
 * The mapping and identity are immutable after publication. {@link #end()} is written by the log
 * writer (under its append lock) and read by anyone. The accounting counters are atomics updated by
 * writers of any shard and read by the compactor; they guide compaction and need not be exact.
 */
public final class Segment implements AutoCloseable, BlockCache.BlockLoader {
  /** Where a segment is in its life. */
  public enum State {
    ACTIVE,
    FULL,
    SEALED
  }

  private final long id;
  private final short kind;
  private volatile Path path;
  private final StoreFile file;
  private final Arena arena;
  private final MemorySegment memory;

  /** Writes appends out with O_DIRECT, or null: appends go through a shared mapping of the file. */
  private final DirectTail tail;

  /** Where the records start: after the header, and the cipher block if encrypted. */
  private final int dataStart;

  /** The file's key if it is encrypted, set once it is created or found (recovery). */
  private SegmentCipher cipher;

  /** The codec and dictionary of a compressed segment, set once it is created or found. */
  private ValueDictionary dictionary;

  /**
   * The store's read cache if it reads with O_DIRECT ({@code CellarOptions.io(DIRECT)}): point
   * reads of this segment go through it once it is sealed. Null: they read the mapping.
   */
  private volatile BlockCache readCache;

  private volatile FileIO readCacheIo;

  /** The file opened with O_DIRECT on the first direct read, and its key in the cache. */
  private volatile DirectReader direct;

  private long cacheFileId;

  /**
   * {@link #memory} read-only, made once: readers are handed it with a range instead of a slice
   * each.
   */
  private final MemorySegment readOnlyMemory;

  private volatile State state;
  private volatile long end;
  private volatile int slot = -1;
  private volatile boolean obsolete;
  private volatile boolean damaged;
  private volatile boolean passOutput;
  private volatile List<SegmentScanner.Damage> recoveredHoles = List.of();

  private final AtomicLong deadBytes = new AtomicLong();

  /**
   * Readers that hold this segment mapped ({@link #tryPin}), or {@link #RETIRED} once deletion took
   * it ({@link #tryRetire}): the one hand-over between a change stream and deletion.
   */
  private final java.util.concurrent.atomic.AtomicInteger pins =
      new java.util.concurrent.atomic.AtomicInteger();

  private static final int RETIRED = -1;

  private final AtomicLong ttlLiveBytes = new AtomicLong();
  private final AtomicLong maxExpiry = new AtomicLong();
  private volatile long minSeq = Long.MAX_VALUE;
  private volatile long maxSeq;

  private Segment(
      long id,
      short kind,
      Path path,
      StoreFile file,
      Arena arena,
      MemorySegment memory,
      State state,
      long end,
      DirectTail tail) {
    this.id = id;
    this.kind = kind;
    this.path = path;
    this.file = file;
    this.arena = arena;
    this.memory = memory;
    this.tail = tail;
    this.readOnlyMemory = memory.asReadOnly();
    this.state = state;
    this.end = end;
    int start =
        memory.byteSize() >= SegmentHeaderDescriptor.LENGTH
            ? SegmentHeaderDescriptor.dataStart(memory)
            : SegmentHeaderDescriptor.PLAIN_DATA_START;
    // Read before the header is validated (recovery validates what it opened): a damaged header's
    // data start is kept in bounds here, and the segment is refused there.
    this.dataStart =
        start < SegmentHeaderDescriptor.PLAIN_DATA_START
                || start > SegmentHeaderDescriptor.MAX_COMPRESSED_DATA_START
                || start > memory.byteSize()
            ? SegmentHeaderDescriptor.PLAIN_DATA_START
            : start;
  }

  /** The file name of segment {@code id}: ids sort by name. */
  public static String fileName(long id) {
    return String.format("seg-%016x.log", id);
  }

  /** Parses a segment id from a file name, or returns -1 if it is not a segment's name. */
  public static long idOf(String fileName) {
    if (!fileName.startsWith("seg-") || !fileName.endsWith(".log") || fileName.length() != 24) {
      return -1;
    }
    try {
      return Long.parseUnsignedLong(fileName.substring(4, 20), 16);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Creates a new segment file of {@code capacity} bytes (sparse: blocks are reserved later with
   * {@link #reserve}), maps it writable and writes its header. The file is not yet durable. On
   * failure (a full disk) the file is deleted again.
   */
  public static Segment create(
      FileIO io, Path path, long id, short kind, long capacity, long nowMillis) throws IOException {
    return create(io, path, id, kind, capacity, nowMillis, true);
  }

  /**
   * As {@link #create(FileIO, Path, long, short, long, long)}; {@code hugePages} says whether the
   * writable mapping asks for transparent huge pages (see {@code CellarOptions.hugePageLogTail}).
   */
  public static Segment create(
      FileIO io, Path path, long id, short kind, long capacity, long nowMillis, boolean hugePages)
      throws IOException {
    return create(io, path, id, kind, capacity, nowMillis, hugePages, null);
  }

  /**
   * As {@link #create(FileIO, Path, long, short, long, long, boolean)}; encrypted with {@code
   * cipher} if not null, whose cipher block then follows the header.
   */
  public static Segment create(
      FileIO io,
      Path path,
      long id,
      short kind,
      long capacity,
      long nowMillis,
      boolean hugePages,
      SegmentCipher cipher)
      throws IOException {
    return create(io, path, id, kind, capacity, nowMillis, hugePages, cipher, null, 0, false);
  }

  /**
   * As {@link #create(FileIO, Path, long, short, long, long, boolean, SegmentCipher)}, compressed
   * with {@code dictionary} if not null (trained on {@code samples} values), whose codec block then
   * follows the header and any cipher block; appended with O_DIRECT if {@code directAppend} and the
   * file system allows it (see "Appends with O_DIRECT" above).
   */
  public static Segment create(
      FileIO io,
      Path path,
      long id,
      short kind,
      long capacity,
      long nowMillis,
      boolean hugePages,
      SegmentCipher cipher,
      ValueDictionary dictionary,
      int samples,
      boolean directAppend)
      throws IOException {
    StoreFile file = io.open(path, true);
    Arena arena = Arena.ofShared();
    DirectAppender appender = null;
    int blockOffset =
        cipher == null
            ? SegmentHeaderDescriptor.PLAIN_DATA_START
            : SegmentHeaderDescriptor.ENCRYPTED_DATA_START;
    byte[] codecBlock =
        dictionary == null
            ? null
            : CodecBlockDescriptor.encode(
                dictionary.codec(),
                dictionary.id(),
                samples,
                dictionary.bytes(),
                cipher,
                blockOffset);
    int dataStart =
        dictionary == null
            ? blockOffset
            : CodecBlockDescriptor.dataStart(
                blockOffset, dictionary.length(), RecordDescriptor.tagBytes(cipher));
    try {
      file.truncate(0);
      file.allocate(0, Math.min(capacity, dataStart));
      // Through the file, not the mapping: on a nearly full disk a store into the mapping can fault
      // (SIGBUS, seen on ext4 even after the block was reserved), while write() reports ENOSPC.
      ByteBuffer header = ByteBuffer.allocate(dataStart);
      MemorySegment h = MemorySegment.ofBuffer(header);
      SegmentHeaderDescriptor.writeOpen(
          h, kind, id, nowMillis, cipher != null, dictionary == null ? 0 : dataStart);
      if (cipher != null) {
        cipher.writeBlock(h.asSlice(SegmentHeaderDescriptor.LENGTH, CipherBlockDescriptor.LENGTH));
      }
      if (codecBlock != null) {
        MemorySegment.copy(MemorySegment.ofArray(codecBlock), 0, h, blockOffset, codecBlock.length);
      }
      appender =
          directAppend && IoSwitches.DIRECT_APPENDS
              ? io.openDirectAppender(path, capacity, hugePages, arena)
              : null;
      MemorySegment memory;
      if (appender != null) {
        // Through the appender's memory, like every later write of this file: a buffered write of
        // block 0 would leave a page-cache copy of it that the O_DIRECT writes must then evict.
        memory = appender.memory();
        MemorySegment.copy(h, 0, memory, 0, dataStart);
        appender.writeOut(0, dataStart);
      } else {
        file.write(header, 0);
        memory = mapForAppend(file, capacity, arena, hugePages);
      }
      Segment created =
          new Segment(
              id,
              kind,
              path,
              file,
              arena,
              memory,
              State.ACTIVE,
              dataStart,
              appender == null ? null : new DirectTail(appender, dataStart));
      created.cipher = cipher;
      created.dictionary = dictionary;
      return created;
    } catch (IOException | RuntimeException e) {
      if (appender != null) {
        appender.close();
      }
      arena.close();
      file.close();
      // The file is ours and useless; left behind on a full disk it would hold the space it lacked.
      try {
        io.delete(path);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Maps an existing segment file read-only. The header is not validated here (recovery does that,
   * with a report); {@code end} starts as the file length.
   */
  public static Segment openExisting(FileIO io, Path path, long id) throws IOException {
    StoreFile file = io.open(path, false);
    Arena arena = Arena.ofShared();
    try {
      long size = file.size();
      MemorySegment memory =
          size == 0
              ? MemorySegment.NULL.reinterpret(0)
              : file.map(StoreFile.MapKind.READ_ONLY, 0, size, arena);
      MemoryAdvice.hugePages(memory);
      short kind =
          size >= SegmentHeaderDescriptor.LENGTH
              ? SegmentHeaderDescriptor.kind(memory)
              : SegmentHeaderDescriptor.KIND_LOG;
      return new Segment(id, kind, path, file, arena, memory, State.SEALED, size, null);
    } catch (IOException | RuntimeException e) {
      arena.close();
      file.close();
      throw e;
    }
  }

  /**
   * Reopens a sealed log segment for appending (the last, still small segment of a store that was
   * closed cleanly), so that reopening a store does not leave a trail of small files. The header is
   * rewritten unsealed and made durable before any append. With {@code directAppend} (and a file
   * system that allows it) the records so far are read into the appender's memory, and appends
   * continue there with O_DIRECT.
   */
  public static Segment reopenForAppend(
      FileIO io, Segment sealed, long capacity, boolean hugePages, boolean directAppend)
      throws IOException {
    StoreFile file = io.open(sealed.path, false);
    Arena arena = Arena.ofShared();
    DirectAppender appender = null;
    try {
      ByteBuffer header = ByteBuffer.allocate(SegmentHeaderDescriptor.LENGTH);
      MemorySegment h = MemorySegment.ofBuffer(header);
      SegmentHeaderDescriptor.writeOpen(
          h, sealed.kind, sealed.id, SegmentHeaderDescriptor.createdMillis(sealed.memory));
      appender =
          directAppend && IoSwitches.DIRECT_APPENDS
              ? io.openDirectAppender(sealed.path, capacity, hugePages, arena)
              : null;
      MemorySegment memory;
      if (appender != null) {
        memory = appender.memory();
        MemorySegment.copy(sealed.memory, 0, memory, 0, sealed.end);
        MemorySegment.copy(h, 0, memory, 0, SegmentHeaderDescriptor.LENGTH);
        appender.writeOut(0, SegmentHeaderDescriptor.LENGTH);
      } else {
        memory = mapForAppend(file, capacity, arena, hugePages);
        file.write(header, 0);
      }
      file.force();
      Segment reopened =
          new Segment(
              sealed.id,
              sealed.kind,
              sealed.path,
              file,
              arena,
              memory,
              State.ACTIVE,
              sealed.end,
              appender == null ? null : new DirectTail(appender, sealed.end));
      reopened.restoreAccounting(
          sealed.deadBytes(),
          sealed.ttlLiveBytes(),
          sealed.maxExpiry(),
          sealed.minSeq,
          sealed.maxSeq);
      return reopened;
    } catch (IOException | RuntimeException e) {
      if (appender != null) {
        appender.close();
      }
      arena.close();
      file.close();
      throw e;
    }
  }

  /**
   * Maps {@code capacity} bytes for appending while leaving the file as long as it was. Mapping
   * writable grows a shorter file to the mapping's length (a sparse tail of holes); the file
   * instead grows with each reservation, so it never holds holes past what the writer reserved.
   * Holes are not free everywhere: reading a hole of a tmpfs file through a mapping allocates
   * memory, and recovery, which reads an unsealed segment to its end, raised SIGBUS on a tmpfs that
   * could not hold a whole segment. Appends never touch the mapping past the reservation.
   */
  private static MemorySegment mapForAppend(
      StoreFile file, long capacity, Arena arena, boolean hugePages) throws IOException {
    long length = file.size();
    MemorySegment memory = file.map(StoreFile.MapKind.READ_WRITE, 0, capacity, arena);
    file.truncate(length);
    if (hugePages) {
      MemoryAdvice.hugePages(memory);
    }
    return memory;
  }

  /** Reserves disk blocks for {@code [from, to)}; see {@link StoreFile#allocate}. */
  public void reserve(long from, long to) throws IOException {
    file.allocate(from, to - from);
  }

  /**
   * Reserves {@code [from, to)} by writing zeros there (see {@link StoreFile#zeroFill}); appended
   * with O_DIRECT, by writing out the memory there, which holds zeros past the tail (and, in the
   * block the tail is in, the records before it, which a write-out writes anyway).
   */
  public void zeroFill(long from, long to) throws IOException {
    if (tail != null) {
      tail.writeRange(from, to);
      return;
    }
    file.zeroFill(from, to - from);
  }

  /** Flushes this segment's data to stable storage (first writing appends out, with O_DIRECT). */
  public void force() throws IOException {
    if (tail != null) {
      tail.writeOut(end);
    }
    file.force();
  }

  /**
   * Makes the segment durable and sealed: fsync the data, rewrite the header with the final length
   * and seq range, fsync again, and cut the file to its length (releasing reserved blocks).
   */
  public void seal() throws IOException {
    long length = end;
    forceOrReport();
    ByteBuffer header = ByteBuffer.allocate(SegmentHeaderDescriptor.LENGTH);
    MemorySegment h = MemorySegment.ofBuffer(header);
    MemorySegment.copy(memory, 0, h, 0, SegmentHeaderDescriptor.LENGTH);
    long lo = minSeq == Long.MAX_VALUE ? 0 : minSeq;
    SegmentHeaderDescriptor.seal(h, length, lo, maxSeq);
    if (tail != null) {
      try {
        tail.writeHeader(h);
      } catch (IOException e) {
        SyncFailedException failed =
            new SyncFailedException(
                "write of " + path.getFileName() + "'s header failed: " + e.getMessage());
        failed.initCause(e);
        throw failed;
      }
    } else {
      file.write(header, 0);
    }
    forceOrReport();
    file.truncate(length);
    // Sealed before the remap: from now on point reads of an io-direct store go to the read cache,
    // and the file holds every byte the memory does.
    state = State.SEALED;
    sealedSinceCheckpoint = true;
    if (tail != null) {
      tail.mapFile();
      // A reader that chose the memory just before the state changed may have faulted pages of the
      // file in through the new mapping, with the read-ahead around them: give them back.
      if (tail.fileMapped()) {
        file.dropCachedPages(memory);
      }
    }
    adviseRandomReads();
  }

  /** Set by {@link #seal}, taken by the first checkpoint after it. */
  private volatile boolean sealedSinceCheckpoint;

  /** Whether this segment was sealed since the last call (which this one clears). */
  public boolean takeSealedSinceCheckpoint() {
    boolean sealed = sealedSinceCheckpoint;
    sealedSinceCheckpoint = false;
    return sealed;
  }

  /**
   * Drops this sealed segment's pages from the process's mapping and the page cache: a hint, which
   * a later read undoes by reading the file again. Not while O_DIRECT appends keep its bytes in
   * memory of the process's own, which a drop would zero.
   */
  public void dropCachedPages() {
    if (state == State.SEALED && fileMapped()) {
      file.dropCachedPages(memory);
    }
  }

  /**
   * Recovery's copy of this segment's bytes from {@link #scannedFrom} on, read with O_DIRECT while
   * it replays the segment ({@link DirectScan}), or null: the index's key comparisons against this
   * segment's records read them there instead of through the read cache, one miss at a time.
   */
  private volatile MemorySegment scanned;

  private volatile long scannedFrom;

  /**
   * Has reads of this segment at {@code from} or after come from {@code memory} (a {@link
   * DirectScan}'s, at the file's offsets) until it is called with null: for recovery, which reads a
   * record only after its scan made it readable, and clears this before the scan is closed.
   */
  public void scanned(MemorySegment memory, long from) {
    scannedFrom = from;
    scanned = memory;
  }

  /** The memory {@link #scanned} set, if it holds {@code offset}; else null. */
  public MemorySegment scannedAt(long offset) {
    MemorySegment memory = scanned;
    return memory != null && offset >= scannedFrom ? memory : null;
  }

  /** The memory replay reads this segment's records from: {@link #scanned}'s, else the mapping. */
  public MemorySegment replayMemory() {
    MemorySegment memory = scanned;
    return memory != null ? memory : this.memory;
  }

  /** Whether this segment is appended with O_DIRECT (see "Appends with O_DIRECT" above). */
  public boolean appendsDirect() {
    return tail != null;
  }

  /** Whether {@link #memory} maps the file (not while O_DIRECT appends keep it in memory). */
  private boolean fileMapped() {
    return tail == null || tail.fileMapped();
  }

  /**
   * Forces the file, reporting a failure as {@link SyncFailedException}: the caller must not seal
   * again and trust the next fsync, which would succeed on pages the kernel may have dropped.
   */
  private void forceOrReport() throws SyncFailedException {
    try {
      force();
    } catch (IOException e) {
      SyncFailedException failed =
          new SyncFailedException("fsync of " + path.getFileName() + " failed: " + e.getMessage());
      failed.initCause(e);
      throw failed;
    }
  }

  /**
   * Writes {@code bytes} through the file (not the mapping) at {@code offset}; used for repairs.
   */
  public void writeThrough(ByteBuffer bytes, long offset) throws IOException {
    file.write(bytes, offset);
  }

  /**
   * Renames the file (a compaction output to its final name). Under the segment's lock, as {@link
   * #directFile} opens the file by its path under it: a reader that opened it just before holds a
   * descriptor that the rename leaves valid, and one that opens it after finds the new name, where
   * without the lock it could read the old name after the file had left it (ENOENT).
   */
  public synchronized void rename(FileIO io, Path target) throws IOException {
    io.rename(path, target);
    path = target;
  }

  public long id() {
    return id;
  }

  /**
   * Advises the kernel that this sealed segment is read at random (point reads through its mapping
   * in {@code io buffered}; in {@code io direct} only what still reads the mapping): no read-ahead
   * on a page fault. Measured by {@code cellar bench io}, against the same server without it. Scans
   * of the whole segment ask for sequential read-ahead for their duration ({@link #adviseScan}).
   */
  public void adviseRandomReads() {
    if (IoSwitches.RANDOM_ADVICE && arena.scope().isAlive()) {
      MemoryAdvice.random(memory);
    }
  }

  /**
   * Advises sequential read-ahead while the whole segment is read (compaction of it): without it a
   * sealed segment's {@code MADV_RANDOM} would have the pass fault its pages in one by one.
   * Measured by {@code cellar bench io}'s scan part.
   */
  public void adviseScan() {
    if (IoSwitches.SCAN_ADVICE && arena.scope().isAlive()) {
      MemoryAdvice.sequential(memory);
    }
  }

  /** Makes point reads of this segment go through {@code cache} with O_DIRECT once it is sealed. */
  public void readCache(BlockCache cache, FileIO io) {
    this.readCacheIo = io;
    this.readCache = cache;
  }

  /**
   * Whether point reads of this segment go through the read cache with O_DIRECT: the store reads
   * that way and the segment is sealed (immutable, and durable, so a read from the device sees what
   * the mapping holds).
   */
  public boolean directReads() {
    return readCache != null && state == State.SEALED;
  }

  /**
   * Copies {@code length} bytes from {@code position} into {@code dst} at {@code dstOffset} through
   * the read cache.
   *
   * @throws IllegalStateException if the segment is closed (a reader retries, as for an unmapped
   *     segment)
   * @throws dev.cellar.StoreIOException if the device read fails
   */
  public void readDirect(long position, MemorySegment dst, long dstOffset, long length) {
    DirectReader file = directFile();
    try {
      readCache.read(cacheFileId, position, dst, dstOffset, length, this);
    } catch (IOException e) {
      throw new dev.cellar.StoreIOException(
          "cannot read " + path.getFileName() + " at " + position + ": " + e.getMessage(), e);
    }
    java.lang.ref.Reference.reachabilityFence(file);
  }

  /**
   * Whether block {@code index} of this segment is in the read cache (only while {@link
   * #directReads}).
   *
   * @throws IllegalStateException if the segment is closed
   */
  public boolean blockCached(long index) {
    directFile();
    return readCache.contains(cacheFileId, index);
  }

  /** The file's direct reader, opened on first use (only while {@link #directReads}). */
  public DirectReader directReader() {
    return directFile();
  }

  /** Puts {@code block}, read ahead of its readers, into the read cache as block {@code index}. */
  public void cacheBlock(long index, MemorySegment block) {
    readCache.insert(cacheFileId, index, block);
  }

  @Override
  public void load(long index, MemorySegment into) throws IOException {
    direct.read(index * BlockCache.BLOCK_BYTES, into);
  }

  private DirectReader directFile() {
    DirectReader file = direct;
    if (file != null) {
      return file;
    }
    synchronized (this) {
      if (direct == null) {
        if (arena.scope().isAlive()) {
          try {
            DirectReader opened = readCacheIo.openDirect(path);
            cacheFileId = BlockCache.newFileId();
            // From now on the cache holds what reads need: the pages the writer and earlier reads
            // left in the page cache are only memory taken from the cache and the application.
            // (Memory of the process's own, if a remap failed, would lose its bytes instead.)
            if (fileMapped()) {
              opened.dropPageCache(memory);
            }
            direct = opened;
          } catch (IOException e) {
            throw new dev.cellar.StoreIOException(
                "cannot open " + path.getFileName() + " for direct reads: " + e.getMessage(), e);
          }
        } else {
          throw new IllegalStateException(path.getFileName() + " is closed");
        }
      }
      return direct;
    }
  }

  /** Where the segment's records start. */
  public int dataStart() {
    return dataStart;
  }

  /** The file's key, or null if it is not encrypted. */
  public SegmentCipher cipher() {
    return cipher;
  }

  /** Gives an encrypted segment found on disk its key (recovery, before anything reads it). */
  public void cipher(SegmentCipher cipher) {
    this.cipher = cipher;
  }

  /** Whether the segment is encrypted (its header says so, whether or not its key is known). */
  public boolean encrypted() {
    return memory.byteSize() >= SegmentHeaderDescriptor.LENGTH
        && SegmentHeaderDescriptor.isEncrypted(memory);
  }

  /** Whether the segment's values may be compressed (its header says so). */
  public boolean compressed() {
    return memory.byteSize() >= SegmentHeaderDescriptor.LENGTH
        && SegmentHeaderDescriptor.isCompressed(memory);
  }

  /** The codec and dictionary of a compressed segment, or null. */
  public ValueDictionary dictionary() {
    return dictionary;
  }

  /**
   * Reads the codec block of a compressed segment found on disk (after its {@linkplain
   * #cipher(SegmentCipher) key}, if encrypted, is known) and takes its dictionary from {@code
   * dictionaries}, which shares one instance among the segments that name the same one.
   *
   * @throws IllegalArgumentException with what is wrong, if the block is damaged
   */
  public void attachDictionary(Dictionaries dictionaries) {
    CodecBlockDescriptor.Block block =
        CodecBlockDescriptor.read(
            memory, SegmentHeaderDescriptor.codecBlockOffset(memory), dataStart, cipher);
    this.dictionary = dictionaries.resolve(block);
  }

  public short kind() {
    return kind;
  }

  public boolean isCompacted() {
    return kind == SegmentHeaderDescriptor.KIND_COMPACTED;
  }

  public Path path() {
    return path;
  }

  public MemorySegment memory() {
    return memory;
  }

  /** The same mapping as {@link #memory()}, read-only: for handing out to callers. */
  public MemorySegment readOnlyMemory() {
    return readOnlyMemory;
  }

  public State state() {
    return state;
  }

  public void markFull() {
    state = State.FULL;
  }

  /** Offset just past the last valid record. */
  public long end() {
    return end;
  }

  public void end(long end) {
    this.end = end;
  }

  public int slot() {
    return slot;
  }

  public void slot(int slot) {
    this.slot = slot;
  }

  public boolean obsolete() {
    return obsolete;
  }

  /**
   * Compaction has moved every live record out: from now on only a racing optimistic reader or an
   * open scan cursor reads here. Its pages leave the process's resident size and the page cache now
   * (they are read back in for such a reader) rather than when a checkpoint lets the file be
   * deleted, minutes later: in {@code io buffered} the page cache is where the store's data is
   * cached, and a replaced segment's pages would otherwise hold memory the live data needs until
   * then. Measured by SegmentPageCacheTest.
   */
  public void markObsolete() {
    obsolete = true;
    if (fileMapped()) {
      file.dropCachedPages(memory);
    }
  }

  /**
   * Whether this is an output of a compaction pass still running: its records are copies that the
   * pass's victims still count as live until the pass marks them obsolete, so size and garbage
   * figures skip it until then. Its being sealed is not the moment: the pass seals its outputs
   * before it retires its victims, and for that window (an fsync, a rename, a directory fsync)
   * every moved record was counted twice, which once made {@code maxmemory} answer -OOM under
   * {@code allkeys-random}.
   */
  public boolean passOutput() {
    return passOutput;
  }

  /** Marks this as an output of the running pass (see {@link #passOutput()}), or no longer one. */
  public void passOutput(boolean running) {
    passOutput = running;
  }

  /**
   * Compaction found bytes here that are not valid records: the segment stays as it is (its intact
   * records stay readable, recovery reports the damage) and compaction no longer takes it, since
   * rewriting it would drop whatever the damaged bytes held without a word.
   */
  public void markDamaged() {
    damaged = true;
  }

  public boolean damaged() {
    return damaged;
  }

  /**
   * Recovery skipped these regions of this unsealed segment: a power loss kept later pages of it
   * and lost earlier ones. No record was read from them, so no key points into them, and compaction
   * may step over them as it steps over dead records (other damage still stops it).
   */
  public void recoveredHoles(List<SegmentScanner.Damage> holes) {
    recoveredHoles = List.copyOf(holes);
  }

  /** Whether {@code damage} lies inside a region recovery skipped ({@link #recoveredHoles}). */
  public boolean insideRecoveredHole(SegmentScanner.Damage damage) {
    for (SegmentScanner.Damage hole : recoveredHoles) {
      if (damage.offset() >= hole.offset()
          && damage.offset() + damage.length() <= hole.offset() + hole.length()) {
        return true;
      }
    }
    return false;
  }

  /** Records that a record with {@code seq} now lives here. Called by its single writer. */
  public void noteSeq(long seq) {
    if (seq < minSeq) {
      minSeq = seq;
    }
    if (seq > maxSeq) {
      maxSeq = seq;
    }
  }

  public long minSeq() {
    return minSeq;
  }

  public long maxSeq() {
    return maxSeq;
  }

  public void addDead(long bytes) {
    deadBytes.addAndGet(bytes);
  }

  public long deadBytes() {
    return deadBytes.get();
  }

  /** Records a live record that expires at {@code expireAt}. */
  public void addTtl(long bytes, long expireAt) {
    ttlLiveBytes.addAndGet(bytes);
    maxExpiry.accumulateAndGet(expireAt, Math::max);
  }

  /** A record counted by {@link #addTtl} died some other way (overwritten or deleted). */
  public void removeTtl(long bytes) {
    ttlLiveBytes.addAndGet(-bytes);
  }

  public long ttlLiveBytes() {
    return ttlLiveBytes.get();
  }

  public long maxExpiry() {
    return maxExpiry.get();
  }

  /** Restores counters saved in a checkpoint. */
  public void restoreAccounting(long dead, long ttlLive, long maxExp, long lowSeq, long highSeq) {
    deadBytes.set(dead);
    ttlLiveBytes.set(ttlLive);
    maxExpiry.set(maxExp);
    // Seqs start at 1; a checkpoint writes 0 for a segment that held no record yet.
    minSeq = lowSeq == 0 ? Long.MAX_VALUE : lowSeq;
    maxSeq = highSeq;
  }

  /** Bytes known dead at {@code nowMillis}: overwritten or deleted, plus expired TTL records. */
  public long garbageBytes(long nowMillis) {
    long dead = deadBytes.get();
    if (ttlLiveBytes.get() > 0 && maxExpiry.get() <= nowMillis) {
      dead += ttlLiveBytes.get();
    }
    return Math.min(dead, Math.max(0, end - dataStart));
  }

  /**
   * Keeps the segment mapped until {@link #unpin()}: returns false if it was already retired for
   * deletion (its records are gone or about to be). Safe from any thread.
   */
  public boolean tryPin() {
    for (int n = pins.get(); n != RETIRED; n = pins.get()) {
      if (pins.compareAndSet(n, n + 1)) {
        return true;
      }
    }
    return false;
  }

  public void unpin() {
    pins.decrementAndGet();
  }

  /**
   * Claims an obsolete segment for deletion; false while a reader holds it pinned (delete it
   * later). After true, {@link #tryPin()} fails for good.
   */
  public boolean tryRetire() {
    return pins.compareAndSet(0, RETIRED);
  }

  /** A byte of the mapping; used by tools. */
  public byte byteAt(long offset) {
    return memory.get(ValueLayout.JAVA_BYTE, offset);
  }

  /** Unmaps and closes the file. Readers racing this get IllegalStateException and retry. */
  @Override
  public void close() {
    synchronized (this) {
      DirectReader d = direct;
      if (d != null) {
        d.close(); // the descriptor closes when the last read in progress ends
      }
    }
    if (tail != null) {
      tail.close();
    }
    try {
      arena.close();
    } catch (IllegalStateException alreadyClosed) {
      // closing twice is harmless
    }
    try {
      file.close();
    } catch (IOException ignored) {
      // nothing to flush: data was forced by seal or is not promised
    }
  }

  @Override
  public String toString() {
    return path.getFileName() + "[" + state + ", end=" + end + "]";
  }
}
