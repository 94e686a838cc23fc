package dev.cellar.bench.cache;

import dev.cellar.bench.embedded.MachineInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench cache-policy}: which eviction policy the read cache of {@code --io direct}
 * should use. A trace-driven simulation over integer keys (a key stands for a 4 KiB page of a log
 * segment): LRU as the baseline, CLOCK, S3-FIFO and SIEVE, with random replacement as the floor, on
 * Zipf traces of three skews, one with a scan through 30% of the keys in the middle and one whose
 * hot set moves, at five cache sizes. It also times each policy's own bookkeeping on one thread and
 * counts the hits that had to write shared state, which is what decides how well a policy serves
 * many event loops at once.
 *
 * <p>Simulated rather than measured on the store: a miss ratio depends only on the policy and the
 * trace, and the simulation reaches ten million requests at five sizes in seconds, where a real
 * cache in front of O_DIRECT reads would measure the disk.
 */
@Command(
    name = "cache-policy",
    mixinStandardHelpOptions = true,
    description =
        "Miss ratios of LRU, CLOCK, S3-FIFO and SIEVE on skewed, scanned and shifting traces, by"
            + " simulation, and each policy's requests/s on one thread.")
public final class CachePolicyBenchmark implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--keys",
      defaultValue = "1000000",
      description = "key space (default: ${DEFAULT-VALUE})")
  int keys;

  @Option(
      names = "--requests",
      defaultValue = "10000000",
      description = "requests per trace, besides the scan (default: ${DEFAULT-VALUE})")
  int requests;

  @Option(
      names = "--sizes",
      split = ",",
      defaultValue = "0.1,1,5,10,25",
      description = "cache sizes in percent of the key space (default: ${DEFAULT-VALUE})")
  double[] sizes;

  @Option(
      names = "--policies",
      split = ",",
      defaultValue = "lru,clock,s3-fifo,sieve,random",
      description = "policies, LRU first as the baseline (default: ${DEFAULT-VALUE})")
  String[] policies;

  @Option(
      names = "--traces",
      split = ",",
      defaultValue = "zipf-0.8,zipf-0.99,zipf-1.2,zipf-0.99+scan,zipf-0.99-shifting",
      description = "traces (default: ${DEFAULT-VALUE})")
  String[] traces;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "trace seed (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(
      names = "--rounds",
      defaultValue = "3",
      description =
          "timed passes per policy for requests/s, the best kept; 0 for none (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(
      names = "--json",
      description = "also write the results as JSON to this file ('-' for stdout)")
  String json;

  @Override
  public Integer call() throws IOException {
    List<PolicyKind> policyKinds;
    List<TraceKind> traceKinds;
    try {
      policyKinds = Arrays.stream(policies).map(PolicyKind::byId).toList();
      traceKinds = Arrays.stream(traces).map(TraceKind::byId).toList();
      check();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    long started = System.nanoTime();
    List<SimulationResult> results = new ArrayList<>();
    for (TraceKind trace : traceKinds) {
      int[] requested = trace.generate(keys, requests, seed);
      for (double size : sizes) {
        int capacity = capacity(size);
        for (PolicyKind policy : policyKinds) {
          SimulationResult r =
              Simulation.run(
                  policy, trace, size, capacity, requested, trace.window(keys, requests));
          System.err.printf(
              Locale.ROOT,
              "%-20s %-8s %6s%% %,10d entries: miss ratio %.4f%n",
              trace.id(),
              policy.id(),
              size,
              capacity,
              r.missRatio());
          results.add(r);
        }
      }
    }
    List<CachePolicyReport.Throughput> speeds = throughput(policyKinds);
    CachePolicyReport report = new CachePolicyReport(results, speeds);
    System.out.println(
        String.format(
            Locale.ROOT,
            "`./cellar bench cache-policy%s`: %,d keys, %,d requests per trace, seed %d, %.0f s.",
            spec.commandLine().getParseResult().originalArgs().stream()
                .map(arg -> " " + arg)
                .reduce("", String::concat),
            keys,
            requests,
            seed,
            (System.nanoTime() - started) / 1e9));
    System.out.print(report.markdown());
    if (json != null) {
      String text = report.json(MachineInfo.describe(), settings());
      if (json.equals("-")) {
        System.out.print(text);
      } else {
        Files.writeString(Path.of(json), text, StandardCharsets.UTF_8);
      }
    }
    return 0;
  }

  /** Single-threaded requests/s of each policy on Zipf 0.99 with a cache of 10% of the keys. */
  private List<CachePolicyReport.Throughput> throughput(List<PolicyKind> policyKinds) {
    List<CachePolicyReport.Throughput> speeds = new ArrayList<>();
    if (rounds == 0) {
      return speeds;
    }
    int[] requested = TraceKind.ZIPF_0_99.generate(keys, requests, seed);
    int capacity = capacity(10);
    for (PolicyKind policy : policyKinds) {
      double perSecond = Simulation.requestsPerSecond(policy, capacity, requested, rounds);
      System.err.printf(Locale.ROOT, "throughput %-8s %,.0f requests/s%n", policy.id(), perSecond);
      speeds.add(new CachePolicyReport.Throughput(policy, TraceKind.ZIPF_0_99, 10, perSecond));
    }
    return speeds;
  }

  private int capacity(double sizePercent) {
    return (int) Math.max(1, Math.round(keys * sizePercent / 100));
  }

  private void check() {
    if (keys < 1 || requests < 1) {
      throw new IllegalArgumentException(
          "--keys " + keys + ", --requests " + requests + ": give at least 1 of each");
    }
    for (double size : sizes) {
      if (!(size > 0 && size <= 100)) {
        throw new IllegalArgumentException(
            "--sizes " + size + "%: give sizes above 0 and up to 100");
      }
    }
    if (!policies[0].equalsIgnoreCase("lru")) {
      throw new IllegalArgumentException(
          "--policies " + String.join(",", policies) + ": name lru first, the baseline");
    }
  }

  private Map<String, Object> settings() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("keys", keys);
    m.put("requests", requests);
    m.put("seed", seed);
    m.put("sizes_percent", Arrays.stream(sizes).boxed().toList());
    m.put("policies", List.of(policies));
    m.put("traces", List.of(traces));
    m.put("rounds", rounds);
    return m;
  }
}
