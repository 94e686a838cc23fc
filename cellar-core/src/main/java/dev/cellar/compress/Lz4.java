package dev.cellar.compress;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * LZ4 blocks through FFM over the liblz4 aircompressor bundles, with a dictionary: LZ4 has no
 * entropy coder, so a dictionary is earlier text its matches may copy from, which is what gives a
 * value of a few hundred bytes something to match.
 *
 * <p>Compression resets a pooled working stream and attaches the dictionary's own stream to it
 * ({@code LZ4_attach_dictionary} references that stream's hash table rather than copying it), then
 * compresses the value as one block. Decompression needs the dictionary's bytes only ({@code
 * LZ4_decompress_safe_usingDict}), and no state at all.
 */
final class Lz4 {
  private static final int POOLED = 2 * Runtime.getRuntime().availableProcessors() + 4;

  private static final BundledLibrary LIB = BundledLibrary.open("lz4");
  private static final MethodHandle CREATE_STREAM =
      LIB.function("LZ4_createStream", FunctionDescriptor.of(ValueLayout.ADDRESS));
  private static final MethodHandle FREE_STREAM =
      LIB.function(
          "LZ4_freeStream", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
  private static final MethodHandle LOAD_DICT =
      LIB.function(
          "LZ4_loadDict",
          FunctionDescriptor.of(
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT));
  private static final MethodHandle RESET_FAST =
      LIB.function("LZ4_resetStream_fast", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
  private static final MethodHandle ATTACH =
      LIB.function(
          "LZ4_attach_dictionary",
          FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
  private static final MethodHandle COMPRESS_CONTINUE =
      LIB.function(
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
      LIB.function(
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
      LIB.function(
          "LZ4_compressBound", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

  private static final ConcurrentLinkedQueue<MemorySegment> IDLE = new ConcurrentLinkedQueue<>();
  private static final AtomicInteger POOL_SIZE = new AtomicInteger();

  private Lz4() {}

  static int compressBound(int length) {
    try {
      return (int) COMPRESS_BOUND.invokeExact(length);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * A stream holding {@code dictionary} (which must stay mapped while the stream is used), for
   * {@link #compress}; free it with {@link #freeStream}.
   */
  static MemorySegment dictionaryStream(MemorySegment dictionary) {
    try {
      MemorySegment stream = newStream();
      int loaded = (int) LOAD_DICT.invokeExact(stream, dictionary, (int) dictionary.byteSize());
      if (loaded < 0) {
        throw new IllegalStateException("LZ4_loadDict failed");
      }
      return stream;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void freeStream(MemorySegment stream) {
    try {
      int unused = (int) FREE_STREAM.invokeExact(stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Compresses {@code src[off, off + len)} into {@code dst} from {@code dstOff} (room {@code
   * dstCap}) against {@code dictionaryStream} (NULL for none); returns the block's length, or -1 if
   * it does not fit.
   */
  static int compress(
      byte[] src,
      int off,
      int len,
      byte[] dst,
      int dstOff,
      int dstCap,
      MemorySegment dictionaryStream) {
    MemorySegment stream = IDLE.poll();
    if (stream != null) {
      POOL_SIZE.decrementAndGet();
    }
    try {
      if (stream == null) {
        stream = newStream();
      }
      RESET_FAST.invokeExact(stream);
      ATTACH.invokeExact(stream, dictionaryStream);
      int n =
          (int)
              COMPRESS_CONTINUE.invokeExact(
                  stream,
                  MemorySegment.ofArray(src).asSlice(off, len),
                  MemorySegment.ofArray(dst).asSlice(dstOff, dstCap),
                  len,
                  dstCap,
                  1);
      return n <= 0 ? -1 : n;
    } catch (Throwable t) {
      throw rethrow(t);
    } finally {
      if (stream != null) {
        if (POOL_SIZE.incrementAndGet() <= POOLED) {
          IDLE.add(stream);
        } else {
          POOL_SIZE.decrementAndGet();
          freeStream(stream);
        }
      }
    }
  }

  /**
   * Decompresses the block {@code src[off, off + len)} into exactly {@code dstLen} bytes of {@code
   * dst} from {@code dstOff}, against {@code dictionary} (empty for none); returns false if the
   * block is malformed or does not decompress to exactly that length.
   */
  static boolean decompress(
      byte[] src, int off, int len, byte[] dst, int dstOff, int dstLen, MemorySegment dictionary) {
    try {
      int n =
          (int)
              DECOMPRESS_USING_DICT.invokeExact(
                  MemorySegment.ofArray(src).asSlice(off, len),
                  MemorySegment.ofArray(dst).asSlice(dstOff, dstLen),
                  len,
                  dstLen,
                  dictionary,
                  (int) dictionary.byteSize());
      return n == dstLen;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static MemorySegment newStream() throws Throwable {
    MemorySegment stream = (MemorySegment) CREATE_STREAM.invokeExact();
    if (stream.equals(MemorySegment.NULL)) {
      throw new IllegalStateException("LZ4_createStream returned NULL (out of native memory?)");
    }
    return stream;
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }
}
