package dev.cellar.store;

import dev.cellar.CellarOptions;
import dev.cellar.compress.DictionarySampler;
import dev.cellar.compress.ValueDictionary;
import dev.cellar.io.FileIO;
import dev.cellar.log.RecordDescriptor;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentCipher;
import dev.cellar.log.SegmentHeaderDescriptor;
import dev.cellar.log.SegmentTable;
import dev.cellar.log.Varint;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * The segments one compaction pass writes, and how a record is written into them: verbatim when the
 * output stores it as its segment did, else decoded and encoded anew, encrypted with the output's
 * key if the store has keys, and with its value compressed against the pass's dictionary if the
 * store compresses and compressing pays.
 *
 * <p>A record is compressed here, off the request path, or never: the log holds values as they were
 * written, and compaction is what rewrites them. A value already compressed with the pass's own
 * dictionary keeps its frame (only re-encrypted, if its file's key differs); one compressed
 * otherwise is decompressed and compressed again.
 *
 * <p>Outputs are written under a temporary name and registered in the segment table as they are
 * created (keys are pointed at copies as they are made); {@link #publish} seals and renames them,
 * {@link #discard} takes them back. Not thread-safe: one per pass.
 */
final class CompactionOutputs {
  private static final long RESERVE_CHUNK = 4L << 20;

  private final FileIO io;
  private final Path directory;
  private final SegmentTable segments;
  private final AtomicLong segmentIds;
  private final CellarOptions options;

  /** The dictionary this pass compresses with; null: values are written uncompressed. */
  private final ValueDictionary dictionary;

  private final List<Segment> outputs = new ArrayList<>();
  private final CRC32C crc = new CRC32C();
  private Segment output;
  private long outputTail;

  /** End of the blocks reserved in {@code output}; at least {@link #outputTail}. */
  private long outputReserved;

  private byte[] encodeScratch = new byte[4096];
  private byte[] valueScratch = new byte[4096];
  private byte[] fieldScratch = new byte[4096];

  /** The length of the record {@link #copy} wrote last. */
  private long lastLength;

  CompactionOutputs(
      FileIO io,
      Path directory,
      SegmentTable segments,
      AtomicLong segmentIds,
      CellarOptions options,
      ValueDictionary dictionary) {
    this.io = io;
    this.directory = directory;
    this.segments = segments;
    this.segmentIds = segmentIds;
    this.options = options;
    this.dictionary = dictionary;
  }

  /** The outputs so far, in the order made; an output's index here is its number in the pass. */
  List<Segment> all() {
    return outputs;
  }

  /** The index of the output written last. */
  int currentIndex() {
    return outputs.size() - 1;
  }

  /** The length of the record {@link #copy} wrote last. */
  long lastLength() {
    return lastLength;
  }

  /**
   * Writes {@code record} into the current output (a new one if it does not fit); returns its
   * offset there, its length in {@link #lastLength()}.
   */
  long copy(MemorySegment from, RecordView record) throws IOException {
    boolean sameFrame = record.compressed() && dictionary != null && sameDictionary(record);
    if (record.isDelete() || sameFrame || (!record.compressed() && dictionary == null)) {
      if (!record.encrypted() && options.encryptionKeys() == null) {
        return verbatim(from, record);
      }
      // The stored field as it is: a frame of this pass's dictionary, or an uncompressed value.
      return reencode(
          record,
          record.data(),
          record.storedValueOffset(),
          record.storedValueLength(),
          record.type() | (sameFrame ? RecordDescriptor.COMPRESSED_BIT : 0));
    }
    MemorySegment value = record.valueData();
    long valueOffset = record.valueOffset();
    int raw = (int) record.valueLength();
    int field = dictionary == null ? -1 : compress(value, valueOffset, raw);
    if (field > 0) {
      return reencode(
          record,
          MemorySegment.ofArray(fieldScratch),
          0,
          field,
          record.type() | RecordDescriptor.COMPRESSED_BIT);
    }
    return reencode(record, value, valueOffset, raw, record.type());
  }

  private boolean sameDictionary(RecordView record) {
    // A view parsed from a segment carries that segment's dictionary; the shared instance per id
    // makes identity the test.
    return record.dictionaryIs(dictionary);
  }

  /**
   * Compresses the value into {@link #fieldScratch} as a compressed field ({@code varint(raw) ||
   * frame}); returns the field's length, or -1 when that is not shorter than the value.
   */
  private int compress(MemorySegment value, long offset, int raw) {
    if (raw < DictionarySampler.MIN_VALUE_BYTES) {
      return -1;
    }
    // Onto the heap first: the native call must not hold a mapping (see RecordView#inflate).
    byte[] src = valueScratch = grow(valueScratch, raw);
    MemorySegment.copy(value, ValueLayout.JAVA_BYTE, offset, src, 0, raw);
    int at = 0;
    int prefix = Varint.size(raw);
    int room = raw - prefix - 1;
    if (room <= 0) {
      return -1;
    }
    fieldScratch = grow(fieldScratch, raw);
    int frame = dictionary.compress(src, at, raw, fieldScratch, prefix, room);
    if (frame < 0) {
      return -1;
    }
    Varint.write(fieldScratch, 0, raw);
    return prefix + frame;
  }

  private static byte[] grow(byte[] a, long n) {
    return a.length >= n ? a : new byte[(int) Math.max(n, 2L * a.length)];
  }

  /** Copies a record between plaintext segments byte for byte: its CRC stays valid. */
  private long verbatim(MemorySegment from, RecordView record) throws IOException {
    long length = record.length();
    ensureOutput(length);
    long offset = outputTail;
    MemorySegment.copy(from, record.offset(), output.memory(), offset, length);
    return advance(record, offset, length);
  }

  /** Encodes {@code record} anew with the value field {@code field[at, at + n)}. */
  private long reencode(RecordView record, MemorySegment field, long at, long n, int typeByte)
      throws IOException {
    long length =
        RecordDescriptor.length(record.keyLength(), n, record.seq(), record.expireAt() != 0)
            + (options.encryptionKeys() != null ? SegmentCipher.TAG_BYTES : 0);
    ensureOutput(length);
    long offset = outputTail;
    byte[] encoded = encodeScratch = grow(encodeScratch, length);
    MemorySegment keys = record.data();
    RecordDescriptor.encode(
        encoded,
        typeByte,
        keys,
        record.keyOffset(),
        record.keyLength(),
        field,
        at,
        n,
        record.seq(),
        record.expireAt(),
        output.cipher(),
        offset,
        crc);
    MemorySegment.copy(encoded, 0, output.memory(), ValueLayout.JAVA_BYTE, offset, (int) length);
    return advance(record, offset, length);
  }

  private long advance(RecordView record, long offset, long length) {
    outputTail += length;
    output.end(outputTail);
    output.noteSeq(record.seq());
    if (record.expireAt() != 0 && !record.isDelete()) {
      output.addTtl(length, record.expireAt());
    }
    lastLength = length;
    return offset;
  }

  /** Writes a tombstone in place of {@code record} (expired); returns its offset. */
  long writeTombstone(RecordView record) throws IOException {
    long length =
        RecordDescriptor.length(record.keyLength(), 0, record.seq(), false)
            + (options.encryptionKeys() != null ? SegmentCipher.TAG_BYTES : 0);
    ensureOutput(length);
    long offset = outputTail;
    RecordDescriptor.write(
        output.memory(),
        offset,
        RecordDescriptor.DELETE,
        record.key(),
        null,
        record.seq(),
        0,
        output.cipher());
    outputTail += length;
    output.end(outputTail);
    output.noteSeq(record.seq());
    return offset;
  }

  private void ensureOutput(long length) throws IOException {
    if (output != null && outputTail + length <= options.segmentBytes()) {
      reserveOutput(length);
      return;
    }
    long id = segmentIds.incrementAndGet();
    Path temp = directory.resolve(Segment.fileName(id) + ".tmp");
    output =
        Segment.create(
            io,
            temp,
            id,
            SegmentHeaderDescriptor.KIND_COMPACTED,
            options.segmentBytes(),
            System.currentTimeMillis(),
            true,
            options.encryptionKeys() == null
                ? null
                : SegmentCipher.create(options.encryptionKeys(), Segment.fileName(id)),
            dictionary,
            dictionary == null ? 0 : dictionary.samples(),
            // Outputs are sealed before anything is acknowledged from them: with io direct they
            // are written with O_DIRECT, under every fsync mode.
            options.io() == dev.cellar.IoMode.DIRECT);
    output.passOutput(true);
    outputs.add(output);
    // Registered now, for a slot: keys are pointed at copies here as they are made.
    segments.add(output);
    outputTail = output.dataStart();
    outputReserved = outputTail;
    reserveOutput(length);
  }

  /**
   * Keeps blocks reserved ahead of the output's tail, a chunk at a time: a reservation is a system
   * call or two (posix_fallocate opens the file by path), far too many per copied record. Sealing
   * truncates the file to its length, which gives back the unused rest.
   */
  private void reserveOutput(long length) throws IOException {
    if (outputTail + length <= outputReserved) {
      return;
    }
    long target =
        Math.min(
            options.segmentBytes(), Math.max(outputTail + length, outputReserved) + RESERVE_CHUNK);
    output.reserve(outputReserved, target);
    outputReserved = target;
  }

  /** Seals and renames every output, then makes the directory durable. */
  void publish() throws IOException {
    for (Segment s : outputs) {
      s.seal();
      s.rename(io, directory.resolve(Segment.fileName(s.id())));
    }
    if (!outputs.isEmpty()) {
      io.syncDirectory(directory);
    }
  }

  /**
   * Unregisters, closes and deletes every output (the pass failed, and nothing refers to them any
   * more); deletion failures are added to {@code failure}.
   */
  void discard(Exception failure) {
    for (Segment s : outputs) {
      // Out of the table before unmapping: a reader that meets the unmapped copy then retries.
      segments.remove(s);
      s.close();
      try {
        io.delete(s.path());
      } catch (IOException e) {
        failure.addSuppressed(e);
      }
    }
    outputs.clear();
    output = null;
  }
}
