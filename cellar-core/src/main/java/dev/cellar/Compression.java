package dev.cellar;

/**
 * How a store compresses the values it keeps (see {@code docs/format/compression.md}). Values are
 * compressed off the request path: compaction rewrites each sealed segment of the log once,
 * compressing every value with a dictionary trained on the store's own data, so that a random read
 * of a small value decompresses that value alone. The log being written stays as it was written.
 */
public enum Compression {
  /** Values are stored as written. Compressed segments stay readable. */
  NONE,
  /** LZ4 with a dictionary: the fastest decompression, a smaller gain on disk. */
  LZ4,
  /** Zstandard with a trained dictionary: the smallest files, slower reads than LZ4. */
  ZSTD;

  /** Parses {@code none}, {@code lz4} or {@code zstd}, case-insensitively. */
  public static Compression parse(String text) {
    for (Compression c : values()) {
      if (c.name().equalsIgnoreCase(text)) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "unknown compression '" + text + "': expected none, lz4 or zstd");
  }

  /** The name the options and the protocol use: {@code none}, {@code lz4}, {@code zstd}. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
