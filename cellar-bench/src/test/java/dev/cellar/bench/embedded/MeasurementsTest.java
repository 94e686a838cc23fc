package dev.cellar.bench.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MeasurementsTest {

  @Test
  void roundTripsThroughAFileIncludingNotApplicable(@TempDir Path dir) throws Exception {
    Measurements written = new Measurements();
    written.record(Metric.GET_HIT, 1234567.5);
    written.record(Metric.HEAP_USED, 42);
    written.recordNotApplicable(Metric.REOPEN);
    Path file = dir.resolve("x.results");
    written.write(file, "store=test");

    Measurements read = Measurements.read(file);
    assertEquals(Optional.of(1234567.5), read.get(Metric.GET_HIT));
    assertEquals(Optional.of(42.0), read.get(Metric.HEAP_USED));
    assertTrue(read.has(Metric.REOPEN));
    assertEquals(Optional.empty(), read.get(Metric.REOPEN));
    assertFalse(read.has(Metric.DISK));
  }
}
