package dev.cellar.bench.soak;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.bench.server.MarkdownSection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SoakReportTest {
  private static final long MIB = 1 << 20;

  private static List<Sample> flat(long seconds) {
    List<Sample> samples = new ArrayList<>();
    for (long t = 10; t <= seconds; t += 10) {
      samples.add(new Sample(t, 500 * MIB + (t % 40) * MIB, 80 * MIB, 15 * MIB, t % 30 == 0 ? 12 * MIB : -1, 120 * MIB, 400 * MIB,
          t / 2, 17_000, t * 30_000, 30_000, 0));
    }
    return samples;
  }

  private static SoakResult result(List<Sample> samples, long errorReplies, String serverExit) {
    return new SoakResult(samples, samples.getLast().operations(), errorReplies, 0, 0, List.of(), 30, 0, 0, serverExit, 0,
        samples.getLast().seconds());
  }

  @Test
  void aFlatRunWithoutErrorsPasses() {
    SoakResult r = result(flat(1800), 0, null);
    assertTrue(r.passed());
    String md = SoakReport.markdown("heading", r);
    assertTrue(md.contains("**Verdict: pass.**"), md);
    assertTrue(md.contains("| RSS (VmRSS) | 510.0 MiB |"), md);
    assertTrue(md.contains("| 30:00 |"), "the last reading is always in the table: " + md);
    assertTrue(SoakReport.json(Map.of(), Map.of(), r).contains("\"passed\": true"));
  }

  @Test
  void anErrorReplyOrADeadServerFailsAFlatRun() {
    assertFalse(result(flat(1800), 1, null).passed());
    SoakResult dead = result(flat(1800), 0, "exited with status 137");
    assertFalse(dead.passed());
    assertTrue(SoakReport.markdown("heading", dead).contains("**Verdict: FAIL.**"));
  }

  @Test
  void aTrialOfTwoMinutesIsNotJudged() {
    SoakResult r = result(flat(120), 0, null);
    assertFalse(r.judged());
    assertTrue(SoakReport.markdown("heading", r).contains("**Verdict: none"));
  }

  @Test
  void theSectionGoesBetweenTheSoakMarkersOnly() {
    String doc = "# B\n<!-- server-bench:begin -->\nserver\n<!-- server-bench:end -->\n" + SoakBenchmark.BEGIN + "\nold\n" + SoakBenchmark.END + "\n";
    String replaced = MarkdownSection.replace(doc, "new\n", SoakBenchmark.BEGIN, SoakBenchmark.END);
    assertTrue(replaced.contains(SoakBenchmark.BEGIN + "\nnew\n" + SoakBenchmark.END), replaced);
    assertTrue(replaced.contains("\nserver\n"), replaced);
    assertFalse(replaced.contains("old"), replaced);
  }
}
