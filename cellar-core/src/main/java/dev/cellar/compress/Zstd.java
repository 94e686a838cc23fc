package dev.cellar.compress;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Zstandard through FFM over the libzstd aircompressor bundles: compression and decompression of
 * one value with a digested dictionary, and dictionary training.
 *
 * <p>Frames are magicless, carry no dictionary id, no content size and no checksum: the record
 * around them has its own length, CRC and (encrypted) tag, and the segment names its dictionary, so
 * those fields would be 6 to 10 bytes of every value for nothing.
 *
 * <p>Contexts are pooled, not kept per thread: a store read by many virtual threads must not make a
 * decompression context (about 100 KiB of native memory) per thread. Taking one from the pool and
 * giving it back is two queue operations, small beside a decompression. Pooled contexts live as
 * long as the JVM; the pool keeps at most {@link #POOLED} of each kind, and frees any beyond.
 */
final class Zstd {
  static final int LEVEL = 3;

  private static final int C_COMPRESSION_LEVEL = 100;
  private static final int C_CONTENT_SIZE_FLAG = 200;
  private static final int C_CHECKSUM_FLAG = 201;
  private static final int C_DICT_ID_FLAG = 202;
  private static final int C_FORMAT = 10; // ZSTD_c_experimentalParam2
  private static final int D_FORMAT = 1000; // ZSTD_d_experimentalParam1
  private static final int MAGICLESS = 1; // ZSTD_f_zstd1_magicless

  private static final int POOLED = 2 * Runtime.getRuntime().availableProcessors() + 4;

  private static final BundledLibrary LIB = BundledLibrary.open("zstd");
  private static final ValueLayout.OfLong SIZE_T = ValueLayout.JAVA_LONG;
  private static final MethodHandle COMPRESS_BOUND =
      LIB.function("ZSTD_compressBound", FunctionDescriptor.of(SIZE_T, SIZE_T));
  private static final MethodHandle CREATE_CCTX =
      LIB.function("ZSTD_createCCtx", FunctionDescriptor.of(ValueLayout.ADDRESS));
  private static final MethodHandle FREE_CCTX =
      LIB.function("ZSTD_freeCCtx", FunctionDescriptor.of(SIZE_T, ValueLayout.ADDRESS));
  private static final MethodHandle CREATE_DCTX =
      LIB.function("ZSTD_createDCtx", FunctionDescriptor.of(ValueLayout.ADDRESS));
  private static final MethodHandle FREE_DCTX =
      LIB.function("ZSTD_freeDCtx", FunctionDescriptor.of(SIZE_T, ValueLayout.ADDRESS));
  private static final MethodHandle CCTX_RESET =
      LIB.function(
          "ZSTD_CCtx_reset",
          FunctionDescriptor.of(SIZE_T, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
  private static final int RESET_SESSION_ONLY = 1;
  private static final MethodHandle CCTX_SET =
      LIB.function(
          "ZSTD_CCtx_setParameter",
          FunctionDescriptor.of(
              SIZE_T, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
  private static final MethodHandle DCTX_SET =
      LIB.function(
          "ZSTD_DCtx_setParameter",
          FunctionDescriptor.of(
              SIZE_T, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
  private static final MethodHandle CREATE_CDICT =
      LIB.function(
          "ZSTD_createCDict",
          FunctionDescriptor.of(
              ValueLayout.ADDRESS, ValueLayout.ADDRESS, SIZE_T, ValueLayout.JAVA_INT));
  private static final MethodHandle FREE_CDICT =
      LIB.function("ZSTD_freeCDict", FunctionDescriptor.of(SIZE_T, ValueLayout.ADDRESS));
  private static final MethodHandle CREATE_DDICT =
      LIB.function(
          "ZSTD_createDDict",
          FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, SIZE_T));
  private static final MethodHandle FREE_DDICT =
      LIB.function("ZSTD_freeDDict", FunctionDescriptor.of(SIZE_T, ValueLayout.ADDRESS));
  private static final MethodHandle REF_CDICT =
      LIB.function(
          "ZSTD_CCtx_refCDict",
          FunctionDescriptor.of(SIZE_T, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
  private static final FunctionDescriptor CODE =
      FunctionDescriptor.of(
          SIZE_T, ValueLayout.ADDRESS, ValueLayout.ADDRESS, SIZE_T, ValueLayout.ADDRESS, SIZE_T);
  private static final MethodHandle COMPRESS2 =
      LIB.function("ZSTD_compress2", CODE, Linker.Option.critical(true));
  private static final MethodHandle DECOMPRESS_USING_DDICT =
      LIB.function(
          "ZSTD_decompress_usingDDict",
          FunctionDescriptor.of(
              SIZE_T,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              SIZE_T,
              ValueLayout.ADDRESS,
              SIZE_T,
              ValueLayout.ADDRESS),
          Linker.Option.critical(true));
  private static final MethodHandle IS_ERROR =
      LIB.function("ZSTD_isError", FunctionDescriptor.of(ValueLayout.JAVA_INT, SIZE_T));
  private static final MethodHandle ERROR_NAME =
      LIB.function("ZSTD_getErrorName", FunctionDescriptor.of(ValueLayout.ADDRESS, SIZE_T));
  private static final MethodHandle TRAIN =
      LIB.function(
          "ZDICT_trainFromBuffer",
          FunctionDescriptor.of(
              SIZE_T,
              ValueLayout.ADDRESS,
              SIZE_T,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT));
  private static final MethodHandle ZDICT_IS_ERROR =
      LIB.function("ZDICT_isError", FunctionDescriptor.of(ValueLayout.JAVA_INT, SIZE_T));

  private static final ContextPool COMPRESSORS = new ContextPool(true);
  private static final ContextPool DECOMPRESSORS = new ContextPool(false);

  private Zstd() {}

  /** Largest frame a value of {@code length} bytes can compress to. */
  static int compressBound(int length) {
    try {
      return Math.toIntExact((long) COMPRESS_BOUND.invokeExact((long) length));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Compresses {@code src[off, off + len)} into {@code dst} from {@code dstOff} (room {@code
   * dstCap}) with {@code cdict} (NULL for none); returns the frame's length, or -1 if it does not
   * fit.
   */
  static int compress(
      byte[] src, int off, int len, byte[] dst, int dstOff, int dstCap, MemorySegment cdict) {
    MemorySegment cctx = COMPRESSORS.take();
    try {
      check((long) REF_CDICT.invokeExact(cctx, cdict), "CCtx_refCDict");
      long n =
          (long)
              COMPRESS2.invokeExact(
                  cctx,
                  MemorySegment.ofArray(dst).asSlice(dstOff, dstCap),
                  (long) dstCap,
                  MemorySegment.ofArray(src).asSlice(off, len),
                  (long) len);
      if ((int) IS_ERROR.invokeExact(n) != 0) {
        // dstSize_tooSmall: the value does not compress into the room given. The failed frame
        // leaves the context mid-session; reset it for its next user (parameters are kept).
        check((long) CCTX_RESET.invokeExact(cctx, RESET_SESSION_ONLY), "CCtx_reset");
        return -1;
      }
      return (int) n;
    } catch (Throwable t) {
      throw rethrow(t);
    } finally {
      COMPRESSORS.give(cctx);
    }
  }

  /**
   * Decompresses the frame {@code src[off, off + len)} into exactly {@code dstLen} bytes of {@code
   * dst} from {@code dstOff}, with {@code ddict} (NULL for none); returns false if the frame is
   * malformed or does not decompress to exactly that length.
   */
  static boolean decompress(
      byte[] src, int off, int len, byte[] dst, int dstOff, int dstLen, MemorySegment ddict) {
    Thread thread = Thread.currentThread();
    if (!thread.isVirtual()) {
      // A platform thread keeps a context of its own (freed when the thread is gone): the pool's
      // two queue operations were 5.5% of a zstd GET's CPU. Virtual threads, which may number in
      // the millions, share the pool.
      LocalContext local = LOCAL.get();
      if (local == null) {
        local = new LocalContext(DECOMPRESSORS.create());
        LOCAL.set(local);
      }
      try {
        return decompress(local.dctx, src, off, len, dst, dstOff, dstLen, ddict);
      } finally {
        java.lang.ref.Reference.reachabilityFence(local);
      }
    }
    MemorySegment dctx = DECOMPRESSORS.take();
    try {
      return decompress(dctx, src, off, len, dst, dstOff, dstLen, ddict);
    } finally {
      DECOMPRESSORS.give(dctx);
    }
  }

  private static boolean decompress(
      MemorySegment dctx,
      byte[] src,
      int off,
      int len,
      byte[] dst,
      int dstOff,
      int dstLen,
      MemorySegment ddict) {
    try {
      // One call: the context's magicless format holds, and the dictionary is given per call.
      long n =
          (long)
              DECOMPRESS_USING_DDICT.invokeExact(
                  dctx,
                  MemorySegment.ofArray(dst).asSlice(dstOff, dstLen),
                  (long) dstLen,
                  MemorySegment.ofArray(src).asSlice(off, len),
                  (long) len,
                  ddict);
      return (int) IS_ERROR.invokeExact(n) == 0 && n == dstLen;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static final ThreadLocal<LocalContext> LOCAL = new ThreadLocal<>();
  private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();

  /** A platform thread's decompression context, freed once the thread no longer holds it. */
  private static final class LocalContext {
    final MemorySegment dctx;

    LocalContext(MemorySegment dctx) {
      this.dctx = dctx;
      long address = dctx.address();
      CLEANER.register(this, () -> free(address));
    }

    private static void free(long address) {
      try {
        long unused = (long) FREE_DCTX.invokeExact(MemorySegment.ofAddress(address));
      } catch (Throwable t) {
        // nothing to do: the context's memory stays allocated
      }
    }
  }

  /** A compression dictionary digested for {@link #compress}; free it with {@link #freeCDict}. */
  static MemorySegment createCDict(MemorySegment dictionary) {
    try {
      MemorySegment d =
          (MemorySegment) CREATE_CDICT.invokeExact(dictionary, dictionary.byteSize(), LEVEL);
      return nonNull(d, "ZSTD_createCDict");
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * A decompression dictionary digested for {@link #decompress}; free it with {@link #freeDDict}.
   */
  static MemorySegment createDDict(MemorySegment dictionary) {
    try {
      MemorySegment d = (MemorySegment) CREATE_DDICT.invokeExact(dictionary, dictionary.byteSize());
      return nonNull(d, "ZSTD_createDDict");
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void freeCDict(MemorySegment cdict) {
    try {
      long unused = (long) FREE_CDICT.invokeExact(cdict);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void freeDDict(MemorySegment ddict) {
    try {
      long unused = (long) FREE_DDICT.invokeExact(ddict);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Trains a dictionary of at most {@code capacity} bytes on the samples laid end to end in {@code
   * samples}, of the given sizes; returns it, or null if the samples are too few or too alike to
   * train on (the trainer's own judgement).
   */
  static byte[] train(byte[] samples, long[] sizes, int count, int capacity) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment dict = arena.allocate(capacity);
      long total = 0;
      for (int i = 0; i < count; i++) {
        total += sizes[i];
      }
      MemorySegment in = arena.allocate(Math.max(1, total));
      MemorySegment.copy(samples, 0, in, ValueLayout.JAVA_BYTE, 0, (int) total);
      MemorySegment sizesNative = arena.allocate(ValueLayout.JAVA_LONG, Math.max(1, count));
      MemorySegment.copy(sizes, 0, sizesNative, ValueLayout.JAVA_LONG, 0, count);
      long n = (long) TRAIN.invokeExact(dict, (long) capacity, in, sizesNative, count);
      if ((int) ZDICT_IS_ERROR.invokeExact(n) != 0) {
        return null;
      }
      return dict.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static MemorySegment nonNull(MemorySegment p, String call) {
    if (p.equals(MemorySegment.NULL)) {
      throw new IllegalStateException(call + " returned NULL (out of native memory?)");
    }
    return p;
  }

  private static long check(long result, String call) throws Throwable {
    if ((int) IS_ERROR.invokeExact(result) != 0) {
      MemorySegment name = (MemorySegment) ERROR_NAME.invokeExact(result);
      throw new IllegalStateException(
          "ZSTD_" + call + " failed: " + name.reinterpret(256).getString(0));
    }
    return result;
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

  /** Compression or decompression contexts, set up once for Cellar's frames. */
  private static final class ContextPool {
    private final boolean compress;
    private final ConcurrentLinkedQueue<MemorySegment> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();

    ContextPool(boolean compress) {
      this.compress = compress;
    }

    MemorySegment take() {
      MemorySegment c = idle.poll();
      if (c != null) {
        size.decrementAndGet();
        return c;
      }
      return create();
    }

    /** A new context, set up for Cellar's frames; not from the pool. */
    MemorySegment create() {
      MemorySegment c;
      try {
        if (compress) {
          c = nonNull((MemorySegment) CREATE_CCTX.invokeExact(), "ZSTD_createCCtx");
          check((long) CCTX_SET.invokeExact(c, C_COMPRESSION_LEVEL, LEVEL), "level");
          check((long) CCTX_SET.invokeExact(c, C_FORMAT, MAGICLESS), "format");
          check((long) CCTX_SET.invokeExact(c, C_CONTENT_SIZE_FLAG, 0), "contentSizeFlag");
          check((long) CCTX_SET.invokeExact(c, C_CHECKSUM_FLAG, 0), "checksumFlag");
          check((long) CCTX_SET.invokeExact(c, C_DICT_ID_FLAG, 0), "dictIDFlag");
        } else {
          c = nonNull((MemorySegment) CREATE_DCTX.invokeExact(), "ZSTD_createDCtx");
          check((long) DCTX_SET.invokeExact(c, D_FORMAT, MAGICLESS), "format");
        }
        return c;
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    void give(MemorySegment c) {
      if (size.incrementAndGet() <= POOLED) {
        idle.add(c);
        return;
      }
      size.decrementAndGet();
      try {
        long unused = compress ? (long) FREE_CCTX.invokeExact(c) : (long) FREE_DCTX.invokeExact(c);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }
  }
}
