package dev.cellar.bench.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One of the issue's targets for the server, checked against a run's results. A target whose inputs
 * were not measured (a mode left out with {@code --modes}, strace switched off) is reported as not
 * measured, neither met nor failed.
 */
sealed interface Target {

  /** The outcome: {@code met} is null when the target's inputs were not measured. */
  record Verdict(String target, String required, String measured, Boolean met) {}

  Verdict evaluate(Results results);

  /** The issue's targets, in the order the report lists them. */
  static List<Target> issueTargets() {
    List<Target> targets = new ArrayList<>();
    for (String test : List.of("set", "get")) {
      targets.add(new Throughput("pinned", Durability.NO, test, 1, 1.0));
      targets.add(new Throughput("pinned", Durability.NO, test, 16, 1.3));
      targets.add(new Throughput("pinned", Durability.NO, test, 50, 1.3));
    }
    targets.add(new Throughput("pinned", Durability.EVERYSEC, "set", 1, 1.0));
    targets.add(new Throughput("pinned", Durability.EVERYSEC, "set", 16, 1.3));
    targets.add(new Throughput("pinned", Durability.EVERYSEC, "set", 50, 1.3));
    targets.add(new Throughput("pinned", Durability.ALWAYS, "set", 1, 1.5));
    for (int pipeline : List.of(1, 16)) {
      for (String test : List.of("set", "get")) {
        targets.add(new Syscalls(test, pipeline));
      }
    }
    targets.add(new Memory());
    for (int pipeline : List.of(1, 16, 50)) {
      for (String test : List.of("set", "get")) {
        targets.add(new Throughput("unpinned", Durability.NO, test, pipeline, 1.0));
      }
    }
    targets.add(new SustainedThroughput(Durability.NO, 1.1));
    targets.add(new SustainedThroughput(Durability.EVERYSEC, 2.0));
    targets.add(new WriteAmplification(Durability.NO, 3.0));
    targets.add(new WriteAmplification(Durability.EVERYSEC, 3.0));
    return targets;
  }

  /** Cellar's median ops/s at least {@code minRatio} times Redis's, same configuration. */
  record Throughput(
      String placement, Durability durability, String test, int pipeline, double minRatio)
      implements Target {
    @Override
    public Verdict evaluate(Results results) {
      String name =
          String.format(
              Locale.ROOT,
              "%s %s P%d, %s",
              test.toUpperCase(Locale.ROOT),
              durability.id(),
              pipeline,
              placement);
      String required = String.format(Locale.ROOT, "≥ %.1fx Redis ops/s", minRatio);
      Optional<Results.Comparison> c = results.compare(placement, durability, test, pipeline);
      if (c.isEmpty()) {
        return new Verdict(name, required, "not measured", null);
      }
      String measured =
          String.format(
              Locale.ROOT,
              "%s vs %s = %.2fx",
              Format.rate(c.get().cellar().opsPerSecond()),
              Format.rate(c.get().redis().opsPerSecond()),
              c.get().ratio());
      return new Verdict(
          name, required, measured + clientCeiling(results, c.get()), c.get().ratio() >= minRatio);
    }

    /**
     * At depth 1 redis-benchmark's own core is the limit, and Redis without persistence runs at
     * about that limit: against a durable Redis, no server can show more than that rate over
     * Redis's. Reported beside a durable depth-1 target so that a reader can tell a target no
     * server could meet in this run from one Cellar missed; it does not change the verdict.
     */
    private String clientCeiling(Results results, Results.Comparison durable) {
      if (durability == Durability.NO || pipeline != 1) {
        return "";
      }
      Optional<Results.Comparison> plain =
          results.compare(placement, Durability.NO, test, pipeline);
      if (plain.isEmpty()) {
        return "";
      }
      double ceiling = plain.get().redis().opsPerSecond();
      return String.format(
          Locale.ROOT,
          " (the client's ceiling, Redis without persistence in this run: %s, at most %.2fx)",
          Format.rate(ceiling),
          ceiling / durable.redis().opsPerSecond());
    }
  }

  /** Cellar makes no more syscalls per operation than Redis (traced, pinned, durability no). */
  record Syscalls(String test, int pipeline) implements Target {
    @Override
    public Verdict evaluate(Results results) {
      String name =
          String.format(
              Locale.ROOT, "syscalls per %s, P%d", test.toUpperCase(Locale.ROOT), pipeline);
      String required = "≤ Redis";
      Optional<Results.SyscallRun> redis = results.syscalls(ServerKind.REDIS, test, pipeline);
      Optional<Results.SyscallRun> cellar = results.syscalls(ServerKind.CELLAR, test, pipeline);
      if (redis.isEmpty() || cellar.isEmpty()) {
        return new Verdict(name, required, "not measured", null);
      }
      double r = redis.get().perOperation();
      double c = cellar.get().perOperation();
      return new Verdict(name, required, String.format(Locale.ROOT, "%.3f vs %.3f", c, r), c <= r);
    }
  }

  /**
   * Cellar's VmRSS after loading the key space at most Redis's used_memory_rss after the same load.
   */
  record Memory() implements Target {
    @Override
    public Verdict evaluate(Results results) {
      String name = "resident memory after loading the key space";
      String required = "Cellar VmRSS ≤ Redis used_memory_rss";
      Optional<Double> redis = results.memory(ServerKind.REDIS);
      Optional<Double> cellar = results.memory(ServerKind.CELLAR);
      if (redis.isEmpty() || cellar.isEmpty()) {
        return new Verdict(name, required, "not measured", null);
      }
      String measured =
          String.format(
              Locale.ROOT,
              "%s vs %s = %.2fx",
              Format.bytes(cellar.get()),
              Format.bytes(redis.get()),
              cellar.get() / redis.get());
      return new Verdict(name, required, measured, cellar.get() <= redis.get());
    }
  }

  /**
   * The sustained-overwrite row: Cellar's median ops/s at least {@code minRatio} times Redis's at
   * the same durability (Redis without persistence for {@code no}, with its AOF for the others).
   */
  record SustainedThroughput(Durability durability, double minRatio) implements Target {
    @Override
    public Verdict evaluate(Results results) {
      String name =
          String.format(
              Locale.ROOT,
              "sustained SET %s P%d, pinned",
              durability.id(),
              Settings.Sustained.PIPELINE);
      String required = String.format(Locale.ROOT, "≥ %.1fx Redis ops/s", minRatio);
      Optional<Results.SustainedComparison> c = results.compareSustained(durability);
      if (c.isEmpty()) {
        return new Verdict(name, required, "not measured", null);
      }
      String measured =
          String.format(
              Locale.ROOT,
              "%s vs %s = %.2fx (server CPU %.2f vs %.2f µs a request: %.2fx)",
              Format.rate(c.get().cellar().opsPerSecond()),
              Format.rate(c.get().redis().opsPerSecond()),
              c.get().ratio(),
              c.get().cellar().cpuMicrosPerRequest(),
              c.get().redis().cpuMicrosPerRequest(),
              c.get().redis().cpuMicrosPerRequest() / c.get().cellar().cpuMicrosPerRequest());
      return new Verdict(name, required, measured, c.get().ratio() >= minRatio);
    }
  }

  /**
   * Cellar's median write amplification in the sustained row at most {@code max}: bytes its process
   * sent to storage over the key and value bytes of the SETs it acknowledged.
   */
  record WriteAmplification(Durability durability, double max) implements Target {
    @Override
    public Verdict evaluate(Results results) {
      String name = "sustained SET " + durability.id() + ", write amplification";
      String required = String.format(Locale.ROOT, "Cellar ≤ %.1f", max);
      Optional<Results.SustainedSummary> cellar = results.sustained(durability, ServerKind.CELLAR);
      if (cellar.isEmpty()) {
        return new Verdict(name, required, "not measured", null);
      }
      double amplification = cellar.get().writeAmplification();
      String redis =
          results
              .sustained(durability, ServerKind.REDIS)
              .map(r -> String.format(Locale.ROOT, " (Redis %.2f)", r.writeAmplification()))
              .orElse("");
      return new Verdict(
          name,
          required,
          String.format(Locale.ROOT, "%.2f", amplification) + redis,
          amplification <= max);
    }
  }
}
