package dev.cellar.bench.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.bench.stores.StoreKind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadDriverTest {
  private static final Workload SMALL = new Workload(5_000, 60, 4_000, 3);

  @Test
  void heapStoreHasNoDiskOrReopenNumbers(@TempDir Path dir) throws Exception {
    Measurements results = run(StoreKind.HASHMAP, dir);
    for (Metric metric : Metric.values()) {
      assertTrue(results.has(metric), metric.jsonName());
    }
    assertEquals(Optional.empty(), results.get(Metric.DISK));
    assertEquals(Optional.empty(), results.get(Metric.REOPEN));
    assertTrue(results.get(Metric.GET_HIT).orElseThrow() > 0);
  }

  @Test
  void persistentStoreIsMeasuredOnDiskAndReopened(@TempDir Path dir) throws Exception {
    Measurements results = run(StoreKind.LMDB, dir);
    assertTrue(results.get(Metric.DISK).orElseThrow() > 5_000 * 60);
    assertTrue(results.get(Metric.REOPEN).orElseThrow() >= 0);
  }

  private static Measurements run(StoreKind kind, Path dir) throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    WorkloadDriver driver =
        new WorkloadDriver(kind.id(), kind.newAdapter(), SMALL, dir, new PrintStream(log, true));
    Measurements results = new Measurements();
    driver.run(results);
    assertTrue(log.toString().contains("[" + kind.id() + "] get hit"), log.toString());
    return results;
  }
}
