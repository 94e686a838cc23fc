package dev.cellar.platform;

/**
 * The system properties that turn one I/O hint or path of the engine off (or pick another), read
 * only here. They are not options: each exists so that a benchmark can run the same server with and
 * without the one thing it measures, in the same run, and keep the thing only for a measured gain.
 * The benchmark that uses each is named beside it; docs/benchmarks.md has the results.
 */
public final class IoSwitches {
  private IoSwitches() {}

  /**
   * {@code MADV_RANDOM} on sealed segments' mappings; off with {@code
   * cellar.io.noRandomAdvice=true} ({@code cellar bench io}, mode {@code buffered-no-madvise}).
   */
  public static final boolean RANDOM_ADVICE = !Boolean.getBoolean("cellar.io.noRandomAdvice");

  /**
   * {@code MADV_SEQUENTIAL} on a compaction victim's mapping for its pass; off with {@code
   * cellar.io.noScanAdvice=true} ({@code cellar bench io}'s scan part).
   */
  public static final boolean SCAN_ADVICE = !Boolean.getBoolean("cellar.io.noScanAdvice");

  /**
   * Appends with O_DIRECT where the store would use them ({@code io direct}: the log under {@code
   * fsync always}, compaction's outputs); off with {@code cellar.io.noDirectAppends=true} ({@code
   * cellar bench io}, mode {@code direct-mapped-appends}).
   */
  public static final boolean DIRECT_APPENDS = !Boolean.getBoolean("cellar.io.noDirectAppends");

  /**
   * In {@code io buffered}, dropping the segments sealed since the last checkpoint from the page
   * cache after a checkpoint, when memory is tight. Off: it showed no gain where it was measured
   * ({@code cellar bench io}'s pressure part, docs/benchmarks.md); on with {@code
   * cellar.io.checkpointDrop=true}, to measure it again elsewhere.
   */
  public static final boolean CHECKPOINT_DROP = Boolean.getBoolean("cellar.io.checkpointDrop");

  /**
   * Recovery's replay with O_DIRECT scans ({@code io direct}); off with {@code
   * cellar.io.noDirectRecovery=true} ({@code cellar bench replay --io direct}).
   */
  public static final boolean DIRECT_RECOVERY = !Boolean.getBoolean("cellar.io.noDirectRecovery");

  /**
   * What reads a batch's cache misses in {@code io direct}: {@code uring} (the default), {@code
   * pool} or {@code serial}, from {@code cellar.io.batchReads} ({@code cellar bench io}, modes
   * {@code direct-pool} and {@code direct-serial}). Read at each store's open, not once: a test
   * opens stores with each reader in one JVM.
   */
  public static String batchReads() {
    return System.getProperty("cellar.io.batchReads", "uring");
  }
}
