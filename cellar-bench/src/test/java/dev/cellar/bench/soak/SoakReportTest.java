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
      samples.add(
          new Sample(
              t,
              500 * MIB + (t % 40) * MIB,
              80 * MIB,
              15 * MIB,
              t % 30 == 0 ? 12 * MIB : -1,
              120 * MIB,
              400 * MIB,
              t / 2,
              17_000,
              t * 30_000,
              30_000,
              0));
    }
    return samples;
  }

  private static SoakResult result(List<Sample> samples, long errorReplies, String serverExit) {
    return new SoakResult(
        samples,
        samples.getLast().operations(),
        errorReplies,
        0,
        0,
        List.of(),
        30,
        0,
        0,
        serverExit,
        0,
        samples.getLast().seconds(),
        0,
        12,
        List.of(),
        null);
  }

  private static SoakResult hostile(
      List<Sample> samples, List<PatternCounters> patterns, ConnectionsAfter connections) {
    return new SoakResult(
        samples,
        samples.getLast().operations(),
        0,
        0,
        0,
        List.of(),
        30,
        0,
        0,
        null,
        0,
        samples.getLast().seconds(),
        0,
        12,
        patterns,
        connections);
  }

  private static PatternCounters ran(
      String id, long attempts, long completed, long disconnects, boolean disconnectsExpected) {
    PatternCounters p = new PatternCounters(id, id + " described", disconnectsExpected, false);
    p.attempts().add(attempts);
    p.completed().add(completed);
    p.disconnects().add(disconnects);
    return p;
  }

  @Test
  void aFlatRunWithoutErrorsPasses() {
    SoakResult r = result(flat(1800), 0, null);
    assertTrue(r.passed());
    String md = SoakReport.markdown("heading", r);
    assertTrue(md.contains("**Verdict: pass.**"), md);
    assertTrue(md.contains("| RSS (VmRSS), window peaks | 510.0 MiB |"), md);
    assertTrue(md.contains("| RSS, anonymous (RssAnon), after each full GC | 80.0 MiB |"), md);
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
  void aFlatRunWithHostileClientsPassesOnlyIfEachPatternRanAndTheConnectionsCameBack() {
    ConnectionsAfter back = new ConnectionsAfter(9, 9, 0, 40, 1.5);
    SoakResult defended =
        hostile(
            flat(1800),
            List.of(ran("resets", 100, 0, 0, false), ran("slowloris", 400, 0, 380, true)),
            back);
    assertTrue(defended.passed());
    String md = SoakReport.markdown("heading", defended);
    assertTrue(md.contains("| slowloris described | 400 | 0 | 380 | 0 | ok |"), md);
    assertTrue(md.contains("clients evicted by maxmemory-clients over the run: 40."), md);
    String json = SoakReport.json(Map.of(), Map.of(), defended);
    assertTrue(json.contains("\"disconnects_seen\": 380"), json);
    assertTrue(json.contains("\"connected_clients_after\": 9"), json);

    assertFalse(
        hostile(flat(1800), List.of(ran("resets", 0, 0, 0, false)), back).passed(),
        "a pattern that never ran");
    assertFalse(
        hostile(flat(1800), List.of(ran("slowloris", 400, 0, 0, true)), back).passed(),
        "the server never cut slowloris off");
    SoakResult leaked =
        hostile(
            flat(1800),
            List.of(ran("resets", 100, 0, 0, false)),
            new ConnectionsAfter(9, 12, 0, 0, 20));
    assertFalse(leaked.passed(), "three connections left behind");
    assertTrue(
        SoakReport.markdown("heading", leaked).contains("connected_clients 12 (well-behaved: 9)"));
    assertFalse(
        hostile(
                flat(1800),
                List.of(ran("resets", 100, 0, 0, false)),
                new ConnectionsAfter(9, 9, 2, 0, 20))
            .passed(),
        "two HTTP connections left behind");
  }

  @Test
  void aStallFailsAFlatRun() {
    SoakResult stalled =
        new SoakResult(
            flat(1800), 1, 0, 0, 0, List.of(), 30, 0, 0, null, 0, 1800, 1, 2500, List.of(), null);
    assertFalse(stalled.passed());
    assertTrue(
        SoakReport.markdown("heading", stalled)
            .contains("longest operation 2,500 ms, 1 over 2000 ms"));
  }

  @Test
  void aTrialOfTwoMinutesIsNotJudged() {
    SoakResult r = result(flat(120), 0, null);
    assertFalse(r.judged());
    assertTrue(SoakReport.markdown("heading", r).contains("**Verdict: none"));
  }

  @Test
  void theSectionGoesBetweenTheSoakMarkersOnly() {
    String doc =
        "# B\n<!-- server-bench:begin -->\nserver\n<!-- server-bench:end -->\n"
            + SoakBenchmark.BEGIN
            + "\nold\n"
            + SoakBenchmark.END
            + "\n";
    String replaced = MarkdownSection.replace(doc, "new\n", SoakBenchmark.BEGIN, SoakBenchmark.END);
    assertTrue(replaced.contains(SoakBenchmark.BEGIN + "\nnew\n" + SoakBenchmark.END), replaced);
    assertTrue(replaced.contains("\nserver\n"), replaced);
    assertFalse(replaced.contains("old"), replaced);
  }
}
