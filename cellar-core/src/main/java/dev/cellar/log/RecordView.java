package dev.cellar.log;

import dev.cellar.compress.ValueDictionary;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32C;

/**
 * A reusable flyweight over one record in a mapped segment: {@link #parse} decodes the header at an
 * offset without copying anything; the accessors then describe the record. Parsing is bounded and
 * total over arbitrary bytes (it returns false instead of throwing), because it runs on data that
 * may be torn or corrupt.
 *
 * <p>An encrypted segment's record (a view given the segment's {@link SegmentCipher}) parses the
 * same way, its header being plaintext; its key and value are decrypted, and its tag checked, into
 * the view's own array on the first access to them ({@link #checksumValid()} does it too), and
 * {@link #data()} is then that array, not the mapping. So a key or a value of an encrypted record
 * is valid only until the view parses another record.
 *
 * <p>Not thread-safe: one view per thread or per cursor.
 */
public final class RecordView {
  private SegmentCipher cipher;
  private int tagBytes;
  private ValueDictionary dictionary;

  /** Made on the first compressed value this view reads (see {@link CompressedField}). */
  private CompressedField field;

  private boolean compressed;
  private int unitBits;

  /** The value's own length when compressed, once read from its field; else -1. */
  private long rawLength;

  /** Whether the compressed value is decompressed ({@link #inflate}) in {@link #field}. */
  private boolean inflated;

  /** The record decrypted (header and plaintext key and value) when {@link #opened}. */
  private byte[] plain;

  private MemorySegment plainData;
  private boolean opened;
  private MemorySegment log;
  private long offset;

  /**
   * Where the record is in its file, and the file's mapping (its identity): the parsed {@code
   * offset} in {@code log}, unless the record was read through the read cache into {@link
   * #directData}, where it starts at 0. The nonce and {@link #offset()} are the file's.
   */
  private long fileOffset;

  private MemorySegment source;

  /** A record of a segment read with O_DIRECT, copied out of the read cache. */
  private byte[] directBytes;

  private MemorySegment directData;
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
    source = log;
    fileOffset = offset;
    return parseRange(log, offset, limit, limit);
  }

  /**
   * Parses the record at {@code offset} of {@code log}, which must end by {@code limit}, reading
   * nothing at or past {@code readable} (no header reaches 64 bytes past its start).
   */
  private boolean parseRange(MemorySegment log, long offset, long limit, long readable) {
    this.log = log;
    this.offset = offset;
    this.opened = false;
    this.inflated = false;
    this.rawLength = -1;
    if (offset < 0
        || limit - offset < RecordDescriptor.MIN_LENGTH
        || readable > log.byteSize()
        || readable > limit) {
      return false;
    }
    if (readable - offset >= RecordDescriptor.TYPE_OFFSET + Long.BYTES) {
      int decoded = parseShortHeader(log.get(HEADER_WORD, offset + RecordDescriptor.TYPE_OFFSET));
      if (decoded != NEEDS_SLOW_PATH) {
        return decoded == 1 && finish(limit);
      }
    }
    return parseSlow(log, offset, limit);
  }

  /**
   * Parses the record at {@code offset} of {@code segment}, bounded by the segment's end, and
   * decrypting with its cipher if it has one.
   */
  public boolean parse(Segment segment, long offset) {
    return parse(segment, offset, segment.end());
  }

  /** As {@link #parse(Segment, long)}, bounded by {@code limit}. */
  public boolean parse(Segment segment, long offset, long limit) {
    cipher(segment.cipher());
    dictionary = segment.dictionary();
    if (segment.directReads()) {
      MemorySegment scanned = segment.scannedAt(offset);
      if (scanned != null) {
        return parse(scanned, offset, limit);
      }
      return parseDirect(segment, offset, limit);
    }
    return parse(segment.memory(), offset, limit);
  }

  /**
   * As {@link #parse(Segment, long, long)}, from {@code memory}, which holds the segment's bytes at
   * their offsets (its mapping, or a {@link DirectScan}'s), even when its point reads go through
   * the read cache: for a scan of the whole segment, which would only churn the cache.
   */
  public boolean parseScanned(Segment segment, MemorySegment memory, long offset) {
    cipher(segment.cipher());
    dictionary = segment.dictionary();
    return parse(memory, offset, segment.end());
  }

  /** The most bytes of a record header ({@link RecordDescriptor#MAX_FRAMING_LENGTH} and more). */
  private static final int HEADER_BYTES = 64;

  /**
   * Reads the record at {@code offset} of a segment whose point reads go through the read cache
   * ({@link Segment#readDirect}) into this view's own array, and parses it there: first the rest of
   * the cache block it starts in (all of most records; the header at least), then, if the record is
   * longer, the whole record.
   */
  private boolean parseDirect(Segment segment, long offset, long limit) {
    if (offset < 0 || limit - offset < RecordDescriptor.MIN_LENGTH) {
      return parse(segment.memory(), offset, limit); // refused by the same rules
    }
    long first =
        Math.min(
            limit - offset,
            Math.max(HEADER_BYTES, dev.cellar.cache.BlockCache.BLOCK_BYTES - offset % 4096));
    MemorySegment buffer = directBuffer(first);
    segment.readDirect(offset, buffer, 0, first);
    boolean parsed = parseRange(buffer, 0, limit - offset, Math.min(first, HEADER_BYTES));
    if (parsed && length > first) {
      long whole = length;
      buffer = directBuffer(whole);
      segment.readDirect(offset, buffer, 0, whole);
      parsed = parseRange(buffer, 0, whole, whole);
    }
    source = segment.memory();
    fileOffset = offset;
    return parsed;
  }

  /**
   * The length of the record at {@code offset} of a segment whose point reads go through the read
   * cache, from its header alone (read through the cache), or -1 if the header does not parse: for
   * reading a batch's blocks ahead of it ({@link CacheFill}). Leaves this view unparsed.
   */
  public long directLength(Segment segment, long offset, long limit) {
    if (offset < 0 || limit - offset < RecordDescriptor.MIN_LENGTH) {
      return -1;
    }
    long first = Math.min(limit - offset, HEADER_BYTES);
    MemorySegment buffer = directBuffer(first);
    segment.readDirect(offset, buffer, 0, first);
    cipher(segment.cipher());
    dictionary = null;
    long found = parseRange(buffer, 0, limit - offset, first) ? length : -1;
    log = null;
    return found;
  }

  private MemorySegment directBuffer(long bytes) {
    if (directBytes == null || directBytes.length < bytes) {
      directBytes = new byte[(int) Math.max(bytes, 2 * SCRATCH_BYTES)];
      directData = MemorySegment.ofArray(directBytes);
    }
    return directData;
  }

  /** Whether the record was read through the read cache into this view's own array. */
  public boolean direct() {
    return log == directData && directData != null;
  }

  /**
   * Sets the dictionary that decompresses the values of the segment the next {@link
   * #parse(MemorySegment, long, long)} reads (null for a segment that is not compressed); returns
   * this view. A compressed record parses without one, and its key reads; its value does not.
   */
  public RecordView dictionary(ValueDictionary dictionary) {
    this.dictionary = dictionary;
    return this;
  }

  /** Whether the dictionary this view decompresses with is {@code d}. */
  public boolean dictionaryIs(ValueDictionary d) {
    return dictionary == d;
  }

  /** Whether the record's value is stored compressed. */
  public boolean compressed() {
    return compressed;
  }

  /**
   * The record's {@link RecordDescriptor#UNIT_BITS}: 0 when it stands alone, else where it sits in
   * its atomic unit. Meaningful in log segments only (compaction copies records with their bits).
   */
  public int unitBits() {
    return unitBits;
  }

  /**
   * Sets the cipher of the segment the next {@link #parse(MemorySegment, long, long)} reads (null
   * for a plaintext one); returns this view.
   */
  public RecordView cipher(SegmentCipher cipher) {
    this.cipher = cipher;
    this.tagBytes = RecordDescriptor.tagBytes(cipher);
    return this;
  }

  /** Whether the record is of an encrypted segment. */
  public boolean encrypted() {
    return cipher != null;
  }

  private static final ValueLayout.OfLong HEADER_WORD =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
  private static final int NEEDS_SLOW_PATH = -1;

  /**
   * Decodes the type byte and the three varints from the 8 bytes after the CRC, held in one
   * register: one memory access instead of a bounds-checked access per byte, and no branch per byte
   * ({@link Varint#wordStops}). That covers every record whose varints fit 7 bytes (keys and values
   * under 16 KiB, seqs under 2^35 or so); longer headers, and malformed ones whose varints do not
   * stop within them, take the byte-wise path. Returns 1 if valid, 0 if malformed, or
   * NEEDS_SLOW_PATH.
   */
  private int parseShortHeader(long word) {
    int typeByte = (int) word & 0xFF;
    type = typeByte & RecordDescriptor.TYPE_MASK;
    boolean hasExpiry = (typeByte & RecordDescriptor.EXPIRY_BIT) != 0;
    long rest = word >>> 8;
    int ends = Varint.wordEnds(rest);
    if (ends < 0) {
      return NEEDS_SLOW_PATH;
    }
    int keyEnd = ends & 0xFF;
    int valueEnd = (ends >>> 8) & 0xFF;
    int seqEnd = ends >>> 16;
    long keyLen = Varint.wordField(rest, -1, keyEnd);
    long valueLen = Varint.wordField(rest, keyEnd, valueEnd);
    long sequence = Varint.wordField(rest, valueEnd, seqEnd);
    int used = (seqEnd >>> 3) + 1;
    if (!RecordDescriptor.validTypeByte(typeByte)) {
      return 0;
    }
    compressed = (typeByte & RecordDescriptor.COMPRESSED_BIT) != 0;
    unitBits = typeByte & RecordDescriptor.UNIT_BITS;
    keyLength = keyLen;
    valueLength = valueLen;
    seq = sequence;
    keyOffset = offset + RecordDescriptor.VARINTS_OFFSET + used;
    expireAt = hasExpiry ? 1 : 0; // marker: finish() reads the real expiry
    return 1;
  }

  /** Reads the expiry (if any) and checks lengths against {@code limit}. */
  private boolean finish(long limit) {
    if (expireAt != 0) {
      if (keyOffset + RecordDescriptor.EXPIRY_BYTES > limit) {
        return false;
      }
      expireAt = RecordDescriptor.readExpiry(log, keyOffset);
      keyOffset += RecordDescriptor.EXPIRY_BYTES;
      if (expireAt == 0) {
        return false;
      }
    }
    if (keyLength == 0
        || (RecordDescriptor.isDelete(type) && valueLength != 0)
        || (compressed && valueLength < 2)) {
      return false;
    }
    long end = keyOffset + keyLength + valueLength + tagBytes;
    if (end > limit || end < keyOffset) {
      return false;
    }
    length = end - offset;
    return true;
  }

  /** The byte-wise decoder: headers too long for the fast path, and tests comparing the two. */
  boolean parseSlow(MemorySegment log, long offset, long limit) {
    if (log != directData) {
      source = log;
      fileOffset = offset;
    }
    this.log = log;
    this.offset = offset;
    this.opened = false;
    this.inflated = false;
    this.rawLength = -1;
    int typeByte = log.get(ValueLayout.JAVA_BYTE, offset + RecordDescriptor.TYPE_OFFSET) & 0xFF;
    type = typeByte & RecordDescriptor.TYPE_MASK;
    boolean hasExpiry = (typeByte & RecordDescriptor.EXPIRY_BIT) != 0;
    if (!RecordDescriptor.validTypeByte(typeByte)) {
      return false;
    }
    compressed = (typeByte & RecordDescriptor.COMPRESSED_BIT) != 0;
    unitBits = typeByte & RecordDescriptor.UNIT_BITS;
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
    if (keyLength == 0
        || (RecordDescriptor.isDelete(type) && valueLength != 0)
        || (compressed && valueLength < 2)) {
      return false;
    }
    keyOffset = at;
    long end = at + keyLength + valueLength + tagBytes;
    if (end > limit || end < at) {
      return false;
    }
    length = end - offset;
    return true;
  }

  /**
   * Records up to this size are checksummed on a heap copy; see {@link Crc32c#masked(byte[], int,
   * int)}.
   */
  private static final long COPY_TO_CHECK = 64 << 10;

  /**
   * Small enough to keep per thread (virtual threads included), large enough for typical records.
   */
  private static final int SCRATCH_BYTES = 4096;

  /**
   * This view's room for checking a record's CRC, made on the first check. A view belongs to one
   * thread at a time (a per-thread lookup view, a batch's own, a scanner's), and the check calls no
   * user code, so it cannot be reentered; kept per view rather than per thread, a read looks up no
   * thread-local (that lookup was 7% of a batched read).
   */
  private byte[] checkScratch;

  /**
   * The view's checksum for {@link #copyAndCheck}, made on its first use: reads that verify make no
   * object per read, whatever the JIT inlines.
   */
  private CRC32C crc;

  private byte[] checkScratch() {
    byte[] scratch = checkScratch;
    if (scratch == null) {
      scratch = checkScratch = new byte[SCRATCH_BYTES];
    }
    return scratch;
  }

  /**
   * Whether the stored CRC matches the record's bytes and, in an encrypted segment, its tag matches
   * too (the key and value are then decrypted). Call only after a successful parse.
   */
  public boolean checksumValid() {
    if (cipher != null) {
      return opened || open();
    }
    if (length <= SCRATCH_BYTES) {
      // A scratch array, not a new one per read: a server thread checks a record on every GET,
      // and this copy was the largest allocation of the GET path.
      return copyAndCheck(checkScratch());
    }
    if (length <= COPY_TO_CHECK) {
      return checksumValid(copy());
    }
    int stored = RecordDescriptor.storedCrc(log, offset);
    return stored
        == Crc32c.masked(
            log, offset + RecordDescriptor.TYPE_OFFSET, length - RecordDescriptor.TYPE_OFFSET);
  }

  /**
   * The value on the heap, copied from the very bytes whose CRC was checked when {@code verify};
   * null if that check fails. Allocates only the value: a record that fits the per-thread scratch
   * is checked there and its value taken from it. Call only after a successful parse.
   */
  public byte[] checkedValue(boolean verify) {
    if (cipher != null) {
      if (!(opened || open())) {
        return null;
      }
      int at = (int) (keyOffset - offset + keyLength);
      return compressed
          ? decompressed(plain, at)
          : java.util.Arrays.copyOfRange(plain, at, at + (int) valueLength);
    }
    int from = (int) (keyOffset + keyLength - offset);
    if (compressed) {
      byte[] record = length <= SCRATCH_BYTES ? checkScratch() : new byte[(int) length];
      if (verify ? !copyAndCheck(record) : !copyInto(record)) {
        return null;
      }
      return decompressed(record, from);
    }
    if (!verify) {
      byte[] out = new byte[(int) valueLength];
      MemorySegment.copy(log, ValueLayout.JAVA_BYTE, offset + from, out, 0, out.length);
      return out;
    }
    if (length <= SCRATCH_BYTES) {
      byte[] scratch = checkScratch();
      return copyAndCheck(scratch)
          ? java.util.Arrays.copyOfRange(scratch, from, from + (int) valueLength)
          : null;
    }
    byte[] record = copy();
    return checksumValid(record) ? valueOf(record) : null;
  }

  /** Copies the record into {@code scratch} without checking it; returns true. */
  private boolean copyInto(byte[] scratch) {
    MemorySegment.copy(log, ValueLayout.JAVA_BYTE, offset, scratch, 0, (int) length);
    return true;
  }

  /**
   * The value decompressed from the compressed field at {@code src[at]} into a new array.
   *
   * @throws dev.cellar.CorruptStoreException if it does not decompress
   */
  private byte[] decompressed(byte[] src, int at) {
    byte[] out = CompressedField.decompressed(src, at, (int) valueLength, dictionary);
    if (out == null) {
      throw undecompressable();
    }
    return out;
  }

  private dev.cellar.CorruptStoreException undecompressable() {
    return new dev.cellar.CorruptStoreException(
        "a compressed value does not decompress; it is not returned",
        java.util.List.of(
            (cipher != null ? cipher.file() + " " : "")
                + "offset "
                + fileOffset
                + ": "
                + length
                + " bytes, "
                + CompressedField.why(dictionary)));
  }

  private CompressedField field() {
    CompressedField f = field;
    if (f == null) {
      f = field = new CompressedField();
    }
    return f;
  }

  /** Decompresses a compressed record's value into {@link #field}, if not done since parsing. */
  private void inflate() {
    if (inflated) {
      return;
    }
    long raw;
    if (cipher != null) {
      ensureOpen();
      raw =
          field()
              .inflate(
                  plain, (int) (keyOffset - offset + keyLength), (int) valueLength, dictionary);
    } else {
      int n = (int) valueLength;
      raw = field().inflate(field().copy(log, keyOffset + keyLength, n), 0, n, dictionary);
    }
    if (raw < 0) {
      throw undecompressable();
    }
    rawLength = raw;
    inflated = true;
  }

  /**
   * Copies the encrypted record into {@link #plain}, checks its CRC and then its tag there, and
   * leaves the plaintext key and value in place of their ciphertext: one copy, so the bytes checked
   * are the bytes decrypted.
   */
  private boolean open() {
    int n = (int) length;
    if (plain == null || plain.length < n) {
      plain = new byte[Math.max(n, SCRATCH_BYTES)];
      plainData = MemorySegment.ofArray(plain);
    }
    LastOpened last = LAST_OPENED.get();
    if (last.log == source && last.offset == fileOffset && last.length == n) {
      System.arraycopy(last.plain, 0, plain, 0, n);
      opened = true;
      return true;
    }
    if (!copyAndCheck(plain)) {
      return false;
    }
    int aad = RecordDescriptor.TYPE_OFFSET;
    int body = (int) (keyOffset - offset);
    opened = cipher.open(plain, aad, body - aad, body, (int) (keyLength + valueLength), fileOffset);
    if (opened && n <= LastOpened.MAX_BYTES) {
      last.remember(source, fileOffset, plain, n);
    }
    return opened;
  }

  /**
   * The record this thread decrypted last, by mapping and offset. A GET compares the key of the
   * record its index slot points at (the index's view), then reads it (the reader's view): two
   * views of one record, which without this paid for AES-GCM twice, 2 of a 1 KB GET's 5.4 µs. A
   * record's bytes never change while its segment is mapped (nonces depend on it: SegmentCipher),
   * and a new mapping is a new {@code MemorySegment}, so a hit is the same bytes, already checked.
   */
  private static final class LastOpened {
    /** Larger records are not kept: copying them costs more than the lookups it saves. */
    static final int MAX_BYTES = 64 << 10;

    private MemorySegment log;
    private long offset = -1;
    private int length;
    private byte[] plain = new byte[0];

    void remember(MemorySegment log, long offset, byte[] from, int length) {
      if (plain.length < length) {
        plain = new byte[Math.max(length, SCRATCH_BYTES)];
      }
      System.arraycopy(from, 0, plain, 0, length);
      this.log = log;
      this.offset = offset;
      this.length = length;
    }
  }

  private static final ThreadLocal<LastOpened> LAST_OPENED =
      ThreadLocal.withInitial(LastOpened::new);

  /**
   * Decrypts the record if it is encrypted and not yet decrypted.
   *
   * @throws dev.cellar.CorruptStoreException if its CRC or tag does not match: a changed byte is
   *     never returned
   */
  private void ensureOpen() {
    if (cipher != null && !opened && !open()) {
      throw new dev.cellar.CorruptStoreException(
          "a record failed its authentication; it is not returned",
          java.util.List.of(
              cipher.file()
                  + " offset "
                  + fileOffset
                  + ": "
                  + length
                  + " bytes, checksum or AES-GCM tag mismatch"));
    }
  }

  /**
   * The memory {@link #keyOffset()} and {@link #valueOffset()} are offsets into: the mapping, or,
   * for an encrypted record, the view's decrypted copy (decrypting it first).
   */
  public MemorySegment data() {
    if (cipher == null) {
      return log;
    }
    ensureOpen();
    return plainData;
  }

  /**
   * Copies the record into {@code scratch} (at least {@link #length} bytes) and checks its CRC
   * there.
   */
  private boolean copyAndCheck(byte[] scratch) {
    MemorySegment.copy(log, ValueLayout.JAVA_BYTE, offset, scratch, 0, (int) length);
    int stored = (int) STORED_CRC.get(scratch, RecordDescriptor.CRC_OFFSET);
    if (crc == null) {
      crc = new CRC32C();
    }
    return stored
        == Crc32c.masked(
            crc,
            scratch,
            RecordDescriptor.TYPE_OFFSET,
            (int) length - RecordDescriptor.TYPE_OFFSET);
  }

  /** The whole record, copied onto the heap. */
  public byte[] copy() {
    byte[] out = new byte[(int) length];
    MemorySegment.copy(log, ValueLayout.JAVA_BYTE, offset, out, 0, out.length);
    return out;
  }

  /** Whether {@code copy} (from {@link #copy()}) carries a valid CRC. */
  public static boolean checksumValid(byte[] copy) {
    int stored = (int) STORED_CRC.get(copy, RecordDescriptor.CRC_OFFSET);
    return stored
        == Crc32c.masked(
            copy, RecordDescriptor.TYPE_OFFSET, copy.length - RecordDescriptor.TYPE_OFFSET);
  }

  /** The value bytes of {@code copy} (from {@link #copy()} of this record). */
  public byte[] valueOf(byte[] copy) {
    int from = (int) (keyOffset + keyLength - offset);
    if (compressed) {
      return decompressed(copy, from);
    }
    return java.util.Arrays.copyOfRange(copy, from, from + (int) valueLength);
  }

  private static final java.lang.invoke.VarHandle STORED_CRC =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
          int[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

  /** Where the record starts in its file. */
  public long offset() {
    return fileOffset;
  }

  /**
   * The type byte's low nibble: {@link RecordDescriptor#PUT}, {@link RecordDescriptor#DELETE}...
   */
  public int type() {
    return type;
  }

  public boolean isDelete() {
    return RecordDescriptor.isDelete(type);
  }

  /** Whether the record is of the keyspace of elements. */
  public boolean isElement() {
    return RecordDescriptor.isElement(type);
  }

  /** Whether the record is a header: a value plain reads do not return. */
  public boolean isHeader() {
    return type == RecordDescriptor.HEADER;
  }

  public long keyLength() {
    return keyLength;
  }

  /**
   * The value's length: of the value itself, decompressed, if it is stored compressed (read from
   * its field, which for an encrypted record means decrypting it).
   */
  public long valueLength() {
    if (!compressed) {
      return valueLength;
    }
    if (rawLength < 0) {
      byte[] src;
      int at;
      if (cipher != null) {
        ensureOpen();
        src = plain;
        at = (int) (keyOffset - offset + keyLength);
      } else {
        src = field().copy(log, keyOffset + keyLength, (int) Math.min(valueLength, 16));
        at = 0;
      }
      long v = CompressedField.lengthVarint(src, at, valueLength, dictionary);
      if (v < 0) {
        throw undecompressable();
      }
      rawLength = v >>> 8;
    }
    return rawLength;
  }

  /** The bytes the value's field takes in the record: {@link #valueLength()} unless compressed. */
  public long storedValueLength() {
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

  /** Where the key starts in {@link #data()}. */
  public long keyOffset() {
    if (cipher == null) {
      return keyOffset;
    }
    ensureOpen();
    return keyOffset - offset;
  }

  /**
   * The memory {@link #valueOffset()} is an offset into: {@link #data()}, or for a compressed value
   * the view's decompressed copy (decompressing it first; valid until the view parses again).
   *
   * @throws dev.cellar.CorruptStoreException if a compressed value does not decompress
   */
  public MemorySegment valueData() {
    if (!compressed) {
      return data();
    }
    inflate();
    return field().valueData();
  }

  /** Where the value starts in {@link #valueData()}. */
  public long valueOffset() {
    if (compressed) {
      inflate();
      return 0;
    }
    return keyOffset() + keyLength;
  }

  /**
   * The memory the value's stored field is in ({@link #data()}), and where it starts there: for a
   * compressed value, its length varint and frame as stored. For copying a record's field as it is.
   */
  public long storedValueOffset() {
    return keyOffset() + keyLength;
  }

  /** Total bytes of the record. */
  public long length() {
    return length;
  }

  public MemorySegment key() {
    return data().asSlice(keyOffset(), keyLength);
  }

  public MemorySegment value() {
    if (compressed) {
      inflate();
      return field().valueData().asSlice(0, rawLength);
    }
    return data().asSlice(keyOffset() + keyLength, valueLength);
  }

  /** Whether this record's key equals {@code key}. */
  public boolean keyEquals(MemorySegment key) {
    return keyEquals(key, 0, key.byteSize());
  }

  /**
   * Whether this record's key equals the {@code length} bytes of {@code source} from {@code
   * offset}.
   */
  public boolean keyEquals(MemorySegment source, long offset, long length) {
    if (length != keyLength) {
      return false;
    }
    if (cipher != null) {
      long at = keyOffset();
      return MemorySegment.mismatch(plainData, at, at + keyLength, source, offset, offset + length)
          == -1;
    }
    return MemorySegment.mismatch(
            log, keyOffset, keyOffset + keyLength, source, offset, offset + length)
        == -1;
  }
}
