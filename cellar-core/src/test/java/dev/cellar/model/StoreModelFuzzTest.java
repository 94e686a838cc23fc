package dev.cellar.model;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The store against its model, the operations drawn from the fuzzer's bytes instead of a seed: the
 * same {@link Op}s, the same {@link ModelRun} interpreter and rules as {@code StoreModelTest}, with
 * coverage guiding which sequences are tried. Runs are capped at {@link #MAX_OPS} steps so one
 * input stays well under the fuzzer's per-input time limit.
 *
 * <p>The saved inputs in {@code StoreModelFuzzTestInputs/model/} replay in every {@code ./mvnw
 * verify}; each byte, read from the end of the input backwards, picks one choice (below 256
 * options, modulo their number).
 */
class StoreModelFuzzTest {
  static final int MAX_OPS = 300;

  /** Faults and crashes are on purpose: their log lines and stack traces say nothing here. */
  private static final Logger ENGINE_LOG = Logger.getLogger("dev.cellar");

  static {
    ENGINE_LOG.setLevel(Level.OFF);
  }

  @FuzzTest(maxDuration = "15s")
  void model(FuzzedDataProvider data) throws IOException {
    Choices choices =
        new Choices() {
          @Override
          public int nextInt(int bound) {
            return data.consumeInt(0, bound - 1);
          }

          @Override
          public boolean hasMore() {
            return data.remainingBytes() > 0;
          }
        };
    Workload workload = Workload.draw(choices);
    // The store's files are simulated, but its directory lock wants a real directory.
    Path dir = Files.createTempDirectory("cellar-model-fuzz");
    try (ModelRun run = new ModelRun("fuzz input", workload, dir, 0)) {
      for (int i = 0; i < MAX_OPS && choices.hasMore(); i++) {
        run.apply(Op.next(choices, workload));
      }
      run.finish();
    } finally {
      try {
        Files.delete(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete " + dir, e);
      }
    }
  }
}
