package dev.cellar.compress;

import dev.cellar.Compression;

/** Whether a codec can be used in this JVM: its native library links. */
public final class Codecs {
  private Codecs() {}

  /**
   * Null if {@code codec} can compress and decompress here, else why not (no native access, no
   * library for this platform): a store that is to compress says so at open, not at its first
   * compaction.
   */
  public static String problem(Compression codec) {
    try {
      switch (codec) {
        case NONE -> {}
        case LZ4 -> {
          Lz4.compressBound(1);
          Zstd.compressBound(1); // dictionaries are trained by libzstd
        }
        case ZSTD -> Zstd.compressBound(1);
      }
      return null;
    } catch (ExceptionInInitializerError e) {
      return e.getCause() == null ? e.toString() : e.getCause().getMessage();
    } catch (NoClassDefFoundError e) {
      return "the " + codec.label() + " library failed to load earlier in this JVM: " + e;
    }
  }
}
