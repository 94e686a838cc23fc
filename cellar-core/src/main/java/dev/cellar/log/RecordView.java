package dev.cellar.log;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A reusable flyweight over one record in a mapped segment: {@link #parse} decodes the header at
 * an offset without copying anything; the accessors then describe the record. Parsing is bounded
 * and total over arbitrary bytes (it returns false instead of throwing), because it runs on data
 * that may be torn or corrupt.
 *
 * <p>Not thread-safe: one view per thread or per cursor.
 */
public final class RecordView {
  private MemorySegment log;
  private long offset;
  private int type;
  private long keyLength;
  private long valueLength;
  private long seq;
  private long expireAt;
  private long keyOffset;
  private long length;

  /**
   * Decodes the record header at {@code offset}; the record must end at or before {@code limit}.
   * Returns false when the bytes cannot be a record (checksum not checked: see {@link
   * #checksumValid()}).
   */
  public boolean parse(MemorySegment log, long offset, long limit) {
    this.log = log;
    this.offset = offset;
    if (offset < 0 || limit - offset < RecordDescriptor.MIN_LENGTH || limit > log.byteSize()) {
      return false;
    }
    int typeByte = log.get(ValueLayout.JAVA_BYTE, offset + RecordDescriptor.TYPE_OFFSET) & 0xFF;
    type = typeByte & RecordDescriptor.TYPE_MASK;
    boolean hasExpiry = (typeByte & RecordDescriptor.EXPIRY_BIT) != 0;
    if ((typeByte & ~(RecordDescriptor.TYPE_MASK | RecordDescriptor.EXPIRY_BIT)) != 0
        || (type != RecordDescriptor.PUT && type != RecordDescriptor.DELETE)
        || (hasExpiry && type != RecordDescriptor.PUT)) {
      return false;
    }
    long at = offset + RecordDescriptor.VARINTS_OFFSET;
    long v = Varint.read(log, at, limit, Varint.MAX_INT_BYTES);
    if (v < 0) {
      return false;
    }
    keyLength = v >>> 8;
    at += v & 0xFF;
    v = Varint.read(log, at, limit, Varint.MAX_INT_BYTES);
    if (v < 0) {
      return false;
    }
    valueLength = v >>> 8;
    at += v & 0xFF;
    v = Varint.read(log, at, limit, Varint.MAX_LONG_BYTES);
    if (v < 0) {
      return false;
    }
    seq = v >>> 8;
    at += v & 0xFF;
    if (hasExpiry) {
      if (at + RecordDescriptor.EXPIRY_BYTES > limit) {
        return false;
      }
      expireAt = RecordDescriptor.readExpiry(log, at);
      at += RecordDescriptor.EXPIRY_BYTES;
      if (expireAt == 0) {
        return false;
      }
    } else {
      expireAt = 0;
    }
    if (keyLength == 0 || (type == RecordDescriptor.DELETE && valueLength != 0)) {
      return false;
    }
    keyOffset = at;
    long end = at + keyLength + valueLength;
    if (end > limit || end < at) {
      return false;
    }
    length = end - offset;
    return true;
  }

  /** Whether the stored CRC matches the record's bytes. Call only after a successful parse. */
  public boolean checksumValid() {
    int stored = RecordDescriptor.storedCrc(log, offset);
    return stored
        == Crc32c.masked(log, offset + RecordDescriptor.TYPE_OFFSET, length - RecordDescriptor.TYPE_OFFSET);
  }

  public long offset() {
    return offset;
  }

  /** {@link RecordDescriptor#PUT} or {@link RecordDescriptor#DELETE}. */
  public int type() {
    return type;
  }

  public boolean isDelete() {
    return type == RecordDescriptor.DELETE;
  }

  public long keyLength() {
    return keyLength;
  }

  public long valueLength() {
    return valueLength;
  }

  public long seq() {
    return seq;
  }

  /** Epoch millis, or 0 when the record does not expire. */
  public long expireAt() {
    return expireAt;
  }

  /** Whether the record has expired at {@code nowMillis}. */
  public boolean expiredAt(long nowMillis) {
    return expireAt != 0 && expireAt <= nowMillis;
  }

  public long keyOffset() {
    return keyOffset;
  }

  public long valueOffset() {
    return keyOffset + keyLength;
  }

  /** Total bytes of the record. */
  public long length() {
    return length;
  }

  public MemorySegment key() {
    return log.asSlice(keyOffset, keyLength);
  }

  public MemorySegment value() {
    return log.asSlice(keyOffset + keyLength, valueLength);
  }

  /** Whether this record's key equals {@code key}. */
  public boolean keyEquals(MemorySegment key) {
    return key.byteSize() == keyLength
        && MemorySegment.mismatch(log, keyOffset, keyOffset + keyLength, key, 0, keyLength) == -1;
  }
}
