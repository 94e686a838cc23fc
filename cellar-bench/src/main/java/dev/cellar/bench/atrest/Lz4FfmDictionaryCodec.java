package dev.cellar.bench.atrest;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * LZ4 with a dictionary through FFM, over the liblz4 that aircompressor-v3 bundles (whose API takes
 * no dictionary either): LZ4's decompression speed with matches into the store's own data. LZ4 has
 * no entropy coder, so it uses the dictionary only as earlier text to copy from; the zstd-trained
 * dictionary serves as that text (its header and tables are bytes LZ4 rarely matches, its content
 * is what it finds).
 *
 * <p>Compression resets a working stream and attaches the dictionary's stream to it ({@code
 * LZ4_attach_dictionary}, which references the dictionary's hash table rather than copying or
 * rebuilding it), then compresses the record as one block. Decompression is {@code
 * LZ4_decompress_safe_usingDict}, which needs the dictionary's bytes only. One stream per codec:
 * this class is not thread-safe, as a compactor's own codec need not be.
 */
final class Lz4FfmDictionaryCodec implements Compression {
  private static final BundledLibrary LZ4 = BundledLibrary.open("lz4");
  private static final MethodHandle CREATE_STREAM =
      LZ4.function("LZ4_createStream", FunctionDescriptor.of(ValueLayout.ADDRESS));
  private static final MethodHandle LOAD_DICT =
      LZ4.function(
          "LZ4_loadDict",
          FunctionDescriptor.of(
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT));
  private static final MethodHandle RESET_FAST =
      LZ4.function("LZ4_resetStream_fast", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
  private static final MethodHandle ATTACH =
      LZ4.function(
          "LZ4_attach_dictionary",
          FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
  private static final MethodHandle COMPRESS_CONTINUE =
      LZ4.function(
          "LZ4_compress_fast_continue",
          FunctionDescriptor.of(
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT),
          Linker.Option.critical(true));
  private static final MethodHandle DECOMPRESS_USING_DICT =
      LZ4.function(
          "LZ4_decompress_safe_usingDict",
          FunctionDescriptor.of(
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT),
          Linker.Option.critical(true));
  private static final MethodHandle COMPRESS_BOUND =
      LZ4.function(
          "LZ4_compressBound", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
  private static final MethodHandle VERSION =
      LZ4.function("LZ4_versionString", FunctionDescriptor.of(ValueLayout.ADDRESS));

  private final MemorySegment dictionary;
  private final MemorySegment dictionaryStream;
  private final MemorySegment stream;

  Lz4FfmDictionaryCodec(byte[] dictionary) {
    this.dictionary = Arena.global().allocate(dictionary.length);
    MemorySegment.copy(dictionary, 0, this.dictionary, ValueLayout.JAVA_BYTE, 0, dictionary.length);
    try {
      dictionaryStream = (MemorySegment) CREATE_STREAM.invokeExact();
      stream = (MemorySegment) CREATE_STREAM.invokeExact();
      if (dictionaryStream.equals(MemorySegment.NULL) || stream.equals(MemorySegment.NULL)) {
        throw new IllegalStateException("liblz4 could not make a stream");
      }
      int loaded =
          (int) LOAD_DICT.invokeExact(dictionaryStream, this.dictionary, dictionary.length);
      if (loaded <= 0) {
        throw new IllegalStateException(
            "LZ4_loadDict took " + loaded + " of the dictionary's " + dictionary.length + " bytes");
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Override
  public String codec() {
    return "lz4 dict " + (dictionary.byteSize() >> 10) + "K ffm";
  }

  @Override
  public String library() {
    try {
      String version = ((MemorySegment) VERSION.invokeExact()).reinterpret(32).getString(0);
      return "liblz4 " + version + " (aircompressor-v3's) via FFM";
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Override
  public int maxCompressedLength(int length) {
    try {
      return (int) COMPRESS_BOUND.invokeExact(length);
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Override
  public int compress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
    try {
      RESET_FAST.invokeExact(stream);
      ATTACH.invokeExact(stream, dictionaryStream);
      int n =
          (int)
              COMPRESS_CONTINUE.invokeExact(
                  stream,
                  MemorySegment.ofArray(in).asSlice(inOff, inLen),
                  MemorySegment.ofArray(out).asSlice(outOff, outLen),
                  inLen,
                  outLen,
                  1);
      if (n <= 0) {
        throw new IllegalStateException(
            "LZ4_compress_fast_continue failed on " + inLen + " bytes into " + outLen);
      }
      return n;
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Override
  public int decompress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
    try {
      int n =
          (int)
              DECOMPRESS_USING_DICT.invokeExact(
                  MemorySegment.ofArray(in).asSlice(inOff, inLen),
                  MemorySegment.ofArray(out).asSlice(outOff, outLen),
                  inLen,
                  outLen,
                  dictionary,
                  (int) dictionary.byteSize());
      if (n < 0) {
        throw new IllegalStateException(
            "LZ4_decompress_safe_usingDict: malformed input of " + inLen + " bytes (" + n + ")");
      }
      return n;
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
