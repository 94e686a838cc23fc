package dev.cellar.bench.atrest;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import com.github.luben.zstd.ZstdDictDecompress;

/**
 * zstd frames for one record each, from zstd-jni with reused contexts, with or without a
 * dictionary: the per-record candidates of the compression design.
 *
 * <p>Frames are written without the magic number and without a dictionary ID (zstd's "magicless"
 * format): a log record already says what its value is, so those 4 + 4 bytes would be paid on every
 * record for nothing, and on a 1 KB document that compresses to 300 bytes they are 2% to 3% of it.
 * The content size stays in the frame header, so the reader knows the output's length. No checksum:
 * the record's CRC32C covers the stored bytes.
 *
 * <p>The dictionary is digested once into a {@link ZstdDictCompress} and a {@link
 * ZstdDictDecompress} and referenced by the contexts, as an engine would keep it loaded per store,
 * not handed over as bytes on every call (which would rebuild its tables each time).
 */
final class ZstdRecordCodec implements Compression {
  private final int level;
  private final int dictionaryBytes;
  private final ZstdCompressCtx compressor;
  private final ZstdDecompressCtx decompressor;

  /** zstd at {@code level} with the trained {@code dictionary}, or none when it is null. */
  ZstdRecordCodec(int level, byte[] dictionary) {
    this.level = level;
    this.dictionaryBytes = dictionary == null ? 0 : dictionary.length;
    compressor = new ZstdCompressCtx().setLevel(level).setMagicless(true).setDictID(false);
    decompressor = new ZstdDecompressCtx().setMagicless(true);
    if (dictionary != null) {
      compressor.loadDict(new ZstdDictCompress(dictionary, level));
      decompressor.loadDict(new ZstdDictDecompress(dictionary));
    }
  }

  /** The dictionary's size, 0 without one. */
  int dictionaryBytes() {
    return dictionaryBytes;
  }

  @Override
  public String codec() {
    return "zstd-" + level + (dictionaryBytes == 0 ? "" : " dict " + (dictionaryBytes >> 10) + "K");
  }

  @Override
  public String library() {
    return "zstd-jni " + ZstdCompressCtx.class.getPackage().getImplementationVersion();
  }

  @Override
  public int maxCompressedLength(int length) {
    return (int) Zstd.compressBound(length);
  }

  @Override
  public int compress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
    return compressor.compressByteArray(out, outOff, outLen, in, inOff, inLen);
  }

  @Override
  public int decompress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
    return decompressor.decompressByteArray(out, outOff, outLen, in, inOff, inLen);
  }
}
