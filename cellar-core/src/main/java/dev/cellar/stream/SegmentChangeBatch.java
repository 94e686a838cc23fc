package dev.cellar.stream;

import dev.cellar.ChangeBatch;
import dev.cellar.CorruptStoreException;
import dev.cellar.StoreClosedException;
import dev.cellar.log.Crc32c;
import dev.cellar.log.RecordDescriptor;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A {@link ChangeBatch} over a byte range of one pinned log segment, checked as it is walked: each
 * {@link #next()} parses one record in place, checks that its sequence number is the one expected
 * (log segments hold consecutive sequence numbers, so anything else is damage) and its CRC, and
 * only then exposes it. One pass over the bytes, no copy handed out and no object per record.
 *
 * <p>The CRC of a record up to {@link #SCRATCH_BYTES} is computed on a copy in a scratch array
 * owned by the batch: a {@code ByteBuffer} view of the mapping costs an object and an atomic
 * acquire and release of the segment's shared arena per record (the same trade as {@link
 * RecordView#checksumValid()}, without its thread-local lookup). Larger records are checked in
 * place.
 *
 * <p>Owned by its stream's thread.
 */
final class SegmentChangeBatch implements ChangeBatch {
  static final int SCRATCH_BYTES = 4096;

  private final RecordView view = new RecordView();
  private final CRC32C crc = new CRC32C();
  private final byte[] scratch = new byte[SCRATCH_BYTES];
  private Segment segment;
  private MemorySegment memory;
  private long cursor;
  private long end;
  private long nextSeq;
  private long limitSeq;
  private boolean onRecord;

  /**
   * Starts a batch over {@code [from, end)} of {@code segment} (pinned by the caller), expecting
   * {@code nextSeq} first and delivering nothing past {@code limitSeq}.
   */
  void start(Segment segment, long from, long end, long nextSeq, long limitSeq) {
    this.segment = segment;
    this.memory = segment.readOnlyMemory();
    this.cursor = from;
    this.end = end;
    this.nextSeq = nextSeq;
    this.limitSeq = limitSeq;
    this.onRecord = false;
  }

  /** An empty batch. */
  void clear() {
    segment = null;
    memory = null;
    cursor = 0;
    end = 0;
    onRecord = false;
  }

  /** The sequence number the next call to {@link #next()} expects. */
  long nextSeq() {
    return nextSeq;
  }

  /** Where the record with {@link #nextSeq()} starts (or will) in the segment. */
  long cursor() {
    return cursor;
  }

  @Override
  public boolean next() {
    onRecord = false;
    if (cursor >= end || nextSeq > limitSeq) {
      return false;
    }
    try {
      if (!view.parse(memory, cursor, end)) {
        throw damaged("malformed record header");
      }
      if (view.seq() != nextSeq) {
        throw damaged("sequence " + view.seq() + " where " + nextSeq + " was expected");
      }
      if (!checksumValid(cursor, view.length())) {
        throw damaged("checksum mismatch");
      }
    } catch (IllegalStateException unmapped) {
      // Only store close unmaps a segment a stream has pinned.
      throw new StoreClosedException(
          "store closed while a change stream read " + segment.path().getFileName(), unmapped);
    }
    cursor += view.length();
    nextSeq++;
    onRecord = true;
    return true;
  }

  private boolean checksumValid(long offset, long length) {
    int stored = RecordDescriptor.storedCrc(memory, offset);
    long body = length - RecordDescriptor.TYPE_OFFSET;
    crc.reset();
    if (body <= SCRATCH_BYTES) {
      MemorySegment.copy(
          memory,
          ValueLayout.JAVA_BYTE,
          offset + RecordDescriptor.TYPE_OFFSET,
          scratch,
          0,
          (int) body);
      crc.update(scratch, 0, (int) body);
    } else {
      crc.update(memory.asSlice(offset + RecordDescriptor.TYPE_OFFSET, body).asByteBuffer());
    }
    return stored == Crc32c.mask((int) crc.getValue());
  }

  private CorruptStoreException damaged(String reason) {
    String place = segment.path().getFileName() + " offset " + cursor + ": " + reason;
    return new CorruptStoreException(
        "change stream stopped at sequence "
            + nextSeq
            + ": its record in the log is damaged, so neither it nor any later change is"
            + " delivered (nothing was skipped); check the store with `cellar tool verify` and"
            + " start followers again from a snapshot taken after it is repaired",
        List.of(place));
  }

  private void checkOnRecord() {
    if (!onRecord) {
      throw new IllegalStateException("no current change: call next() first, while it is true");
    }
  }

  @Override
  public long seq() {
    checkOnRecord();
    return view.seq();
  }

  @Override
  public boolean isDelete() {
    checkOnRecord();
    return view.isDelete();
  }

  @Override
  public long expireAt() {
    checkOnRecord();
    return view.expireAt();
  }

  @Override
  public MemorySegment key() {
    checkOnRecord();
    return view.key();
  }

  @Override
  public MemorySegment value() {
    checkOnRecord();
    return view.value();
  }
}
