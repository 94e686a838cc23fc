package dev.cellar.bench.atrest;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import io.airlift.compress.v3.lz4.Lz4NativeCompressor;
import io.airlift.compress.v3.lz4.Lz4NativeDecompressor;
import io.airlift.compress.v3.zstd.ZstdNativeCompressor;
import io.airlift.compress.v3.zstd.ZstdNativeDecompressor;

/**
 * A compressor and its decompressor over byte arrays, as one library offers them; the codec
 * benchmark's compression rows.
 *
 * <p>aircompressor-v3 is asked for its native codecs by name, never through {@code
 * ZstdCompressor.create()}: that falls back to the pure-Java codecs, which use {@code
 * sun.misc.Unsafe}, when the bundled library does not load. A benchmark that silently measured the
 * fallback would judge a codec the engine may not use. Its native zstd calls {@code ZSTD_compress},
 * which sets a compression context up and tears it down on every call; zstd-jni's {@code
 * ZstdCompressCtx} keeps one, as an engine that owns its compressor would.
 */
interface Compression {
  int ZSTD_LEVEL = 3;

  /** The format and its setting, such as {@code zstd-3}. */
  String codec();

  /** The library and its version. */
  String library();

  int maxCompressedLength(int length);

  int compress(byte[] in, int inOffset, int inLength, byte[] out, int outOffset, int outLength);

  int decompress(byte[] in, int inOffset, int inLength, byte[] out, int outOffset, int outLength);

  /** zstd at level 3 from aircompressor-v3: the bundled libzstd through FFM. */
  static Compression aircompressorZstd() {
    if (!ZstdNativeCompressor.isEnabled()) {
      throw new IllegalStateException(
          "aircompressor-v3's native zstd did not load on "
              + System.getProperty("os.name")
              + "/"
              + System.getProperty("os.arch")
              + ": run the JVM with --enable-native-access=ALL-UNNAMED on a platform it bundles");
    }
    ZstdNativeCompressor compressor = new ZstdNativeCompressor(ZSTD_LEVEL);
    ZstdNativeDecompressor decompressor = new ZstdNativeDecompressor();
    return new Compression() {
      @Override
      public String codec() {
        return "zstd-" + ZSTD_LEVEL;
      }

      @Override
      public String library() {
        return "aircompressor-v3 " + version(ZstdNativeCompressor.class);
      }

      @Override
      public int maxCompressedLength(int length) {
        return compressor.maxCompressedLength(length);
      }

      @Override
      public int compress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
        return compressor.compress(in, inOff, inLen, out, outOff, outLen);
      }

      @Override
      public int decompress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
        return decompressor.decompress(in, inOff, inLen, out, outOff, outLen);
      }
    };
  }

  /** zstd at level 3 from zstd-jni, the reference C library over JNI, with reused contexts. */
  static Compression zstdJni() {
    ZstdCompressCtx compressor = new ZstdCompressCtx().setLevel(ZSTD_LEVEL);
    ZstdDecompressCtx decompressor = new ZstdDecompressCtx();
    return new Compression() {
      @Override
      public String codec() {
        return "zstd-" + ZSTD_LEVEL;
      }

      @Override
      public String library() {
        return "zstd-jni " + version(ZstdCompressCtx.class);
      }

      @Override
      public int maxCompressedLength(int length) {
        return (int) com.github.luben.zstd.Zstd.compressBound(length);
      }

      @Override
      public int compress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
        return compressor.compressByteArray(out, outOff, outLen, in, inOff, inLen);
      }

      @Override
      public int decompress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
        return decompressor.decompressByteArray(out, outOff, outLen, in, inOff, inLen);
      }
    };
  }

  /** LZ4 (the block format, default acceleration) from aircompressor-v3: liblz4 through FFM. */
  static Compression aircompressorLz4() {
    if (!Lz4NativeCompressor.isEnabled()) {
      throw new IllegalStateException(
          "aircompressor-v3's native LZ4 did not load on "
              + System.getProperty("os.name")
              + "/"
              + System.getProperty("os.arch")
              + ": run the JVM with --enable-native-access=ALL-UNNAMED on a platform it bundles");
    }
    Lz4NativeCompressor compressor = new Lz4NativeCompressor();
    Lz4NativeDecompressor decompressor = new Lz4NativeDecompressor();
    return new Compression() {
      @Override
      public String codec() {
        return "lz4";
      }

      @Override
      public String library() {
        return "aircompressor-v3 " + version(Lz4NativeCompressor.class);
      }

      @Override
      public int maxCompressedLength(int length) {
        return compressor.maxCompressedLength(length);
      }

      @Override
      public int compress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
        return compressor.compress(in, inOff, inLen, out, outOff, outLen);
      }

      @Override
      public int decompress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
        return decompressor.decompress(in, inOff, inLen, out, outOff, outLen);
      }
    };
  }

  /** The version in the manifest of the jar that holds {@code type}. */
  private static String version(Class<?> type) {
    String version = type.getPackage().getImplementationVersion();
    return version == null ? "(version unknown)" : version;
  }
}
