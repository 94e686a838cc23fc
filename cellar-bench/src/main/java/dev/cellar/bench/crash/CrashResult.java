package dev.cellar.bench.crash;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of a crash loop: each cycle, and the failure that stopped it early, if any. It passes
 * when every cycle ran and nothing was found wrong.
 */
public record CrashResult(CrashSettings settings, List<CycleOutcome> cycles, String failure) {

  public CrashResult {
    cycles = List.copyOf(cycles);
  }

  public boolean passed() {
    return failure == null && violations().isEmpty() && cycles.size() == settings.cycles();
  }

  public List<Violation> violations() {
    List<Violation> all = new ArrayList<>();
    cycles.forEach(c -> all.addAll(c.violations()));
    return all;
  }

  /** Violations where an acknowledged state was not found (absent or different), the loop's bar. */
  public long losses() {
    return violations().stream()
        .filter(v -> v.kind() == Violation.Kind.LOST || v.kind() == Violation.Kind.WRONG)
        .count();
  }

  public long acknowledged() {
    return cycles.stream().mapToLong(CycleOutcome::acknowledged).sum();
  }

  public long keysChecked() {
    return cycles.stream().mapToLong(CycleOutcome::keysChecked).sum();
  }

  public long killsDuringCompaction() {
    return cycles.stream().filter(CycleOutcome::compactionRunning).count();
  }

  public long killsDuringCheckpoint() {
    return cycles.stream().filter(CycleOutcome::checkpointRunning).count();
  }

  /** Cycles whose kill was meant to hit {@code moment}. */
  public long cyclesAt(KillMoment moment) {
    return cycles.stream().filter(c -> c.moment() == moment).count();
  }

  /** Of those, the ones whose kill did hit its work. */
  public long hitsAt(KillMoment moment) {
    return cycles.stream()
        .filter(c -> c.moment() == moment)
        .filter(
            c -> moment == KillMoment.COMPACTION ? c.compactionRunning() : c.checkpointRunning())
        .count();
  }

  public String summary() {
    return String.format(
        Locale.ROOT,
        "%s: %d of %d cycles, %,d writes acknowledged, %,d key checks; kills with a compaction running %d (%d of the %d after "
            + "BGREWRITEAOF), with a checkpoint running %d (%d of the %d after BGSAVE); losses %d, other violations %d%s",
        passed() ? "PASSED" : "FAILED",
        cycles.size(),
        settings.cycles(),
        acknowledged(),
        keysChecked(),
        killsDuringCompaction(),
        hitsAt(KillMoment.COMPACTION),
        cyclesAt(KillMoment.COMPACTION),
        killsDuringCheckpoint(),
        hitsAt(KillMoment.CHECKPOINT),
        cyclesAt(KillMoment.CHECKPOINT),
        losses(),
        violations().size() - losses(),
        failure == null ? "" : "; stopped: " + failure);
  }

  /** The JSON report's {@code summary}, {@code cycles} and {@code violations}. */
  Map<String, Object> describe() {
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("passed", passed());
    summary.put("cycles_run", cycles.size());
    summary.put("acknowledged_writes", acknowledged());
    summary.put("key_checks", keysChecked());
    summary.put("kills_during_compaction", killsDuringCompaction());
    summary.put("kills_during_checkpoint", killsDuringCheckpoint());
    summary.put("losses", losses());
    summary.put("violations", violations().size());
    summary.put("failure", failure);
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("summary", summary);
    root.put("cycles", cycles.stream().map(CrashResult::cycle).toList());
    root.put("violations", violations().stream().limit(1000).map(Violation::toString).toList());
    return root;
  }

  private static Map<String, Object> cycle(CycleOutcome c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cycle", c.cycle());
    m.put("moment", c.moment().name().toLowerCase(Locale.ROOT));
    m.put("started", c.started());
    m.put("kill_delay_ms", c.killDelayMillis());
    m.put("compaction_running", c.compactionRunning());
    m.put("checkpoint_running", c.checkpointRunning());
    m.put("compaction_passes", c.compactions());
    m.put("write_ms", c.writeMillis());
    m.put("acknowledged", c.acknowledged());
    m.put("in_flight", c.inFlight());
    m.put("restart_ms", c.restartMillis());
    m.put("keys_checked", c.keysChecked());
    m.put("violations", c.violations().size());
    return m;
  }

  /** The Markdown section for {@code docs/benchmarks.md}. */
  String markdown(String heading) {
    StringBuilder md = new StringBuilder(heading).append("\n\n");
    md.append(
        "| killed | cycles | compaction running at the kill | checkpoint running at the kill | writes acknowledged | losses |\n");
    md.append("|---|---:|---:|---:|---:|---:|\n");
    for (KillMoment moment : KillMoment.values()) {
      List<CycleOutcome> at = cycles.stream().filter(c -> c.moment() == moment).toList();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %d | %,d | %d |%n",
              moment.description(),
              at.size(),
              at.stream().filter(CycleOutcome::compactionRunning).count(),
              at.stream().filter(CycleOutcome::checkpointRunning).count(),
              at.stream().mapToLong(CycleOutcome::acknowledged).sum(),
              at.stream()
                  .flatMap(c -> c.violations().stream())
                  .filter(v -> v.kind() == Violation.Kind.LOST || v.kind() == Violation.Kind.WRONG)
                  .count()));
    }
    md.append(
        String.format(
            Locale.ROOT,
            "| **all** | **%d** | **%d** | **%d** | **%,d** | **%d** |%n%n",
            cycles.size(),
            killsDuringCompaction(),
            killsDuringCheckpoint(),
            acknowledged(),
            losses()));
    md.append(summary()).append('\n');
    return md.toString();
  }
}
