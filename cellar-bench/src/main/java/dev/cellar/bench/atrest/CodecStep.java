package dev.cellar.bench.atrest;

/**
 * One operation of the codec benchmark over the whole data set: {@code pass} runs it once over
 * every document (or every block of documents), and is what is timed.
 *
 * @param op {@code encrypt}, {@code decrypt}, {@code compress} or {@code decompress}
 * @param codec {@code aes-256-gcm}, {@code zstd-3}, {@code lz4}
 * @param library the implementation and its version
 * @param unit {@code record} (one operation per document), {@code block} (one per block of
 *     documents), or {@code zstd record}/{@code zstd block} (one per zstd frame of either)
 * @param documents the documents one pass covers
 * @param rawBytes their bytes, uncompressed and in the clear
 * @param storedBytes what the data set takes once encoded: ciphertext with tags, or compressed
 */
record CodecStep(
    String op,
    String codec,
    String library,
    String unit,
    int documents,
    long rawBytes,
    long storedBytes,
    Pass pass) {
  /** One pass; returns a value that depends on every output byte it reads, so none is skipped. */
  interface Pass {
    long run() throws Exception;
  }

  /** How the report names the row. */
  String label() {
    return codec + " " + op + ", per " + unit + " (" + library + ")";
  }

  /** Raw size over stored size: above 1 for a compressor, just below 1 for a cipher. */
  double sizeRatio() {
    return (double) rawBytes / storedBytes;
  }
}
