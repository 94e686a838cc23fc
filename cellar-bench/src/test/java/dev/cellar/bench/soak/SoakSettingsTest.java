package dev.cellar.bench.soak;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SoakSettingsTest {
  private static SoakSettings settings(int sampleSeconds, int fullGcSeconds, boolean hostile) {
    return new SoakSettings(
        30, 8, 20_000, sampleSeconds, 60, fullGcSeconds, "everysec", List.of(), hostile);
  }

  /**
   * The hostile clients pause before each live-heap reading, so a reading must fall where a cycle
   * ends.
   */
  @Test
  void withHostileClientsTheLiveHeapIsReadAtTheEndOfACycle() {
    assertDoesNotThrow(() -> settings(10, 30, true));
    assertDoesNotThrow(() -> settings(10, 0, true));
    IllegalArgumentException offBeat =
        assertThrows(IllegalArgumentException.class, () -> settings(10, 25, true));
    assertTrue(offBeat.getMessage().contains("got 25 and 10"), offBeat.getMessage());
    assertThrows(IllegalArgumentException.class, () -> settings(4, 8, true));
    assertDoesNotThrow(() -> settings(10, 25, false));
  }
}
