package dev.cellar.cli.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ProgressBarTest {
  @Test
  void rendersFractionAndSizes() {
    assertEquals(
        "[" + "#".repeat(15) + " ".repeat(15) + "] 50% 1.0 GiB/2.0 GiB",
        ProgressBar.render(1L << 30, 2L << 30));
    assertEquals("[" + " ".repeat(30) + "] 0% 0 B/10 B", ProgressBar.render(0, 10));
    assertEquals("[" + "#".repeat(30) + "] 100% 10 B/10 B", ProgressBar.render(10, 10));
  }

  @Test
  void disabledBarDrawsNothing() {
    StringWriter err = new StringWriter();
    ProgressBar bar = ProgressBar.of(false, new PrintWriter(err), 100, () -> {});
    for (int i = 0; i < 1_000_000; i++) {
      bar.update(50);
    }
    bar.clear();
    assertEquals("", err.toString());
  }

  @Test
  void enabledBarRedrawsAtMostTenTimesASecondAndClears() throws InterruptedException {
    StringWriter err = new StringWriter();
    ProgressBar bar = ProgressBar.of(true, new PrintWriter(err), 100, () -> {});
    Thread.sleep(120);
    for (int i = 0; i < 1000; i++) {
      bar.update(50);
    }
    String drawn = err.toString();
    assertEquals(1, drawn.chars().filter(c -> c == '[').count(), drawn);
    assertTrue(drawn.contains("50%"), drawn);
    bar.clear();
    assertTrue(err.toString().endsWith("\r"), "cleared back to the line start");
  }
}
