package dev.cellar.bench.atrest;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * zstd with a dictionary through FFM, over the libzstd that aircompressor-v3 bundles: what an
 * engine would have to write itself, since aircompressor-v3's API takes no dictionary (its {@code
 * ZstdNativeCompressor} calls {@code ZSTD_compress}, its decompressor {@code ZSTD_decompressDCtx}
 * without one, and neither has a way to hand one in). It shows that the dictionary candidates do
 * not need JNI: the same library, through the same FFM downcalls the rest of Cellar's native access
 * uses, with the same frames as {@link ZstdRecordCodec} (magicless, no dictionary ID).
 *
 * <p>The library is opened by {@link BundledLibrary}; the downcalls are {@linkplain
 * Linker.Option#critical critical} with heap access, so byte arrays are passed without a copy, as
 * aircompressor does. Contexts and digested dictionaries are made once and kept for the JVM's life
 * (the global arena): a benchmark's codec, not a resource-managed engine class.
 */
final class ZstdFfmDictionaryCodec implements Compression {
  private static final int C_FORMAT = 10; // ZSTD_c_format (ZSTD_c_experimentalParam2)
  private static final int C_DICT_ID_FLAG = 202;
  private static final int D_FORMAT = 1000; // ZSTD_d_format (ZSTD_d_experimentalParam1)
  private static final int MAGICLESS = 1; // ZSTD_f_zstd1_magicless

  private static final BundledLibrary ZSTD = BundledLibrary.open("zstd");
  private static final MethodHandle COMPRESS_BOUND =
      handle(
          "ZSTD_compressBound",
          FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
  private static final MethodHandle CREATE_CCTX =
      handle("ZSTD_createCCtx", FunctionDescriptor.of(ValueLayout.ADDRESS));
  private static final MethodHandle CREATE_DCTX =
      handle("ZSTD_createDCtx", FunctionDescriptor.of(ValueLayout.ADDRESS));
  private static final MethodHandle CCTX_SET =
      handle(
          "ZSTD_CCtx_setParameter",
          FunctionDescriptor.of(
              ValueLayout.JAVA_LONG,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT));
  private static final MethodHandle DCTX_SET =
      handle(
          "ZSTD_DCtx_setParameter",
          FunctionDescriptor.of(
              ValueLayout.JAVA_LONG,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT));
  private static final MethodHandle CREATE_CDICT =
      handle(
          "ZSTD_createCDict",
          FunctionDescriptor.of(
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_INT));
  private static final MethodHandle CREATE_DDICT =
      handle(
          "ZSTD_createDDict",
          FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
  private static final MethodHandle REF_CDICT =
      handle(
          "ZSTD_CCtx_refCDict",
          FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
  private static final MethodHandle REF_DDICT =
      handle(
          "ZSTD_DCtx_refDDict",
          FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
  private static final FunctionDescriptor CODE =
      FunctionDescriptor.of(
          ValueLayout.JAVA_LONG,
          ValueLayout.ADDRESS,
          ValueLayout.ADDRESS,
          ValueLayout.JAVA_LONG,
          ValueLayout.ADDRESS,
          ValueLayout.JAVA_LONG);
  private static final MethodHandle COMPRESS2 =
      handle("ZSTD_compress2", CODE, Linker.Option.critical(true));
  private static final MethodHandle DECOMPRESS_DCTX =
      handle("ZSTD_decompressDCtx", CODE, Linker.Option.critical(true));
  private static final MethodHandle IS_ERROR =
      handle("ZSTD_isError", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
  private static final MethodHandle ERROR_NAME =
      handle(
          "ZSTD_getErrorName", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
  private static final MethodHandle VERSION =
      handle("ZSTD_versionString", FunctionDescriptor.of(ValueLayout.ADDRESS));

  private final int level;
  private final int dictionaryBytes;
  private final MemorySegment cctx;
  private final MemorySegment dctx;

  ZstdFfmDictionaryCodec(int level, byte[] dictionary) {
    this.level = level;
    this.dictionaryBytes = dictionary.length;
    try {
      MemorySegment dict = Arena.global().allocate(dictionary.length);
      MemorySegment.copy(dictionary, 0, dict, ValueLayout.JAVA_BYTE, 0, dictionary.length);
      cctx = (MemorySegment) CREATE_CCTX.invokeExact();
      dctx = (MemorySegment) CREATE_DCTX.invokeExact();
      check((long) CCTX_SET.invokeExact(cctx, 100, level), "level"); // ZSTD_c_compressionLevel
      check((long) CCTX_SET.invokeExact(cctx, C_FORMAT, MAGICLESS), "format");
      check((long) CCTX_SET.invokeExact(cctx, C_DICT_ID_FLAG, 0), "dictIDFlag");
      check((long) DCTX_SET.invokeExact(dctx, D_FORMAT, MAGICLESS), "format");
      MemorySegment cdict = (MemorySegment) CREATE_CDICT.invokeExact(dict, dict.byteSize(), level);
      MemorySegment ddict = (MemorySegment) CREATE_DDICT.invokeExact(dict, dict.byteSize());
      if (cctx.equals(MemorySegment.NULL)
          || dctx.equals(MemorySegment.NULL)
          || cdict.equals(MemorySegment.NULL)
          || ddict.equals(MemorySegment.NULL)) {
        throw new IllegalStateException(
            "libzstd could not make a context or digest the dictionary");
      }
      check((long) REF_CDICT.invokeExact(cctx, cdict), "refCDict");
      check((long) REF_DDICT.invokeExact(dctx, ddict), "refDDict");
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Override
  public String codec() {
    return "zstd-" + level + " dict " + (dictionaryBytes >> 10) + "K ffm";
  }

  @Override
  public String library() {
    try {
      String version = ((MemorySegment) VERSION.invokeExact()).reinterpret(32).getString(0);
      return "libzstd " + version + " (aircompressor-v3's) via FFM";
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Override
  public int maxCompressedLength(int length) {
    try {
      return Math.toIntExact((long) COMPRESS_BOUND.invokeExact((long) length));
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Override
  public int compress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
    try {
      long n =
          (long)
              COMPRESS2.invokeExact(
                  cctx,
                  MemorySegment.ofArray(out).asSlice(outOff, outLen),
                  (long) outLen,
                  MemorySegment.ofArray(in).asSlice(inOff, inLen),
                  (long) inLen);
      return (int) check(n, "compress2");
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Override
  public int decompress(byte[] in, int inOff, int inLen, byte[] out, int outOff, int outLen) {
    try {
      long n =
          (long)
              DECOMPRESS_DCTX.invokeExact(
                  dctx,
                  MemorySegment.ofArray(out).asSlice(outOff, outLen),
                  (long) outLen,
                  MemorySegment.ofArray(in).asSlice(inOff, inLen),
                  (long) inLen);
      return (int) check(n, "decompressDCtx");
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  private static long check(long result, String call) throws Throwable {
    if ((int) IS_ERROR.invokeExact(result) != 0) {
      MemorySegment name = (MemorySegment) ERROR_NAME.invokeExact(result);
      throw new IllegalStateException(
          "ZSTD_" + call + " failed: " + name.reinterpret(256).getString(0));
    }
    return result;
  }

  private static MethodHandle handle(
      String name, FunctionDescriptor descriptor, Linker.Option... options) {
    return ZSTD.function(name, descriptor, options);
  }
}
