package dev.cellar.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cellar.Compression;
import dev.cellar.CorruptStoreException;
import dev.cellar.compress.Dictionaries;
import dev.cellar.compress.ValueDictionary;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target for compressed values: arbitrary bytes, read either as the records region of a
 * compressed segment (plaintext or encrypted, zstd or LZ4, against a fixed dictionary) or as a
 * whole segment file with its header, cipher block and codec block. Reading them may end only in
 * the documented ways: a record that does not parse, a {@link CorruptStoreException} for a value
 * that does not decompress, an {@link IllegalArgumentException} from {@link
 * CodecBlockDescriptor#read} for a damaged codec block. Nothing else is thrown, nothing is
 * allocated in proportion to a length the bytes merely claim (a compressed value's length is
 * bounded by what its frame could decompress to), and a record the test compressed honestly, read
 * against the dictionary it was compressed with, gives back exactly the value it was made from.
 *
 * <p>The first byte chooses the reading: bits 0-1 are 0 for plaintext records, 1 for encrypted
 * records, 2 or 3 for a whole segment; bit 2 picks LZ4 over zstd for records. Bit 3 makes the
 * harness restamp the CRCs of whatever parses as a plaintext record or codec block before reading:
 * a fuzzer cannot forge a CRC32C, and without this it would never get past the checksums to the
 * decompressor and the length varint, which a damaged disk or a hostile file can reach (CRCs catch
 * accidents, not forgeries). An encrypted record's tag still refuses forged contents. The seeds are
 * records and segments the test writes itself, with compressed and uncompressed PUTs, an expiring
 * PUT and a DELETE; the fuzzer mutates them.
 */
class CompressedRecordFuzzTest {
  /** Where the records of the records-only readings start (any offset: it is also the nonce). */
  private static final long BASE = 1024;

  private static final SegmentCipher CIPHER =
      SegmentCipher.of(3, new byte[CipherBlockDescriptor.SALT_BYTES], new byte[32], "fuzz");

  private static final ValueDictionary ZSTD = dictionary(Compression.ZSTD, 0x5A);
  private static final ValueDictionary LZ4 = dictionary(Compression.LZ4, 0x14);

  /**
   * No codec makes more than this of one byte of frame: zstd at its most (a 4-byte RLE block of 128
   * KiB) makes 32 KiB, LZ4 255 bytes. Twice zstd's, so that the bound is the test's, not a copy of
   * the engine's.
   */
  private static final long MAX_RATIO = 64 << 10;

  /**
   * A record the test wrote at {@code offset}: its stored bytes, its codec and whether encrypted,
   * and the value it holds.
   */
  private record Written(
      long offset, boolean encrypted, Compression codec, byte[] record, byte[] value) {}

  /** The seed values; a DELETE follows them. Compressible ones are written compressed. */
  private static final String[] VALUES = {
    "{\"user\":1001,\"name\":\"Ada\",\"roles\":[\"admin\",\"ops\"],\"active\":true}",
    "short",
    "{\"user\":1002,\"name\":\"Grace\",\"roles\":[\"dev\"],\"active\":false}".repeat(40),
    "{\"user\":1003,\"name\":\"Linus\",\"roles\":[],\"active\":true}",
  };

  private static final Map<Long, List<Written>> WRITTEN = new HashMap<>();

  private static final List<byte[]> SEEDS = new ArrayList<>();

  static {
    for (int mode = 0; mode < 16; mode++) {
      Compression codec = (mode & 4) != 0 ? Compression.LZ4 : Compression.ZSTD;
      switch (mode & 3) {
        case 0 -> SEEDS.add(withMode(mode, recordsSeed(codec, null)));
        case 1 -> SEEDS.add(withMode(mode, recordsSeed(codec, CIPHER)));
        case 2 -> SEEDS.add(withMode(mode, segmentSeed(codec, null)));
        default -> SEEDS.add(withMode(mode, segmentSeed(codec, CIPHER)));
      }
    }
  }

  static Stream<byte[]> inputs() {
    return SEEDS.stream();
  }

  @MethodSource("inputs")
  @FuzzTest(maxDuration = "15s")
  void readsOnlyWhatWasCompressed(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int mode = input[0] & 0xFF;
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    boolean restamp = (mode & 8) != 0;
    if ((mode & 2) != 0) {
      readSegment(bytes, restamp);
      return;
    }
    byte[] region = new byte[(int) BASE + bytes.length];
    System.arraycopy(bytes, 0, region, (int) BASE, bytes.length);
    MemorySegment memory = MemorySegment.ofArray(region);
    if (restamp) {
      restampRecords(memory, BASE);
    }
    ValueDictionary dictionary = (mode & 4) != 0 ? LZ4 : ZSTD;
    scan(memory, (mode & 1) != 0 ? CIPHER : null, dictionary, BASE);
  }

  private static final ValueLayout.OfInt INT_LE =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

  /** Gives every run of bytes from {@code start} that parses as a plaintext record a valid CRC. */
  private static void restampRecords(MemorySegment memory, long start) {
    RecordView view = new RecordView();
    long p = start;
    while (p < memory.byteSize()) {
      if (view.parse(memory, p, memory.byteSize())) {
        int covered = RecordDescriptor.TYPE_OFFSET;
        memory.set(INT_LE, p, Crc32c.masked(memory, p + covered, view.length() - covered));
        p += view.length();
      } else {
        p++;
      }
    }
  }

  /** Gives the codec block a valid CRC, if its dictionary length leaves it inside the segment. */
  private static void restampCodecBlock(MemorySegment memory, int blockOffset, int dataStart) {
    int tag = SegmentHeaderDescriptor.isEncrypted(memory) ? SegmentCipher.TAG_BYTES : 0;
    if (dataStart - blockOffset < CodecBlockDescriptor.length(0, tag)) {
      return;
    }
    int dictLength = memory.get(INT_LE, blockOffset + CodecBlockDescriptor.DICT_LENGTH_OFFSET);
    if (dictLength < 0 || dictLength > dataStart - blockOffset) {
      return;
    }
    int crcAt = blockOffset + CodecBlockDescriptor.length(dictLength, tag) - 4;
    if (crcAt + 4 <= dataStart) {
      memory.set(INT_LE, crcAt, Crc32c.masked(memory, blockOffset, crcAt - blockOffset));
    }
  }

  /**
   * Reads {@code file} as a segment the way recovery does: header, cipher, codec block, records.
   */
  private static void readSegment(byte[] file, boolean restamp) {
    if (file.length < SegmentHeaderDescriptor.LENGTH) {
      return;
    }
    MemorySegment memory = MemorySegment.ofArray(file);
    if (SegmentHeaderDescriptor.validate(memory, "fuzz") != null) {
      return;
    }
    SegmentCipher cipher = SegmentHeaderDescriptor.isEncrypted(memory) ? CIPHER : null;
    int start = SegmentHeaderDescriptor.dataStart(memory);
    if (restamp) {
      if (SegmentHeaderDescriptor.isCompressed(memory)) {
        restampCodecBlock(memory, SegmentHeaderDescriptor.codecBlockOffset(memory), start);
      }
      if (cipher == null) {
        restampRecords(memory, start);
      }
    }
    ValueDictionary dictionary = null;
    if (SegmentHeaderDescriptor.isCompressed(memory)) {
      CodecBlockDescriptor.Block block;
      try {
        block =
            CodecBlockDescriptor.read(
                memory, SegmentHeaderDescriptor.codecBlockOffset(memory), start, cipher);
      } catch (IllegalArgumentException e) {
        return; // recovery reports the segment as damage and reads nothing of it
      }
      assertTrue(block.dictionary().length <= CodecBlockDescriptor.MAX_DICT_BYTES);
      dictionary = known(block);
    }
    scan(memory, cipher, dictionary, start);
  }

  /** The test's own instance for a block that holds one of its dictionaries, else a new one. */
  private static ValueDictionary known(CodecBlockDescriptor.Block block) {
    for (ValueDictionary d : List.of(ZSTD, LZ4)) {
      if (d.id() == block.dictId() && d.sameAs(block.codec(), block.dictionary())) {
        return d;
      }
    }
    return new Dictionaries().resolve(block);
  }

  private static void scan(
      MemorySegment memory, SegmentCipher cipher, ValueDictionary dictionary, long start) {
    for (boolean sealed : new boolean[] {true, false}) {
      SegmentScanner.scan(
          memory,
          cipher,
          dictionary,
          start,
          memory.byteSize(),
          sealed,
          false,
          null,
          -1,
          view -> check(view, cipher, dictionary));
    }
  }

  /**
   * Reads the value of an accepted record every way a reader may: its length, the view's value, and
   * a checked copy. They agree, or the value is refused as corrupt; an honest record is never
   * refused and reads back exactly.
   */
  private static void check(RecordView view, SegmentCipher cipher, ValueDictionary dictionary) {
    Written honest = honest(view, cipher, dictionary);
    if (view.isDelete()) {
      return;
    }
    try {
      long length = view.valueLength();
      if (view.compressed()) {
        assertTrue(
            length <= view.storedValueLength() * MAX_RATIO,
            "a value of "
                + length
                + " bytes claimed by a field of "
                + view.storedValueLength()
                + ": no frame of that size decompresses to it");
      }
      byte[] value = view.value().toArray(ValueLayout.JAVA_BYTE);
      assertEquals(length, value.length);
      assertArrayEquals(value, view.checkedValue(true));
      if (honest != null) {
        assertArrayEquals(honest.value(), value, "an honest record read back changed");
      }
    } catch (CorruptStoreException e) {
      assertNull(honest, "an honest record at " + view.offset() + " was refused: " + e);
      assertTrue(view.compressed() || cipher != null, "refused a plaintext value: " + e);
    }
  }

  /** What the test wrote as this very record, read against its own dictionary; or null. */
  private static Written honest(RecordView view, SegmentCipher cipher, ValueDictionary dictionary) {
    byte[] stored = view.copy();
    for (Written w : WRITTEN.getOrDefault(view.offset(), List.of())) {
      boolean sameDictionary = !view.compressed() || dictionary == of(w.codec());
      if (w.encrypted() == (cipher != null)
          && sameDictionary
          && Arrays.equals(w.record(), stored)) {
        return w;
      }
    }
    return null;
  }

  private static ValueDictionary of(Compression codec) {
    return codec == Compression.LZ4 ? LZ4 : ZSTD;
  }

  @Test
  void everySeedReadsBackWhole() {
    for (byte[] seed : SEEDS) {
      int[] compressed = {0};
      int mode = seed[0];
      byte[] bytes = Arrays.copyOfRange(seed, 1, seed.length);
      MemorySegment memory;
      long start;
      SegmentCipher cipher = (mode & 1) != 0 ? CIPHER : null;
      if ((mode & 2) != 0) {
        memory = MemorySegment.ofArray(bytes);
        assertNull(SegmentHeaderDescriptor.validate(memory, "seed"));
        start = SegmentHeaderDescriptor.dataStart(memory);
      } else {
        byte[] region = new byte[(int) BASE + bytes.length];
        System.arraycopy(bytes, 0, region, (int) BASE, bytes.length);
        memory = MemorySegment.ofArray(region);
        start = BASE;
      }
      ValueDictionary dictionary = of((mode & 4) != 0 ? Compression.LZ4 : Compression.ZSTD);
      int[] seen = {0};
      SegmentScanner.Result result =
          SegmentScanner.scan(
              memory,
              cipher,
              dictionary,
              start,
              memory.byteSize(),
              true,
              true,
              null,
              -1,
              view -> {
                Written w = honest(view, cipher, dictionary);
                assertTrue(w != null, "seed mode " + mode + " offset " + view.offset());
                seen[0]++;
                if (view.compressed()) {
                  compressed[0]++;
                  assertArrayEquals(w.value(), view.value().toArray(ValueLayout.JAVA_BYTE));
                }
              });
      assertEquals(VALUES.length + 1, seen[0], "records of seed mode " + mode);
      assertTrue(compressed[0] >= 3, "compressed records of seed mode " + mode);
    }
  }

  /** The records of one seed, starting at {@code base}: the values, then a DELETE. */
  private static byte[] records(Compression codec, SegmentCipher cipher, byte[] file, long base) {
    MemorySegment m = MemorySegment.ofArray(file);
    long at = base;
    for (int i = 0; i < VALUES.length; i++) {
      byte[] value = VALUES[i].getBytes(StandardCharsets.UTF_8);
      long expireAt = i == 3 ? 4_102_444_800_000L : 0;
      at += write(m, at, "key" + i, value, codec, cipher, 10L + i, expireAt);
    }
    at += write(m, at, "key0", null, codec, cipher, 20, 0);
    return Arrays.copyOfRange(file, 0, (int) at);
  }

  /**
   * Writes a record as compaction does: the value compressed (varint of its length, then the frame)
   * when that is shorter than the value, else as it is.
   */
  private static int write(
      MemorySegment m,
      long at,
      String key,
      byte[] value,
      Compression codec,
      SegmentCipher cipher,
      long seq,
      long expireAt) {
    MemorySegment k = MemorySegment.ofArray(key.getBytes(StandardCharsets.UTF_8));
    int type = value == null ? RecordDescriptor.DELETE : RecordDescriptor.PUT;
    byte[] field = value == null ? null : value;
    if (value != null) {
      byte[] frame = new byte[of(codec).maxCompressedLength(value.length)];
      int n = of(codec).compress(value, 0, value.length, frame, 0, frame.length);
      int prefix = Varint.size(value.length);
      if (n > 0 && prefix + n < value.length) {
        field = new byte[prefix + n];
        Varint.write(field, 0, value.length);
        System.arraycopy(frame, 0, field, prefix, n);
        type |= RecordDescriptor.COMPRESSED_BIT;
      }
    }
    int length =
        RecordDescriptor.write(
            m,
            at,
            type,
            k,
            field == null ? null : MemorySegment.ofArray(field),
            seq,
            expireAt,
            cipher);
    byte[] stored = m.asSlice(at, length).toArray(ValueLayout.JAVA_BYTE);
    WRITTEN
        .computeIfAbsent(at, o -> new ArrayList<>())
        .add(new Written(at, cipher != null, codec, stored, value == null ? new byte[0] : value));
    return length;
  }

  private static byte[] recordsSeed(Compression codec, SegmentCipher cipher) {
    byte[] region = records(codec, cipher, new byte[(int) BASE + 8192], BASE);
    return Arrays.copyOfRange(region, (int) BASE, region.length);
  }

  /** A whole compressed segment: header, cipher block if encrypted, codec block, records. */
  private static byte[] segmentSeed(Compression codec, SegmentCipher cipher) {
    ValueDictionary dictionary = of(codec);
    int blockOffset =
        cipher == null
            ? SegmentHeaderDescriptor.PLAIN_DATA_START
            : SegmentHeaderDescriptor.ENCRYPTED_DATA_START;
    int tag = RecordDescriptor.tagBytes(cipher);
    int dataStart = CodecBlockDescriptor.dataStart(blockOffset, dictionary.length(), tag);
    byte[] file = new byte[dataStart + 8192];
    MemorySegment m = MemorySegment.ofArray(file);
    SegmentHeaderDescriptor.writeOpen(
        m,
        SegmentHeaderDescriptor.KIND_COMPACTED,
        7,
        1_700_000_000_000L,
        cipher != null,
        dataStart);
    if (cipher != null) {
      cipher.writeBlock(m.asSlice(SegmentHeaderDescriptor.LENGTH, CipherBlockDescriptor.LENGTH));
    }
    byte[] block =
        CodecBlockDescriptor.encode(
            codec, dictionary.id(), dictionary.samples(), dictionary.bytes(), cipher, blockOffset);
    System.arraycopy(block, 0, file, blockOffset, block.length);
    return records(codec, cipher, file, dataStart);
  }

  private static byte[] withMode(int mode, byte[] bytes) {
    byte[] out = new byte[bytes.length + 1];
    out[0] = (byte) mode;
    System.arraycopy(bytes, 0, out, 1, bytes.length);
    return out;
  }

  /** A dictionary of JSON-ish text like the seed values: content, not a trained one. */
  private static ValueDictionary dictionary(Compression codec, long id) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      text.append("{\"user\":")
          .append(900 + i)
          .append(",\"name\":\"n")
          .append(i)
          .append("\",\"roles\":[\"dev\",\"ops\"],\"active\":")
          .append(i % 2 == 0)
          .append('}');
    }
    return new ValueDictionary(id, codec, text.toString().getBytes(StandardCharsets.UTF_8), 40);
  }
}
