package dev.cellar.bench.server;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The report as Markdown tables: printed on stdout and, with {@code --markdown}, written into the
 * marked section of {@code docs/benchmarks.md}.
 */
final class MarkdownReport {
  private static final int TOP_SYSCALLS = 4;

  private MarkdownReport() {}

  static String render(
      String heading,
      Settings settings,
      List<Placement> placements,
      Results results,
      List<Target.Verdict> verdicts) {
    StringBuilder md = new StringBuilder();
    md.append(heading).append("\n\n");
    if (!settings.sustained().only()) {
      for (Placement placement : placements) {
        throughput(md, settings, placement, results);
      }
    }
    sustained(md, settings, results);
    cold(md, settings, results);
    warmup(md, settings, results);
    syscalls(md, settings, results);
    memory(md, settings, results);
    targets(md, verdicts);
    failures(md, results);
    return md.toString();
  }

  private static void throughput(
      StringBuilder md, Settings settings, Placement placement, Results results) {
    md.append("**")
        .append(placement.id().substring(0, 1).toUpperCase(Locale.ROOT))
        .append(placement.id().substring(1))
        .append("**: ")
        .append(placement.describe())
        .append(".\n\n");
    md.append(
        "| durability | test | pipeline | Redis ops/s | Redis p50 / p99 ms | Cellar ops/s | Cellar p50 / p99 ms | Cellar / Redis | server CPU, Redis / Cellar |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    List<Durability> modes = placement.isPinned() ? settings.modes() : List.of(Durability.NO);
    for (Durability durability : modes) {
      for (int pipeline : settings.pipelines()) {
        for (String test : settings.tests()) {
          Optional<Results.Summary> redis =
              results.summary(placement.id(), durability, ServerKind.REDIS, test, pipeline);
          Optional<Results.Summary> cellar =
              results.summary(placement.id(), durability, ServerKind.CELLAR, test, pipeline);
          if (redis.isEmpty() && cellar.isEmpty()) {
            continue;
          }
          md.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %s | %d | %s | %s | %s | %s | %s | %s / %s |%n",
                  durability.id(),
                  test.toUpperCase(Locale.ROOT),
                  pipeline,
                  redis.map(s -> Format.rate(s.opsPerSecond())).orElse("failed"),
                  latencies(redis),
                  cellar.map(s -> Format.rate(s.opsPerSecond())).orElse("failed"),
                  latencies(cellar),
                  redis.isPresent() && cellar.isPresent()
                      ? "**"
                          + Format.ratio(cellar.get().opsPerSecond() / redis.get().opsPerSecond())
                          + "**"
                      : "–",
                  redis.map(s -> Format.percent(s.serverCpuShare())).orElse("–"),
                  cellar.map(s -> Format.percent(s.serverCpuShare())).orElse("–")));
        }
      }
    }
    md.append('\n');
  }

  /**
   * The sustained-overwrite row: per durability level, both servers' throughput, their CPU per
   * request, Cellar's CPU split by thread role, and each server's write amplification.
   */
  private static void sustained(StringBuilder md, Settings settings, Results results) {
    if (results.sustainedRuns().isEmpty()) {
      return;
    }
    Settings.Sustained s = settings.sustained();
    md.append(
        String.format(
            Locale.ROOT,
            "**Sustained overwrites** (pinned as above, a session per server and mode: %,d keys loaded, %,d SETs untimed,"
                + " then %,d SETs measured, at pipeline %d over the whole key space; medians): server CPU is every thread's"
                + " and child's, per request; write amplification is bytes the server process sent to storage"
                + " (`/proc/PID/io` `write_bytes`, children included) over the key and value bytes of the SETs acknowledged"
                + " (%d + %d a SET).%n%n",
            settings.keyspace(),
            s.warmup(),
            s.requests(),
            Settings.Sustained.PIPELINE,
            KeyLoader.KEY_BYTES,
            settings.valueSize()));
    md.append(
        "| durability | Redis ops/s | Cellar ops/s | Cellar / Redis | server CPU µs a request, Redis / Cellar"
            + " | the same, Redis's over Cellar's"
            + " | Cellar's CPU µs a request: event loop / compaction / fsync / prefault / GC / JIT / other"
            + " | write amplification, Redis / Cellar | data at the end, Redis / Cellar |\n");
    md.append("|---|---:|---:|---:|---:|---:|---|---:|---:|\n");
    for (Durability durability : s.modes()) {
      Optional<Results.SustainedSummary> redis = results.sustained(durability, ServerKind.REDIS);
      Optional<Results.SustainedSummary> cellar = results.sustained(durability, ServerKind.CELLAR);
      if (redis.isEmpty() && cellar.isEmpty()) {
        continue;
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s / %s | %s | %s | %s / %s | %s / %s |%n",
              durability.id(),
              redis.map(r -> Format.rate(r.opsPerSecond())).orElse("failed"),
              cellar.map(r -> Format.rate(r.opsPerSecond())).orElse("failed"),
              redis.isPresent() && cellar.isPresent()
                  ? "**"
                      + Format.ratio(cellar.get().opsPerSecond() / redis.get().opsPerSecond())
                      + "**"
                  : "–",
              redis.map(r -> twoDecimals(r.cpuMicrosPerRequest())).orElse("–"),
              cellar.map(r -> twoDecimals(r.cpuMicrosPerRequest())).orElse("–"),
              redis.isPresent() && cellar.isPresent()
                  ? Format.ratio(
                      redis.get().cpuMicrosPerRequest() / cellar.get().cpuMicrosPerRequest())
                  : "–",
              cellarThreads(results, durability),
              redis.map(r -> twoDecimals(r.writeAmplification())).orElse("–"),
              cellar.map(r -> twoDecimals(r.writeAmplification())).orElse("–"),
              redis.map(r -> Format.bytes(r.dataBytes())).orElse("–"),
              cellar.map(r -> Format.bytes(r.dataBytes())).orElse("–")));
    }
    md.append('\n');
  }

  /** Cellar's CPU per request by thread role, each the median over its runs. */
  private static String cellarThreads(Results results, Durability durability) {
    List<Results.SustainedRun> runs =
        results.sustainedRuns().stream()
            .filter(r -> r.durability() == durability && r.server() == ServerKind.CELLAR)
            .toList();
    if (runs.isEmpty()) {
      return "–";
    }
    return List.of(
            ProcessAccounting.EVENT_LOOP,
            ProcessAccounting.COMPACTION,
            ProcessAccounting.FSYNC,
            ProcessAccounting.PREFAULT,
            ProcessAccounting.GC,
            ProcessAccounting.JIT,
            ProcessAccounting.OTHER)
        .stream()
        .map(role -> twoDecimals(Results.median(runs, r -> r.cpuMicrosPerRequest(role))))
        .collect(Collectors.joining(" / "));
  }

  private static String twoDecimals(double value) {
    return String.format(Locale.ROOT, "%.2f", value);
  }

  /**
   * The cold row: each server's first seconds, against its own warm SET P1 at the same placement
   * and durability (medians over rounds). A session whose start built the project or the start-up
   * cache would count too, which is why the benchmark runs the launcher once before any session.
   */
  private static void cold(StringBuilder md, Settings settings, Results results) {
    if (results.coldRuns().isEmpty()) {
      return;
    }
    md.append(
        String.format(
            Locale.ROOT,
            "**Cold**: from launch to the first PONG, then the first %,d SETs at pipeline 1, sent at once, against the same server's warm SET P1 (medians):%n%n",
            settings.coldRequests()));
    md.append(
        "| placement | durability | server | launch to PONG | cold SET P1 ops/s | warm SET P1 ops/s | cold / warm | JIT compilers, cold |\n");
    md.append("|---|---|---|---:|---:|---:|---:|---:|\n");
    Map<List<Object>, List<Results.ColdRun>> sessions =
        results.coldRuns().stream()
            .collect(
                Collectors.groupingBy(
                    c -> List.of(c.placement(), c.durability(), c.server()),
                    java.util.LinkedHashMap::new,
                    Collectors.toList()));
    sessions.forEach(
        (key, colds) -> {
          Results.ColdRun first = colds.getFirst();
          double cold = Results.median(colds, c -> c.row().opsPerSecond());
          Optional<Results.Summary> warm =
              results.summary(first.placement(), first.durability(), first.server(), "set", 1);
          md.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %s | %s | %.2f s | %s | %s | %s | %s |%n",
                  first.placement(),
                  first.durability().id(),
                  first.server() == ServerKind.REDIS ? "Redis" : "Cellar",
                  Results.median(colds, Results.ColdRun::readySeconds),
                  Format.rate(cold),
                  warm.map(s -> Format.rate(s.opsPerSecond())).orElse("–"),
                  warm.map(s -> "**" + Format.ratio(cold / s.opsPerSecond()) + "**").orElse("–"),
                  Format.percent(Results.median(colds, Results.ColdRun::compilerCpuShare))));
        });
    md.append('\n');
  }

  /**
   * How long each server took to warm up, and how much its JIT compilers still took when measured.
   */
  private static void warmup(StringBuilder md, Settings settings, Results results) {
    if (results.warmupRuns().isEmpty()) {
      return;
    }
    md.append(
        String.format(
            Locale.ROOT,
            "**Warm-up**: rounds of %,d untimed requests per test and depth until the JIT compilers use under %s of %d rounds in a row (at most %d rounds).",
            settings.warmup(),
            Format.percent(Settings.QUIET_COMPILER_SHARE),
            Settings.QUIET_ROUNDS,
            settings.warmupRounds()));
    for (ServerKind server : List.of(ServerKind.REDIS, ServerKind.CELLAR)) {
      List<Results.WarmupRun> warmups =
          results.warmupRuns().stream().filter(w -> w.server() == server).toList();
      if (warmups.isEmpty()) {
        continue;
      }
      int fewest = warmups.stream().mapToInt(Results.WarmupRun::rounds).min().orElseThrow();
      int most = warmups.stream().mapToInt(Results.WarmupRun::rounds).max().orElseThrow();
      double jit =
          results.runs().stream()
              .filter(r -> r.server() == server)
              .mapToDouble(Results.Run::compilerCpuShare)
              .max()
              .orElse(0);
      md.append(
          String.format(
              Locale.ROOT,
              " %s: %s round%s; compilers at most %s of a measured run.",
              server == ServerKind.REDIS ? "Redis" : "Cellar",
              fewest == most ? Integer.toString(fewest) : fewest + " to " + most,
              most == 1 ? "" : "s",
              Format.percent(jit)));
    }
    md.append("\n\n");
  }

  private static String latencies(Optional<Results.Summary> summary) {
    return summary
        .map(s -> Format.millis(s.p50Ms()) + " / " + Format.millis(s.p99Ms()))
        .orElse("–");
  }

  private static void syscalls(StringBuilder md, Settings settings, Results results) {
    if (results.syscallRuns().isEmpty()) {
      return;
    }
    md.append(
        String.format(
            Locale.ROOT,
            "**Syscalls per operation** (`strace -c -f -p PID`, all threads, pinned, durability no, %,d requests per test; "
                + "strace slows both servers, so these runs give counts, not speed):%n%n",
            settings.straceRequests()));
    md.append(
        "| test | pipeline | Redis | Cellar | Cellar / Redis | Redis, most frequent | Cellar, most frequent |\n");
    md.append("|---|---:|---:|---:|---:|---|---|\n");
    for (int pipeline : settings.stracePipelines()) {
      for (String test : settings.tests()) {
        Optional<Results.SyscallRun> redis = results.syscalls(ServerKind.REDIS, test, pipeline);
        Optional<Results.SyscallRun> cellar = results.syscalls(ServerKind.CELLAR, test, pipeline);
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %s | %s | %s | %s | %s |%n",
                test.toUpperCase(Locale.ROOT),
                pipeline,
                redis.map(r -> String.format(Locale.ROOT, "%.3f", r.perOperation())).orElse("–"),
                cellar.map(r -> String.format(Locale.ROOT, "%.3f", r.perOperation())).orElse("–"),
                redis.isPresent() && cellar.isPresent()
                    ? Format.ratio(cellar.get().perOperation() / redis.get().perOperation())
                    : "–",
                redis.map(MarkdownReport::top).orElse("–"),
                cellar.map(MarkdownReport::top).orElse("–")));
      }
    }
    md.append('\n');
  }

  /** The most frequent syscalls, per operation: {@code write 1.00, read 1.00, epoll_wait 0.04}. */
  static String top(Results.SyscallRun run) {
    return run.summary().calls().entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(TOP_SYSCALLS)
        .map(
            e ->
                String.format(
                    Locale.ROOT,
                    "%s %.2f",
                    e.getKey(),
                    (double) e.getValue() / run.workload().requests()))
        .collect(Collectors.joining(", "));
  }

  private static void memory(StringBuilder md, Settings settings, Results results) {
    Optional<Results.MemoryRun> redis =
        results.memoryRuns().stream().filter(m -> m.server() == ServerKind.REDIS).findFirst();
    Optional<Results.MemoryRun> cellar =
        results.memoryRuns().stream().filter(m -> m.server() == ServerKind.CELLAR).findFirst();
    if (redis.isEmpty() && cellar.isEmpty()) {
      return;
    }
    md.append(
        String.format(
            Locale.ROOT,
            "**Resident memory** right after loading %,d keys of %d bytes (pinned, durability no; median of rounds where several):%n%n",
            settings.keyspace(),
            settings.valueSize()));
    md.append("| | Redis | Cellar |\n|---|---:|---:|\n");
    md.append("| compared (Redis `used_memory_rss`, Cellar `VmRSS`) | ")
        .append(results.memory(ServerKind.REDIS).map(Format::bytes).orElse("–"))
        .append(" | ")
        .append(results.memory(ServerKind.CELLAR).map(Format::bytes).orElse("–"))
        .append(" |\n");
    md.append("| `VmRSS` = anonymous + file + shared (first round) | ")
        .append(redis.map(m -> breakdown(m.resident())).orElse("–"))
        .append(" | ")
        .append(cellar.map(m -> breakdown(m.resident())).orElse("–"))
        .append(" |\n");
    md.append("| Redis `used_memory` (first round) | ")
        .append(
            redis.map(m -> m.usedMemory() == null ? "–" : Format.bytes(m.usedMemory())).orElse("–"))
        .append(" | – |\n\n");
  }

  private static String breakdown(ResidentMemory m) {
    return Format.bytes(m.vmRss())
        + " = "
        + Format.bytes(m.rssAnon())
        + " + "
        + Format.bytes(m.rssFile())
        + " + "
        + Format.bytes(m.rssShmem());
  }

  private static void targets(StringBuilder md, List<Target.Verdict> verdicts) {
    md.append("**Targets**:\n\n| target | required | measured | met |\n|---|---|---|---|\n");
    for (Target.Verdict v : verdicts) {
      md.append("| ")
          .append(v.target())
          .append(" | ")
          .append(v.required())
          .append(" | ")
          .append(v.measured())
          .append(" | ")
          .append(v.met() == null ? "–" : v.met() ? "PASS" : "**FAIL**")
          .append(" |\n");
    }
    List<String> failed =
        verdicts.stream()
            .filter(v -> Boolean.FALSE.equals(v.met()))
            .map(Target.Verdict::target)
            .toList();
    long unmeasured = verdicts.stream().filter(v -> v.met() == null).count();
    md.append('\n')
        .append(
            failed.isEmpty()
                ? "All measured targets met"
                : "**"
                    + failed.size()
                    + " of "
                    + (verdicts.size() - unmeasured)
                    + " measured targets failed**: "
                    + String.join("; ", failed));
    md.append(unmeasured == 0 ? ".\n" : " (" + unmeasured + " not measured).\n");
  }

  private static void failures(StringBuilder md, Results results) {
    if (results.failures().isEmpty()) {
      return;
    }
    md.append("\n**Runs that failed** (their numbers are missing above):\n\n");
    for (String failure : results.failures()) {
      md.append("- ").append(failure.replace("\n", " ")).append('\n');
    }
  }
}
