package dev.cellar.compress;

import dev.cellar.Compression;
import dev.cellar.log.CodecBlockDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.Arrays;

/**
 * A codec and the dictionary its values are compressed against: what a compressed segment names in
 * its codec block, and what compresses and decompresses one value at a time.
 *
 * <p>The dictionary's native forms (zstd's digested CDict and DDict, LZ4's dictionary stream and
 * bytes) are made on first use and freed by a {@link Cleaner} once nothing refers to this object:
 * not when a store closes, because a reader that is still decompressing when it does would then
 * read freed memory. Each native call keeps this object reachable until it returns ({@link
 * Reference#reachabilityFence}).
 *
 * <p>Thread-safe: every segment compressed with one dictionary shares one instance, read by any
 * number of threads at once.
 */
public final class ValueDictionary {
  private static final Cleaner CLEANER = Cleaner.create();

  /**
   * The size of dictionary a store trains for {@code codec} (the compression-design measurements:
   * 64 KiB for LZ4, which only copies from it, 16 KiB for zstd), within what a segment of {@code
   * segmentBytes} may hold.
   */
  public static int trainedBytes(Compression codec, long segmentBytes) {
    int wanted = codec == Compression.LZ4 ? 64 << 10 : 16 << 10;
    return Math.min(wanted, CodecBlockDescriptor.maxDictionaryBytes(segmentBytes));
  }

  private final long id;
  private final Compression codec;
  private final byte[] bytes;
  private final int samples;
  private volatile Natives natives;

  /**
   * @param id the dictionary's identity: segments with the same id share one instance
   * @param codec {@link Compression#LZ4} or {@link Compression#ZSTD}
   * @param bytes the dictionary (empty: values are compressed without one)
   * @param samples how many values it was trained on
   */
  public ValueDictionary(long id, Compression codec, byte[] bytes, int samples) {
    if (codec == Compression.NONE) {
      throw new IllegalArgumentException("a dictionary is of a codec, not of none");
    }
    this.id = id;
    this.codec = codec;
    this.bytes = bytes.clone();
    this.samples = samples;
  }

  /** How many values the dictionary was trained on. */
  public int samples() {
    return samples;
  }

  public long id() {
    return id;
  }

  public Compression codec() {
    return codec;
  }

  /** The dictionary's bytes (a copy). */
  public byte[] bytes() {
    return bytes.clone();
  }

  public int length() {
    return bytes.length;
  }

  /** Whether {@code other} holds the same codec and dictionary bytes. */
  public boolean sameAs(Compression otherCodec, byte[] otherBytes) {
    return codec == otherCodec && Arrays.equals(bytes, otherBytes);
  }

  /** The largest a value of {@code length} bytes can compress to. */
  public int maxCompressedLength(int length) {
    return codec == Compression.LZ4 ? Lz4.compressBound(length) : Zstd.compressBound(length);
  }

  /** zstd's largest block: a frame holds as many blocks as it needs, each at most this. */
  private static final long ZSTD_MAX_BLOCK_BYTES = 128 << 10;

  /**
   * The most a frame of {@code frameLength} bytes of {@code codec} can decompress to. A compressed
   * field states its value's length before the frame, and a reader checks that claim against this
   * before it allocates for the value: without it, a damaged or forged field of a few bytes could
   * claim a gibibyte. LZ4 makes at most 255 bytes of one (a match grows by 255 per extra length
   * byte, and takes a token and an offset besides); zstd at most one block of 128 KiB of four bytes
   * (a 3-byte block header and an RLE byte), after a frame header of at least one.
   */
  public static long maxDecompressedLength(Compression codec, int frameLength) {
    if (frameLength <= 0) {
      return 0;
    }
    return codec == Compression.LZ4
        ? 255L * frameLength
        : (frameLength / 4 + 1) * ZSTD_MAX_BLOCK_BYTES;
  }

  /**
   * Compresses {@code src[off, off + len)} into {@code dst} from {@code dstOff}, in at most {@code
   * dstCap} bytes; returns the compressed length, or -1 if it does not fit there (a caller that
   * gives the room the value itself takes learns that compressing it does not pay).
   */
  public int compress(byte[] src, int off, int len, byte[] dst, int dstOff, int dstCap) {
    java.util.Objects.checkFromIndexSize(off, len, src.length);
    java.util.Objects.checkFromIndexSize(dstOff, dstCap, dst.length);
    Natives n = natives();
    try {
      return codec == Compression.LZ4
          ? Lz4.compress(src, off, len, dst, dstOff, dstCap, n.lz4Stream)
          : Zstd.compress(src, off, len, dst, dstOff, dstCap, n.cdict);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Decompresses {@code src[off, off + len)} into exactly {@code dstLen} bytes of {@code dst} from
   * {@code dstOff}; returns false if the bytes are not a value this dictionary compressed to that
   * length (damage the CRC missed, or the wrong dictionary). Total over arbitrary input.
   */
  public boolean decompress(byte[] src, int off, int len, byte[] dst, int dstOff, int dstLen) {
    java.util.Objects.checkFromIndexSize(off, len, src.length);
    java.util.Objects.checkFromIndexSize(dstOff, dstLen, dst.length);
    if (len == 0) {
      return false;
    }
    Natives n = natives();
    try {
      return codec == Compression.LZ4
          ? Lz4.decompress(src, off, len, dst, dstOff, dstLen, n.lz4Bytes)
          : Zstd.decompress(src, off, len, dst, dstOff, dstLen, n.ddict);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  private Natives natives() {
    Natives n = natives;
    if (n == null) {
      synchronized (this) {
        n = natives;
        if (n == null) {
          n = new Natives(codec, bytes);
          CLEANER.register(this, n);
          natives = n;
        }
      }
    }
    return n;
  }

  /** The native forms, and their release: refers to nothing of the dictionary object. */
  private static final class Natives implements Runnable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment lz4Bytes;
    private final MemorySegment lz4Stream;
    private final MemorySegment cdict;
    private final MemorySegment ddict;

    Natives(Compression codec, byte[] bytes) {
      MemorySegment copy = MemorySegment.NULL;
      if (bytes.length > 0) {
        copy = arena.allocate(bytes.length);
        MemorySegment.copy(bytes, 0, copy, ValueLayout.JAVA_BYTE, 0, bytes.length);
      }
      if (codec == Compression.LZ4) {
        lz4Bytes = copy;
        lz4Stream = bytes.length == 0 ? MemorySegment.NULL : Lz4.dictionaryStream(copy);
        cdict = MemorySegment.NULL;
        ddict = MemorySegment.NULL;
      } else {
        lz4Bytes = MemorySegment.NULL;
        lz4Stream = MemorySegment.NULL;
        cdict = bytes.length == 0 ? MemorySegment.NULL : Zstd.createCDict(copy);
        ddict = bytes.length == 0 ? MemorySegment.NULL : Zstd.createDDict(copy);
      }
    }

    @Override
    public void run() {
      if (!lz4Stream.equals(MemorySegment.NULL)) {
        Lz4.freeStream(lz4Stream);
      }
      if (!cdict.equals(MemorySegment.NULL)) {
        Zstd.freeCDict(cdict);
      }
      if (!ddict.equals(MemorySegment.NULL)) {
        Zstd.freeDDict(ddict);
      }
      arena.close();
    }
  }
}
