package dev.cellar.model;

import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The store against its model ({@link ModelRun}), one seeded run per seed: random puts (three ways
 * of passing the bytes; no expiry, an hour, a few milliseconds, the past), deletes, reads of every
 * kind, waits that let expiries pass, scans and resumable pages, bulk loads that grow the index,
 * {@code randomKey}, clean reopens (some replaying the whole log), compaction, checkpoints, syncs,
 * failed fsyncs, a full disk and power losses.
 *
 * <p>A failure names the seed and the step, and lists the steps before it. {@code
 * -Dcellar.model.seed=N} reruns one seed; {@code -Dcellar.model.seeds=N} runs seeds 1 to N instead
 * of the default few; {@code -Dcellar.model.ops=N} makes each run N steps long. A run is
 * deterministic for its seed except for the store's background threads and the wall clock (waits
 * and short expiries), so a rerun takes the same steps but may not fail at the same place.
 */
class StoreModelTest {
  private static final int DEFAULT_SEEDS = 8;
  private static final int DEFAULT_OPS = 200;

  /**
   * The runs fail fsyncs, fill the disk and crash on purpose: the engine logs each with a stack
   * trace (and every torn tail it cuts), thousands of lines that say nothing here.
   */
  private static final Logger ENGINE_LOG = Logger.getLogger("dev.cellar");

  @TempDir Path dir;

  @BeforeAll
  static void quietEngineLog() {
    ENGINE_LOG.setLevel(Level.OFF);
  }

  static LongStream seeds() {
    Long one = Long.getLong("cellar.model.seed");
    if (one != null) {
      return LongStream.of(one);
    }
    return LongStream.rangeClosed(1, Integer.getInteger("cellar.model.seeds", DEFAULT_SEEDS));
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void agreesWithTheModel(long seed) {
    run(seed, Integer.getInteger("cellar.model.ops", DEFAULT_OPS), dir);
  }

  /** Many more seeds, and longer runs: about four minutes. */
  @Test
  @Tag("slow")
  @Timeout(value = 60, unit = java.util.concurrent.TimeUnit.MINUTES)
  void manyLongRuns() {
    for (long seed = 10_000; seed < 10_100; seed++) {
      run(seed, 500, dir);
    }
  }

  static void run(long seed, int ops, Path dir) {
    Choices choices = Choices.seeded(seed);
    Workload workload = Workload.draw(choices);
    String label = "seed " + seed + " (rerun: -Dcellar.model.seed=" + seed + ")";
    try (ModelRun run = new ModelRun(label, workload, dir, seed)) {
      for (int i = 0; i < ops; i++) {
        run.apply(Op.next(choices, workload));
      }
      run.finish();
      System.out.println(run.summary());
    }
  }
}
