package dev.cellar.log;

import dev.cellar.CellarException;
import dev.cellar.DiskFullException;
import dev.cellar.EncryptionKeys;
import dev.cellar.StoreIOException;
import dev.cellar.io.FileIO;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.zip.CRC32C;

/**
 * Appends records to the store's single log: one active segment at a time, written through a shared
 * mapping, so an append is a memory copy and a process crash loses nothing that was appended.
 *
 * <h2>Design</h2>
 *
 * One log for all shards (rather than one per shard) so that one fsync makes every writer's records
 * durable: that is what lets group commit amortise, since {@code fsync} is per file. The append
 * critical section is a bounded memory copy, short enough that a lock serialising it costs less
 * than the coordination a lock-free reservation scheme would need, and it keeps records strictly in
 * sequence order with no holes.
 *
 * <p>Disk blocks are reserved ({@code posix_fallocate}) a chunk ahead of the tail: a write through
 * a mapping into a block the file system cannot allocate raises SIGBUS, while a failed reservation
 * is an ordinary {@link DiskFullException} that leaves the store intact.
 *
 * <h2>Concurrency</h2>
 *
 * {@link #append} holds the append lock for the copy; {@link #appendAll} holds it once for a
 * batch's records. {@link #appendedSeq()} is published after a record (or a batch's records) is
 * complete, so anyone who reads it may rely on every record up to it being in the log.
 */
public final class LogWriter {
  /** How far ahead of the tail disk blocks are kept reserved. */
  public static final long RESERVE_CHUNK = 4L << 20;

  private final FileIO io;
  private final Path directory;
  private final SegmentTable table;
  private final AtomicLong segmentIds;
  private final long segmentBytes;
  private final LongSupplier clock;
  private final ReentrantLock appendLock = new ReentrantLock();

  /** The appends' checksum, used under {@link #appendLock}: an append makes no object. */
  private final CRC32C crc = new CRC32C();

  private static final int SCRATCH_LIMIT = 1 << 20;

  /** Where records are encoded before one copy into the log; guarded by the append lock. */
  private byte[] scratch = new byte[4096];

  private final Prefaulter prefaulter;
  private final AppendSignal appendSignal = new AppendSignal();

  private Segment active;
  private long tail;
  private long reservedUpTo;
  private long nextSeq;
  private volatile long appendedSeq;

  /**
   * Bytes of records appended since this writer opened: changed under the append lock before {@link
   * #appendedSeq}, whose volatile write publishes it to a reader that reads that first.
   */
  private long appendedBytes;

  private volatile boolean zeroFill;
  private volatile boolean hugePages = true;
  private volatile boolean directAppends;

  /** The keys new segments are encrypted with, or null; set before the first append. */
  private EncryptionKeys keys;

  /** {@link SegmentCipher#TAG_BYTES} if new records are encrypted, else 0. */
  private int tagBytes;

  /** Segments written to since their last fsync (the active one and FULL ones not yet sealed). */
  private final List<Segment> unsynced = new ArrayList<>();

  /** Told when a segment fills (it then awaits sealing); set once before appends begin. */
  private Runnable onFull = () -> {};

  public LogWriter(
      FileIO io,
      Path directory,
      SegmentTable table,
      AtomicLong segmentIds,
      long segmentBytes,
      long nextSeq,
      LongSupplier clock) {
    this.io = io;
    this.directory = directory;
    this.table = table;
    this.segmentIds = segmentIds;
    this.segmentBytes = segmentBytes;
    this.nextSeq = nextSeq;
    this.appendedSeq = nextSeq - 1;
    this.clock = clock;
    this.prefaulter = new Prefaulter(String.valueOf(directory.getFileName()));
  }

  /**
   * Reserve the log ahead of the tail by writing zeros rather than with fallocate: for stores that
   * fsync after nearly every write, it spares each fsync the journal commit that converting
   * unwritten extents costs (see {@link dev.cellar.CellarOptions#zeroFillLog}).
   */
  public void zeroFill(boolean enabled) {
    this.zeroFill = enabled;
  }

  /**
   * Appends with O_DIRECT from memory of the process's own, written out by each {@link #sync} (see
   * {@link Segment}): only for a store whose writes wait for a sync before they are acknowledged
   * ({@code io direct} with {@code fsync always}), since a process crash loses what no sync wrote.
   */
  public void directAppends(boolean enabled) {
    this.directAppends = enabled;
  }

  /**
   * Whether segments this writer creates are mapped with transparent huge pages (see {@link
   * dev.cellar.CellarOptions#hugePageLogTail}): not for a store that fsyncs after small writes.
   */
  public void hugePages(boolean enabled) {
    this.hugePages = enabled;
  }

  /**
   * Encrypts every segment this writer creates from now on with the current key of {@code keys}
   * (null: none). Set before {@link #start}: a writer's records are all encrypted or all not, which
   * is why a store with keys never resumes a plaintext segment.
   */
  public void encryption(EncryptionKeys keys) {
    this.keys = keys;
    this.tagBytes = keys == null ? 0 : SegmentCipher.TAG_BYTES;
  }

  /**
   * Appends one record and returns its location.
   *
   * @param expireAt epoch millis, 0 for none
   * @throws DiskFullException when no block could be reserved; nothing was written
   */
  public long append(int type, MemorySegment key, MemorySegment value, long expireAt) {
    return value == null
        ? append(type, key, 0, key.byteSize(), null, 0, 0, expireAt)
        : append(type, key, 0, key.byteSize(), value, 0, value.byteSize(), expireAt);
  }

  /**
   * {@link #append(int, MemorySegment, MemorySegment, long)} with the key and the value given as
   * ranges of larger segments ({@code value} null and {@code valueLength} 0 for a delete).
   */
  public long append(
      int type,
      MemorySegment key,
      long keyOffset,
      long keyLength,
      MemorySegment value,
      long valueOffset,
      long valueLength,
      long expireAt) {
    long location;
    appendLock.lock();
    try {
      long seq = nextSeq;
      checkSeq(seq);
      long length = RecordDescriptor.length(keyLength, valueLength, seq, expireAt != 0) + tagBytes;
      ensureRoom(length);
      long offset = tail;
      byte[] record = scratch(length);
      RecordDescriptor.encode(
          record,
          type,
          key,
          keyOffset,
          keyLength,
          value,
          valueOffset,
          valueLength,
          seq,
          expireAt,
          active.cipher(),
          offset,
          crc);
      MemorySegment.copy(record, 0, active.memory(), ValueLayout.JAVA_BYTE, offset, (int) length);
      assert offset + length <= active.memory().byteSize()
          : "record of " + length + " bytes at " + offset + " overruns its segment";
      tail = offset + length;
      active.end(tail);
      active.noteSeq(seq);
      if (expireAt != 0) {
        active.addTtl(length, expireAt);
      }
      assert seq > appendedSeq : "seq " + seq + " after " + appendedSeq;
      nextSeq = seq + 1;
      appendedBytes += length;
      appendedSeq = seq;
      location = LogLocation.of(active.slot(), offset);
    } finally {
      appendLock.unlock();
    }
    appendSignal.appended();
    return location;
  }

  /**
   * Appends puts of {@code records}, items {@code items[from]}, {@code items[from + 1]}, ... up to
   * {@code items[to - 1]}, in that order, as many as the active segment holds (rolling it first if
   * not even the first fits), and stores item {@code items[j]}'s location in {@code locations[j]};
   * returns how many it appended (at least one). Records never span segments, so the caller appends
   * the rest with another call.
   *
   * <p>One lock, one reservation, one copy into the mapping and one publication for them all: per
   * record, the lock, the volatile stores that publish it and the checks of the reserve cost about
   * as much as encoding it. Each record still gets its own seq and CRC; the log's bytes are those
   * one {@link #append} per record would have written.
   *
   * @throws DiskFullException when no block could be reserved; nothing was written
   */
  public int appendAll(PutRecords records, int[] items, int from, int to, long[] locations) {
    int appended;
    appendLock.lock();
    try {
      long seq = nextSeq;
      checkSeq(seq + (to - from) - 1);
      ensureRoom(recordLength(records, items[from], seq));
      long offset = tail;
      long bytes = 0;
      int end = from;
      for (; end < to; end++) {
        long length = recordLength(records, items[end], seq + (end - from));
        if (offset + bytes + length > segmentBytes || bytes + length > SCRATCH_LIMIT) {
          break;
        }
        bytes += length;
      }
      if (end == from) {
        // One record above the scratch limit: it has the segment to itself as far as it goes.
        end = from + 1;
        bytes = recordLength(records, items[from], seq);
      }
      ensureRoom(bytes);
      byte[] buffer = scratch(bytes);
      int at = 0;
      int slot = active.slot();
      for (int j = from; j < end; j++) {
        int item = items[j];
        int start = at;
        at = encode(records, item, seq + (j - from), buffer, at, active.cipher(), offset, crc);
        locations[j] = LogLocation.of(slot, offset + start);
        long expireAt = records.expiry(item);
        if (expireAt != 0) {
          active.addTtl(at - start, expireAt);
        }
      }
      assert at == bytes : "encoded " + at + " bytes of " + bytes;
      appended = end - from;
      publish(buffer, offset, at, seq, appended);
    } finally {
      appendLock.unlock();
    }
    appendSignal.appended();
    return appended;
  }

  /**
   * Appends {@code count} records of {@code records} as one atomic unit (docs/format/log.md,
   * "Atomic units"): contiguous in one segment, with consecutive seqs, each marked with its place
   * in the unit, in one copy under the append lock, so that a reader after a crash finds either all
   * of them or a unit it must drop whole. Stores item {@code i}'s location in {@code locations[i]}.
   * One record is appended as a plain record.
   *
   * @throws dev.cellar.LimitExceededException when the unit does not fit in one segment; nothing
   *     was written
   * @throws DiskFullException when no block could be reserved; nothing was written
   */
  public void appendUnit(UnitRecords records, int count, long[] locations) {
    appendLock.lock();
    try {
      long seq = nextSeq;
      checkSeq(seq + count - 1);
      long bytes = 0;
      for (int i = 0; i < count; i++) {
        bytes += recordLength(records, i, seq + i);
      }
      if (bytes > maxUnitBytes()) {
        throw new dev.cellar.LimitExceededException(
            "an atomic write of "
                + count
                + " records takes "
                + bytes
                + " bytes of log, more than one segment holds ("
                + maxUnitBytes()
                + " bytes of "
                + segmentBytes
                + "); split it, or open the store with larger segments");
      }
      ensureRoom(bytes);
      long offset = tail;
      byte[] buffer = scratch(bytes);
      int at = 0;
      int slot = active.slot();
      for (int i = 0; i < count; i++) {
        int start = at;
        int type = records.type(i) | RecordDescriptor.unitBits(i, count);
        at = encode(records, i, type, seq + i, buffer, at, active.cipher(), offset, crc);
        locations[i] = LogLocation.of(slot, offset + start);
        long expireAt = records.expiry(i);
        if (expireAt != 0) {
          active.addTtl(at - start, expireAt);
        }
      }
      assert at == bytes : "encoded " + at + " bytes of " + bytes;
      publish(buffer, offset, at, seq, count);
    } finally {
      appendLock.unlock();
    }
    appendSignal.appended();
  }

  /**
   * Copies {@code bytes} encoded records (of {@code count} seqs from {@code seq}) from {@code
   * buffer} into the active segment at {@code offset} and publishes them: the new tail and end, the
   * segment's seq range, the next seq and {@link #appendedSeq()} last. The append lock is held.
   */
  private void publish(byte[] buffer, long offset, int bytes, long seq, int count) {
    MemorySegment.copy(buffer, 0, active.memory(), ValueLayout.JAVA_BYTE, offset, bytes);
    long last = seq + count - 1;
    tail = offset + bytes;
    active.end(tail);
    active.noteSeq(seq);
    active.noteSeq(last);
    assert seq > appendedSeq : "seq " + seq + " after " + appendedSeq;
    nextSeq = last + 1;
    appendedBytes += bytes;
    appendedSeq = last;
  }

  /**
   * The most bytes of records one atomic unit may take: what a fresh segment holds after its header
   * and cipher block (docs/format/encryption.md), whichever segment the unit lands in.
   */
  public long maxUnitBytes() {
    return segmentBytes - 2L * SegmentHeaderDescriptor.LENGTH;
  }

  private long recordLength(PutRecords records, int item, long seq) {
    return RecordDescriptor.length(
            records.keyLength(item), records.valueLength(item), seq, records.expiry(item) != 0)
        + tagBytes;
  }

  /**
   * Encodes item {@code item} as a put of seq {@code seq} at {@code out[at]}, encrypted with {@code
   * cipher} if not null, for a batch whose first record goes to {@code base} in the segment;
   * returns its end.
   */
  private static int encode(
      PutRecords records,
      int item,
      long seq,
      byte[] out,
      int at,
      SegmentCipher cipher,
      long base,
      CRC32C crc) {
    return encode(records, item, RecordDescriptor.PUT, seq, out, at, cipher, base, crc);
  }

  /** As the form above, for a record of type byte {@code type} (flags included, expiry aside). */
  private static int encode(
      PutRecords records,
      int item,
      int type,
      long seq,
      byte[] out,
      int at,
      SegmentCipher cipher,
      long base,
      CRC32C crc) {
    int keyLength = (int) records.keyLength(item);
    int valueLength = (int) records.valueLength(item);
    int keyAt =
        RecordDescriptor.encodeHeader(
            out, at, type, keyLength, valueLength, seq, records.expiry(item));
    records.copyKey(item, out, keyAt);
    records.copyValue(item, out, keyAt + keyLength);
    int end = keyAt + keyLength + valueLength;
    return RecordDescriptor.seal(out, at, keyAt, end, cipher, base + at, crc);
  }

  /** A buffer of at least {@code length} bytes; small ones are reused (append lock held). */
  private byte[] scratch(long length) {
    if (length > SCRATCH_LIMIT) {
      return new byte[(int) length];
    }
    if (scratch.length < length) {
      scratch = new byte[(int) Math.max(length, scratch.length * 2L)];
    }
    return scratch;
  }

  /**
   * Refuses a write whose seq would reach {@link RecordDescriptor#SEQ_LIMIT}, which readers would
   * take for damage: the record would be written, acknowledged and then never found.
   */
  private static void checkSeq(long last) {
    if (last >= RecordDescriptor.SEQ_LIMIT) {
      throw new CellarException(
          CellarException.Category.CORRUPT,
          "the log's next sequence number "
              + last
              + " is at its limit 2^55; the store's files claim more writes than it can have had"
              + " (a damaged or forged checkpoint?)");
    }
  }

  private void ensureRoom(long length) {
    try {
      if (active == null || tail + length > segmentBytes) {
        roll();
      }
      // Keep one chunk reserved (and being faulted in) ahead of the tail.
      if (tail + length + RESERVE_CHUNK > reservedUpTo && reservedUpTo < segmentBytes) {
        long target = Math.min(segmentBytes, Math.max(tail + length, reservedUpTo) + RESERVE_CHUNK);
        if (zeroFill) {
          active.zeroFill(reservedUpTo, target);
        } else {
          active.reserve(reservedUpTo, target);
        }
        prefaulter.request(active.memory(), reservedUpTo, target);
        reservedUpTo = target;
      }
    } catch (IOException e) {
      throw ioFailure(e);
    }
  }

  private static RuntimeException ioFailure(IOException e) {
    String message = String.valueOf(e.getMessage());
    if (DiskFullException.isNoSpace(e)) {
      return new DiskFullException("disk full while appending to the log: " + message, e);
    }
    return new StoreIOException("log append failed: " + message, e);
  }

  /**
   * Leaves the active segment for a new one now if {@code worth} says so of it: compaction never
   * takes the active segment, so the garbage of a run of overwrites stays in it until it is left
   * ({@code Maintenance.compactAtRest}). Returns whether it rolled.
   */
  public boolean rollIf(Predicate<Segment> worth) {
    appendLock.lock();
    try {
      if (active == null || !worth.test(active)) {
        return false;
      }
      roll();
      return true;
    } catch (IOException e) {
      throw ioFailure(e);
    } finally {
      appendLock.unlock();
    }
  }

  /** Retires the active segment (sealed later, off the write path) and starts a new one. */
  private void roll() throws IOException {
    assert appendLock.isHeldByCurrentThread() : "the log rolls only under its append lock";
    long id = segmentIds.incrementAndGet();
    Path path = directory.resolve(Segment.fileName(id));
    Segment next = null;
    try {
      next =
          Segment.create(
              io,
              path,
              id,
              SegmentHeaderDescriptor.KIND_LOG,
              segmentBytes,
              clock.getAsLong(),
              hugePages,
              keys == null ? null : SegmentCipher.create(keys, path.getFileName().toString()),
              null,
              0,
              directAppends);
      // From the header on: the zero-filling fallback of reserve() would erase it otherwise.
      if (zeroFill) {
        next.zeroFill(next.dataStart(), Math.min(segmentBytes, RESERVE_CHUNK));
      } else {
        next.reserve(next.dataStart(), Math.min(segmentBytes, RESERVE_CHUNK));
      }
      // The header and the file's name must survive power loss before any record in the segment
      // does: recovery cannot tell a segment whose header was lost from a damaged one.
      next.force();
      io.syncDirectory(directory);
    } catch (IOException e) {
      // Every write retries the roll while the disk is full: each failed attempt must give back
      // its file, descriptor and mapping, or a full disk becomes a descriptor leak.
      if (next != null) {
        next.close();
      }
      segmentIds.compareAndSet(id, id - 1);
      try {
        io.delete(path);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    try {
      table.add(next);
    } catch (RuntimeException full) {
      // The segment table is full (compaction is behind): give the new file back, as for a failed
      // creation, so that every retry does not leave one more file and mapping behind.
      next.close();
      segmentIds.compareAndSet(id, id - 1);
      io.delete(path);
      throw full;
    }
    Segment full = active;
    if (full != null) {
      full.markFull();
    }
    active = next;
    unsynced.add(next);
    tail = next.dataStart();
    reservedUpTo = Math.min(segmentBytes, RESERVE_CHUNK);
    prefaulter.request(next.memory(), 0, reservedUpTo);
    if (full != null) {
      onFull.run();
    }
  }

  /** Calls {@code listener} (on the writing thread, briefly) each time a segment fills. */
  public void onSegmentFull(Runnable listener) {
    onFull = listener;
  }

  /**
   * Starts appending (no appends happen before): into {@code resume} if given (a small sealed
   * segment reopened for append, whose records end at its {@code end()}), else into a new segment.
   */
  public void start(Segment resume) {
    appendLock.lock();
    try {
      if (resume != null) {
        active = resume;
        tail = resume.end();
        reservedUpTo = tail;
        unsynced.add(resume);
      } else if (active == null) {
        roll();
      }
    } catch (IOException e) {
      throw ioFailure(e);
    } finally {
      appendLock.unlock();
    }
  }

  /** Stops the background prefaulting; appends still work, only slower. */
  public void stopPrefaulting() {
    prefaulter.stop();
  }

  /** The highest seq whose record is completely in the log. */
  public long appendedSeq() {
    return appendedSeq;
  }

  /** Bytes of the records appended since this writer opened. */
  public long appendedBytes() {
    // The volatile seq first: the count was written before it, so it is as current as the seq.
    return appendedSeq == 0 ? 0 : appendedBytes;
  }

  /** Wakes readers waiting for the log to grow (change streams following the tail). */
  public AppendSignal appendSignal() {
    return appendSignal;
  }

  /** The seq the next record will get. */
  public long nextSeq() {
    appendLock.lock();
    try {
      return nextSeq;
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Makes everything appended so far durable and returns the highest seq it covers. Concurrent
   * callers are serialised by the caller (group commit).
   */
  public long sync() throws IOException {
    long covered;
    List<Segment> toSync;
    appendLock.lock();
    try {
      covered = appendedSeq;
      toSync = new ArrayList<>(unsynced);
      unsynced.removeIf(s -> s != active);
    } finally {
      appendLock.unlock();
    }
    for (Segment s : toSync) {
      s.force();
    }
    return covered;
  }

  /** Drops a segment sealed by the maintenance agent from the set that {@link #sync} forces. */
  public void sealed(Segment segment) {
    appendLock.lock();
    try {
      unsynced.remove(segment);
    } finally {
      appendLock.unlock();
    }
  }

  /** The active segment and its current tail, as a log position for checkpoints. */
  public Position position() {
    appendLock.lock();
    try {
      return new Position(active.id(), tail);
    } finally {
      appendLock.unlock();
    }
  }

  /** The segment being appended to. */
  public Segment active() {
    appendLock.lock();
    try {
      return active;
    } finally {
      appendLock.unlock();
    }
  }

  /** A point in the log: a segment id and an offset in it. */
  public record Position(long segmentId, long offset) {}
}
