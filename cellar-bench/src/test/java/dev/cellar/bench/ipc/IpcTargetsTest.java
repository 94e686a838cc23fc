package dev.cellar.bench.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The targets are judged on the run's own cells, with the thresholds, both ways. */
class IpcTargetsTest {
  @Test
  void judgesEachTargetOnTheSameRunsCells() {
    IpcResults results =
        new IpcResults(
            List.of(
                // GET at batch 1: 31x faster round trip, 0.1x the server CPU: both met.
                cell("shm", 1, Op.GET, 1_000_000, 1_000, 100),
                cell("tcp", 1, Op.GET, 50_000, 31_000, 1_000),
                // SET at batch 1: 29x and 0.25x: both missed.
                cell("shm", 1, Op.SET, 1_000_000, 1_000, 250),
                cell("tcp", 1, Op.SET, 50_000, 29_000, 1_000),
                // 4.9 M GET/s at batch 50: missed.
                cell("shm", 50, Op.GET, 4_900_000, 10_000, 50)),
            List.of());
    List<IpcTargets.Verdict> verdicts = IpcTargets.evaluate(results);
    assertEquals(5, verdicts.size());
    assertEquals(true, verdicts.get(0).met(), verdicts.get(0).toString());
    assertEquals(false, verdicts.get(1).met(), verdicts.get(1).toString());
    assertEquals(false, verdicts.get(2).met(), verdicts.get(2).toString());
    assertEquals(true, verdicts.get(3).met(), verdicts.get(3).toString());
    assertEquals(false, verdicts.get(4).met(), verdicts.get(4).toString());
  }

  @Test
  void aTargetWhoseCellsWereNotRunIsNotMeasuredRatherThanFailed() {
    IpcResults results =
        new IpcResults(List.of(cell("tcp", 1, Op.GET, 50_000, 31_000, 1_000)), List.of());
    for (IpcTargets.Verdict v : IpcTargets.evaluate(results)) {
      assertNull(v.met(), v.toString());
    }
  }

  @Test
  void percentilesAreNearestRank() {
    LatencySamples samples = new LatencySamples();
    for (int i = 100_000; i >= 1; i--) {
      samples.add(i);
    }
    assertEquals(50_000, samples.percentile(50));
    assertEquals(99_000, samples.percentile(99));
    assertEquals(99_900, samples.percentile(99.9));
    assertEquals(100_000, samples.percentile(100));
  }

  @Test
  void theGetRateIsJudgedOnTheFasterModeAndTheRatiosOnCopies() {
    IpcResults results =
        new IpcResults(
            List.of(
                cell("shm", 1, Op.GET, Mode.COPY, 1_000_000, 1_000, 250),
                cell("tcp", 1, Op.GET, Mode.COPY, 50_000, 29_000, 1_000),
                // Zero-copy at batch 1 would meet both ratios: the copies are what count.
                cell("shm", 1, Op.GET, Mode.ZERO_COPY, 1_000_000, 100, 10),
                cell("shm", 50, Op.GET, Mode.COPY, 4_900_000, 10_000, 50),
                cell("shm", 50, Op.GET, Mode.ZERO_COPY, 5_100_000, 9_000, 40)),
            List.of());
    List<IpcTargets.Verdict> verdicts = IpcTargets.evaluate(results);
    assertEquals(false, verdicts.get(0).met(), verdicts.get(0).toString());
    assertEquals(true, verdicts.get(2).met(), verdicts.get(2).toString());
    assertEquals(
        true, verdicts.get(2).measured().contains("zero-copy"), verdicts.get(2).measured());
    assertEquals(false, verdicts.get(3).met(), verdicts.get(3).toString());
  }

  private static CellResult cell(
      String transport, int batch, Op op, long opsPerSecond, long rttP50, long cpuNanosPerOp) {
    return cell(transport, batch, op, Mode.COPY, opsPerSecond, rttP50, cpuNanosPerOp);
  }

  /** A one-second cell with the given throughput, median round trip and server CPU per op. */
  private static CellResult cell(
      String transport,
      int batch,
      Op op,
      Mode mode,
      long opsPerSecond,
      long rttP50,
      long cpuNanosPerOp) {
    return new CellResult(
        "cellar",
        transport,
        batch,
        op,
        mode,
        opsPerSecond,
        1.0,
        rttP50,
        rttP50 * 2,
        rttP50 * 3,
        rttP50 * 4,
        rttP50,
        cpuNanosPerOp * opsPerSecond,
        0,
        cpuNanosPerOp * opsPerSecond);
  }
}
