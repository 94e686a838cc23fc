package dev.cellar.bench.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Everything one benchmark run measured, as recorded, and the medians over rounds that the report
 * and the targets read. Each figure (ops/s, p50, p99) is the median of its own samples: with
 * servers alternating first and second from round to round, a noisy stretch of the machine spoils
 * one sample of each, not the comparison.
 *
 * <p>Owned by the benchmark's main thread.
 */
final class Results {
  private final List<Run> runs = new ArrayList<>();
  private final List<SyscallRun> syscalls = new ArrayList<>();
  private final List<MemoryRun> memory = new ArrayList<>();
  private final List<WarmupRun> warmups = new ArrayList<>();
  private final List<ColdRun> colds = new ArrayList<>();
  private final List<SustainedRun> sustained = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();

  /**
   * One measured redis-benchmark run.
   *
   * @param serverCpuShare the server's CPU time over the run's wall time: near 1.0 when pinned
   *     means the server's core was saturated; well below means the client was the limit
   * @param compilerCpuShare the part of that wall time the server's JIT compilers used (0 for
   *     Redis)
   */
  record Run(
      String placement,
      Durability durability,
      ServerKind server,
      int round,
      Workload workload,
      RedisBenchmarkCsv.Row row,
      double serverCpuShare,
      double compilerCpuShare) {}

  /**
   * One session's warm-up.
   *
   * @param rounds warm-up rounds run (each: every test at every measured depth)
   * @param lastCompilerShare the JIT compilers' CPU over the last round's wall time
   */
  record WarmupRun(
      String placement,
      Durability durability,
      ServerKind server,
      int round,
      int rounds,
      double lastCompilerShare) {}

  /**
   * A server's first seconds: how long from its launch (Cellar: the {@code cellar} launcher, with
   * its checks and the JVM's start) until it answered PING, and the first requests it served.
   *
   * @param readySeconds from starting the process to the first PONG
   * @param compilerCpuShare the part of the run's wall time the server's JIT compilers used
   */
  record ColdRun(
      String placement,
      Durability durability,
      ServerKind server,
      int round,
      double readySeconds,
      Workload workload,
      RedisBenchmarkCsv.Row row,
      double compilerCpuShare) {}

  /**
   * One measured run of the sustained-overwrite row (pinned; see {@link Settings.Sustained}).
   *
   * @param wallSeconds the measured run's wall time, as the harness timed it
   * @param cost the server's CPU, its CPU by thread role and its writes to storage over the run
   *     (process and children: {@link ProcessAccounting})
   * @param compilerCpuShare the part of the wall time the JIT compilers used (0 for Redis)
   * @param dataBytes bytes in the server's data directory at the end (log, checkpoints, AOF)
   */
  record SustainedRun(
      Durability durability,
      ServerKind server,
      int round,
      Workload workload,
      RedisBenchmarkCsv.Row row,
      double wallSeconds,
      ProcessAccounting.Snapshot cost,
      double compilerCpuShare,
      long dataBytes) {

    /**
     * What the SETs asked the server to keep: each acknowledged SET's key and value bytes. Every
     * request redis-benchmark sends ({@code -n}) is acknowledged before it exits; its keys are
     * {@code key:} and 12 digits.
     */
    long acknowledgedBytes() {
      return workload.requests() * (KeyLoader.KEY_BYTES + workload.valueSize());
    }

    /** Bytes the server sent to storage per acknowledged byte. */
    double writeAmplification() {
      return (double) cost.writeBytes() / acknowledgedBytes();
    }

    /** Server CPU (all threads and children) per request, in microseconds. */
    double cpuMicrosPerRequest() {
      return cost.cpuSeconds() * 1e6 / workload.requests();
    }

    /** One thread role's CPU per request, in microseconds. */
    double cpuMicrosPerRequest(String role) {
      return (double) cost.ticksOf(role)
          / ProcessAccounting.TICKS_PER_SECOND
          * 1e6
          / workload.requests();
    }

    double serverCpuShare() {
      return cost.cpuSeconds() / wallSeconds;
    }
  }

  /** Medians of one server's sustained runs at one durability level. */
  record SustainedSummary(
      double opsPerSecond,
      double cpuMicrosPerRequest,
      double writeAmplification,
      double dataBytes,
      int samples) {}

  /** Both servers' sustained summaries at one durability level. */
  record SustainedComparison(SustainedSummary redis, SustainedSummary cellar) {
    double ratio() {
      return cellar.opsPerSecond() / redis.opsPerSecond();
    }
  }

  /** Syscalls counted while one traced workload ran. */
  record SyscallRun(ServerKind server, Workload workload, StraceSummary summary) {
    double perOperation() {
      return (double) summary.totalCalls() / workload.requests();
    }
  }

  /**
   * Memory after loading the key space.
   *
   * @param usedMemoryRss Redis's own {@code used_memory_rss} (INFO memory), null for Cellar
   * @param usedMemory Redis's {@code used_memory} (what its allocator holds for data), null for
   *     Cellar
   */
  record MemoryRun(
      ServerKind server, int round, ResidentMemory resident, Long usedMemoryRss, Long usedMemory) {
    /** The figure compared: Redis's {@code used_memory_rss}, Cellar's {@code VmRSS}. */
    long comparedBytes() {
      return usedMemoryRss != null ? usedMemoryRss : resident.vmRss();
    }
  }

  /** Medians of one server's runs of one configuration. */
  record Summary(
      double opsPerSecond, double p50Ms, double p99Ms, double serverCpuShare, int samples) {}

  /** Both servers' summaries for one configuration. */
  record Comparison(Summary redis, Summary cellar) {
    double ratio() {
      return cellar.opsPerSecond() / redis.opsPerSecond();
    }
  }

  void add(Run run) {
    runs.add(run);
  }

  void add(ColdRun run) {
    colds.add(run);
  }

  List<ColdRun> coldRuns() {
    return List.copyOf(colds);
  }

  void add(SustainedRun run) {
    sustained.add(run);
  }

  List<SustainedRun> sustainedRuns() {
    return List.copyOf(sustained);
  }

  Optional<SustainedSummary> sustained(Durability durability, ServerKind server) {
    List<SustainedRun> matching =
        sustained.stream()
            .filter(r -> r.durability() == durability && r.server() == server)
            .toList();
    if (matching.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new SustainedSummary(
            median(matching, r -> r.row().opsPerSecond()),
            median(matching, SustainedRun::cpuMicrosPerRequest),
            median(matching, SustainedRun::writeAmplification),
            median(matching, r -> r.dataBytes()),
            matching.size()));
  }

  Optional<SustainedComparison> compareSustained(Durability durability) {
    Optional<SustainedSummary> redis = sustained(durability, ServerKind.REDIS);
    Optional<SustainedSummary> cellar = sustained(durability, ServerKind.CELLAR);
    return redis.isPresent() && cellar.isPresent()
        ? Optional.of(new SustainedComparison(redis.get(), cellar.get()))
        : Optional.empty();
  }

  void add(WarmupRun run) {
    warmups.add(run);
  }

  List<WarmupRun> warmupRuns() {
    return List.copyOf(warmups);
  }

  void add(SyscallRun run) {
    syscalls.add(run);
  }

  void add(MemoryRun run) {
    memory.add(run);
  }

  void fail(String what) {
    failures.add(what);
  }

  List<Run> runs() {
    return runs;
  }

  List<SyscallRun> syscallRuns() {
    return syscalls;
  }

  List<MemoryRun> memoryRuns() {
    return memory;
  }

  List<String> failures() {
    return failures;
  }

  Optional<Comparison> compare(String placement, Durability durability, String test, int pipeline) {
    Optional<Summary> redis = summary(placement, durability, ServerKind.REDIS, test, pipeline);
    Optional<Summary> cellar = summary(placement, durability, ServerKind.CELLAR, test, pipeline);
    return redis.isPresent() && cellar.isPresent()
        ? Optional.of(new Comparison(redis.get(), cellar.get()))
        : Optional.empty();
  }

  Optional<Summary> summary(
      String placement, Durability durability, ServerKind server, String test, int pipeline) {
    List<Run> matching =
        runs.stream()
            .filter(
                r ->
                    r.placement().equals(placement)
                        && r.durability() == durability
                        && r.server() == server
                        && r.workload().test().equals(test)
                        && r.workload().pipeline() == pipeline)
            .toList();
    if (matching.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Summary(
            median(matching, r -> r.row().opsPerSecond()),
            median(matching, r -> r.row().p50Ms()),
            median(matching, r -> r.row().p99Ms()),
            median(matching, Run::serverCpuShare),
            matching.size()));
  }

  Optional<SyscallRun> syscalls(ServerKind server, String test, int pipeline) {
    return syscalls.stream()
        .filter(
            s ->
                s.server() == server
                    && s.workload().test().equals(test)
                    && s.workload().pipeline() == pipeline)
        .findFirst();
  }

  /** The median compared figure of one server's memory readings. */
  Optional<Double> memory(ServerKind server) {
    return medianOf(memory, m -> m.server() == server, m -> m.comparedBytes());
  }

  private static <T> Optional<Double> medianOf(
      List<T> items, Predicate<T> filter, ToDoubleFunction<T> value) {
    List<T> matching = items.stream().filter(filter).toList();
    return matching.isEmpty() ? Optional.empty() : Optional.of(median(matching, value));
  }

  static <T> double median(List<T> items, ToDoubleFunction<T> value) {
    double[] sorted = items.stream().mapToDouble(value).sorted().toArray();
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  /** For tests and callers holding plain numbers. */
  static double median(double... values) {
    return median(Arrays.stream(values).boxed().toList(), Double::doubleValue);
  }
}
