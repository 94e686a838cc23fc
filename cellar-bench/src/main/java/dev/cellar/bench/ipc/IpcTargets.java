package dev.cellar.bench.ipc;

import dev.cellar.bench.server.Format;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The shared-memory transport's targets, judged on the run's own cells (never against numbers of
 * another run or host): at batch 1 a round trip (p50) at most 1/30 of TCP's and server CPU per
 * command at most 0.2x TCP's, for GET and for SET, with values copied (the mode both commands
 * have); and at least 5 M GET/s at batch 50 with one client thread and one server agent, in the
 * faster of the two modes.
 */
final class IpcTargets {
  static final double RTT_RATIO = 30;
  static final double GETS_PER_SECOND = 5_000_000;
  static final double CPU_RATIO = 0.2;

  private IpcTargets() {}

  /**
   * @param met null when the run did not measure what the target needs
   */
  record Verdict(String target, String required, String measured, Boolean met) {}

  static List<Verdict> evaluate(IpcResults results) {
    List<Verdict> verdicts = new ArrayList<>();
    for (Op op : Op.values()) {
      Optional<CellResult> shm = results.cellar("shm", 1, op);
      Optional<CellResult> tcp = results.cellar("tcp", 1, op);
      String name = op.id().toUpperCase(Locale.ROOT);
      if (shm.isPresent() && tcp.isPresent()) {
        double ratio = (double) tcp.get().rttP50() / shm.get().rttP50();
        verdicts.add(
            new Verdict(
                "RTT p50, batch 1, " + name,
                "shm ≤ 1/" + (int) RTT_RATIO + " of tcp (tcp/shm ≥ " + (int) RTT_RATIO + ")",
                "tcp/shm " + Format.ratio(ratio),
                ratio >= RTT_RATIO));
      } else {
        verdicts.add(notMeasured("RTT p50, batch 1, " + name, "shm and tcp at batch 1"));
      }
    }
    // The faster of the two ways of reading values (the paper's figure is zero-copy).
    Optional<CellResult> gets =
        Stream.of(Mode.values())
            .map(mode -> results.cellar("shm", 50, Op.GET, mode))
            .flatMap(Optional::stream)
            .max(java.util.Comparator.comparingDouble(CellResult::opsPerSecond));
    verdicts.add(
        gets.map(
                g ->
                    new Verdict(
                        "GET/s, batch 50, shm, 1 client thread, 1 agent",
                        "≥ " + Format.rate(GETS_PER_SECOND),
                        Format.rate(g.opsPerSecond()) + " (" + g.mode().id() + ")",
                        g.opsPerSecond() >= GETS_PER_SECOND))
            .orElse(
                notMeasured(
                    "GET/s, batch 50, shm, 1 client thread, 1 agent", "shm GET at batch 50")));
    for (Op op : Op.values()) {
      Optional<CellResult> shm = results.cellar("shm", 1, op);
      Optional<CellResult> tcp = results.cellar("tcp", 1, op);
      String name = "server CPU per op, batch 1, " + op.id().toUpperCase(Locale.ROOT);
      if (shm.isPresent() && tcp.isPresent()) {
        double ratio = shm.get().serverCpuPerOp() / tcp.get().serverCpuPerOp();
        verdicts.add(
            new Verdict(
                name,
                "shm ≤ " + CPU_RATIO + "x tcp",
                "shm/tcp " + Format.ratio(ratio),
                ratio <= CPU_RATIO));
      } else {
        verdicts.add(notMeasured(name, "shm and tcp at batch 1"));
      }
    }
    return verdicts;
  }

  private static Verdict notMeasured(String target, String needs) {
    return new Verdict(target, "", "not measured (needs " + needs + ")", null);
  }
}
