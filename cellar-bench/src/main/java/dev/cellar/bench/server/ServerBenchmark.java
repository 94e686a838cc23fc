package dev.cellar.bench.server;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench server}: Cellar's server against {@code redis-server} on loopback, driven by
 * {@code redis-benchmark}, at equal durability, and the issue's targets checked on the spot.
 *
 * <p>Plan. Each round runs, for each durability level, a session of each server (see {@link
 * SessionRunner}): fresh process and directory, the whole key space loaded, warm-up, then SET and
 * GET at each pipeline depth. The server that goes first alternates from round to round, and the
 * report takes medians over rounds. Pinned sessions put the server on one core and redis-benchmark
 * on another; an unpinned pair (durability no) follows in each round. The first round's pinned
 * {@code no} sessions also read resident memory after the load and count syscalls under strace,
 * after their measured runs so tracing cannot slow those.
 *
 * <p>The report always exits 0 once it has run: failed targets and failed sessions are listed in
 * it, not signalled by the status. A missing tool or a bad option is an error before anything runs.
 */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    description = {
      "Cellar's server against redis-server, driven by redis-benchmark at equal durability:"
          + " SET and GET at pipelines 1, 16 and 50, pinned and unpinned; syscalls per operation"
          + " (strace) and resident memory; sustained overwrites with compaction running, and write"
          + " amplification.",
      "Prints a Markdown report that checks the server's targets (docs/benchmarks.md)."
    })
public final class ServerBenchmark implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin LauncherOptions launcherOptions;

  @Option(
      names = "--requests",
      defaultValue = "1000000",
      description = "Requests per measured test at pipelines above 1 (default ${DEFAULT-VALUE}).")
  long requests;

  @Option(
      names = "--requests-p1",
      defaultValue = "200000",
      description = "Requests per measured test at pipeline 1 (default ${DEFAULT-VALUE}).")
  long requestsP1;

  @Option(
      names = "--cold-requests",
      defaultValue = "100000",
      description =
          "SETs at pipeline 1 sent as soon as the server answers PING, before loading and warming up: the cold row; 0 for none (default ${DEFAULT-VALUE}).")
  long coldRequests;

  @Option(
      names = "--warmup",
      defaultValue = "200000",
      description =
          "Untimed requests per test and pipeline depth in one warm-up round; 0 for no warm-up (default ${DEFAULT-VALUE}).")
  long warmup;

  @Option(
      names = "--warmup-rounds",
      defaultValue = "10",
      description =
          "Most warm-up rounds; a server stops earlier once its JIT compilers used under 2%% of two rounds in a row (Redis: after two) (default ${DEFAULT-VALUE}).")
  int warmupRounds;

  @Option(
      names = "--modes",
      split = ",",
      defaultValue = "no,everysec,always",
      description = "Durability levels: no, everysec, always (default ${DEFAULT-VALUE}).")
  List<String> modes;

  @Option(
      names = "--pipelines",
      split = ",",
      defaultValue = "1,16,50",
      description = "Pipeline depths (default ${DEFAULT-VALUE}).")
  List<Integer> pipelines;

  @Option(
      names = "--tests",
      split = ",",
      defaultValue = "set,get",
      description =
          "redis-benchmark tests, in order (default ${DEFAULT-VALUE}): set, get, incr, mset, the"
              + " collection tests lpush, rpush, lpop, rpop, sadd, hset, spop, zadd, zpopmin,"
              + " lrange_100 (after lpush, as in redis-benchmark's own run), and xadd.")
  List<String> tests;

  @Option(
      names = "--keyspace",
      defaultValue = "1000000",
      description =
          "Keys loaded before measuring and drawn at random (-r) (default ${DEFAULT-VALUE}).")
  int keyspace;

  @Option(
      names = "--value-size",
      defaultValue = "60",
      description = "Value bytes (-d) (default ${DEFAULT-VALUE}).")
  int valueSize;

  @Option(
      names = "--clients",
      defaultValue = "50",
      description = "redis-benchmark connections (-c) (default ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--repeat",
      defaultValue = "3",
      description = "Rounds; the report gives medians (default ${DEFAULT-VALUE}).")
  int repeat;

  @Option(
      names = "--sustained-requests",
      defaultValue = "10000000",
      description =
          "SETs measured per session of the sustained-overwrite row (pipeline 16 over the key space); 0 for none (default ${DEFAULT-VALUE}).")
  long sustainedRequests;

  @Option(
      names = "--sustained-warmup",
      defaultValue = "10000000",
      description =
          "Untimed SETs of the same workload before the measured ones (default ${DEFAULT-VALUE}).")
  long sustainedWarmup;

  @Option(
      names = "--sustained-modes",
      split = ",",
      defaultValue = "no,everysec",
      description = "Durability levels of the sustained row (default ${DEFAULT-VALUE}).")
  List<String> sustainedModes;

  @Option(
      names = "--sustained-only",
      description = "Run the sustained-overwrite row only: no other row, strace or memory reading.")
  boolean sustainedOnly;

  @Option(
      names = "--strace",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Count syscalls per operation with strace -c -f (default on; --no-strace to skip).")
  boolean strace;

  @Option(
      names = "--strace-requests",
      defaultValue = "100000",
      description = "Requests per traced test (default ${DEFAULT-VALUE}).")
  long straceRequests;

  @Option(
      names = "--strace-pipelines",
      split = ",",
      defaultValue = "1,16",
      description = "Pipeline depths traced (default ${DEFAULT-VALUE}).")
  List<Integer> stracePipelines;

  @Option(
      names = "--rss",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description = "Compare resident memory after the load (default on; --no-rss to skip).")
  boolean rss;

  @Option(
      names = "--unpinned",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Also run unpinned, Cellar's default threads against Redis --io-threads 2 (default on; --no-unpinned to skip).")
  boolean unpinned;

  @Option(
      names = "--server-cpu",
      defaultValue = "0",
      description = "Core the servers are pinned to (default ${DEFAULT-VALUE}).")
  int serverCpu;

  @Option(
      names = "--client-cpu",
      defaultValue = "1",
      description = "Core redis-benchmark is pinned to (default ${DEFAULT-VALUE}).")
  int clientCpu;

  @Option(
      names = "--pin-harness",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Move this JVM's threads to the client's core (default on; --no-pin-harness when embedding the benchmark).")
  boolean pinHarness;

  @Option(
      names = "--out",
      description =
          "JSON results file; '-' for none (default docs/benchmarks/server-<date>.json in the checkout).")
  String out;

  @Option(
      names = "--markdown",
      description =
          "Also write the report into this Markdown file, between "
              + MarkdownSection.BEGIN
              + " and "
              + MarkdownSection.END
              + " (e.g. docs/benchmarks.md).")
  Path markdown;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintStream log = System.err;
    Settings settings = settings();
    Tools tools = tools();
    checkMarkdownTarget();
    ChildProcesses children = new ChildProcesses().installShutdownHook();
    Map<String, Object> machine = Host.describe(tools);
    List<Placement> placements = new ArrayList<>(List.of(Placement.pinned(serverCpu, clientCpu)));
    if (unpinned && !settings.sustained().only()) {
      placements.add(Placement.unpinned(Host.allowedCpus()));
    }
    if (pinHarness) {
      Host.pinThisJvm(tools, clientCpu, log);
    }
    Path runDir = launcherOptions.newRunDirectory("cellar-bench-server-");
    log.printf(
        Locale.ROOT,
        "server benchmark: %,d keys of %d B, %d clients, %s, %d rounds; data in %s%n",
        settings.keyspace(),
        settings.valueSize(),
        settings.clients(),
        settings.sustained().only()
            ? "the sustained row only"
            : String.format(
                Locale.ROOT,
                "%s, pipelines %s, modes %s",
                settings.tests(),
                settings.pipelines(),
                modes),
        settings.rounds(),
        runDir);
    boolean keepData = launcherOptions.keepData();
    if (!keepData) {
      children.deleteAtExit(runDir);
    }
    prepareLauncher(tools, children, runDir, log);
    long begin = System.nanoTime();
    Results results = new Results();
    try {
      SessionRunner sessions = new SessionRunner(tools, children, settings, log);
      new RoundRunner(
              sessions,
              new SustainedSessionRunner(tools, children, settings, sessions),
              settings,
              placements,
              runDir,
              keepData)
          .runAll(results);
    } finally {
      if (!keepData) {
        ScratchDirectory.delete(runDir);
      }
    }
    machine.put("load_average_end", Host.loadAverage());
    machine.put("duration_s", (System.nanoTime() - begin) / 1_000_000_000L);
    report(tools, settings, placements, machine, results, log);
    return 0;
  }

  /**
   * {@code cellar server --version}, once, before any session: the launcher builds the project and
   * trains its start-up cache when they are out of date, and that first start is no server's cold
   * start, which the cold row would otherwise time.
   */
  private static void prepareLauncher(
      Tools tools, ChildProcesses children, Path runDir, PrintStream log)
      throws IOException, InterruptedException {
    log.println(
        "preparing the cellar launcher (a build or the start-up cache's training, when out of date)");
    Path output = runDir.resolve("launcher-prepare.out");
    Path errors = runDir.resolve("launcher-prepare.err");
    Process process =
        children.startHelper(
            List.of(tools.cellarScript().toString(), "server", "--version"), output, errors);
    process.getOutputStream().close();
    int status = children.await(process, 1800);
    if (status != 0) {
      throw new IOException(
          tools.cellarScript()
              + " server --version exited with status "
              + status
              + ":\n"
              + java.nio.file.Files.readString(errors));
    }
  }

  private void report(
      Tools tools,
      Settings settings,
      List<Placement> placements,
      Map<String, Object> machine,
      Results results,
      PrintStream log)
      throws IOException {
    List<Target.Verdict> verdicts =
        Target.issueTargets().stream().map(t -> t.evaluate(results)).toList();
    String workload =
        settings.sustained().only()
            ? "the sustained-overwrite row only"
            : String.format(
                Locale.ROOT,
                "redis-benchmark requests per test %,d at P1 and %,d at deeper pipelines",
                settings.requestsP1(),
                settings.requests());
    String heading =
        String.format(
            Locale.ROOT,
            "`%s`, %s, %s s: %,d keys of %d bytes loaded before measuring, %d clients, %s, %s; Cellar %s, %s; %s cores (%s),"
                + " load average %s at the start and %s at the end.",
            ReportedCommandLine.of(spec, "./cellar bench server"),
            machine.get("date"),
            machine.get("duration_s"),
            settings.keyspace(),
            settings.valueSize(),
            settings.clients(),
            workload,
            settings.rounds() == 1 ? "one round" : "medians of " + settings.rounds() + " rounds",
            machine.get("cellar_commit"),
            machine.get("redis_version"),
            machine.get("cores"),
            machine.get("cpu"),
            String.valueOf(machine.get("load_average_start")).split(" ")[0],
            String.valueOf(machine.get("load_average_end")).split(" ")[0]);
    String table = MarkdownReport.render(heading, settings, placements, results, verdicts);
    System.out.print(table);
    Path json = jsonPath(tools);
    if (json != null) {
      Files.createDirectories(json.toAbsolutePath().getParent());
      Map<String, Object> config = new LinkedHashMap<>(settings.describe());
      config.put("command", ReportedCommandLine.of(spec, "./cellar bench server"));
      Files.writeString(
          json, JsonReport.render(machine, config, results, verdicts), StandardCharsets.UTF_8);
      log.println("wrote " + json);
    }
    if (markdown != null) {
      Files.writeString(
          markdown,
          MarkdownSection.replace(Files.readString(markdown), table),
          StandardCharsets.UTF_8);
      log.println("wrote the report into " + markdown);
    }
  }

  private Settings settings() {
    try {
      List<Durability> durabilities = modes.stream().map(Durability::parse).distinct().toList();
      List<String> testNames =
          tests.stream().map(t -> t.trim().toLowerCase(Locale.ROOT)).distinct().toList();
      for (String test : testNames) {
        if (!Workload.TESTS.contains(test)) {
          throw new IllegalArgumentException(
              "unknown test '" + test + "': expected one of " + String.join(",", Workload.TESTS));
        }
      }
      positive("--requests", requests);
      positive("--requests-p1", requestsP1);
      positive("--repeat", repeat);
      positive("--warmup-rounds", warmupRounds);
      positive("--keyspace", keyspace);
      positive("--clients", clients);
      positive("--strace-requests", straceRequests);
      if (sustainedRequests < 0 || sustainedWarmup < 0) {
        throw new IllegalArgumentException(
            "--sustained-requests and --sustained-warmup must not be negative, got "
                + sustainedRequests
                + " and "
                + sustainedWarmup);
      }
      Settings.Sustained sustained =
          new Settings.Sustained(
              sustainedRequests,
              sustainedWarmup,
              sustainedModes.stream().map(Durability::parse).distinct().toList(),
              sustainedOnly);
      if (sustainedOnly && !sustained.enabled()) {
        throw new IllegalArgumentException(
            "--sustained-only with --sustained-requests 0 would run nothing");
      }
      if (serverCpu == clientCpu || Runtime.getRuntime().availableProcessors() < 2) {
        throw new IllegalArgumentException(
            "pinning needs two distinct cores (--server-cpu "
                + serverCpu
                + ", --client-cpu "
                + clientCpu
                + ", "
                + Runtime.getRuntime().availableProcessors()
                + " available)");
      }
      return new Settings(
          keyspace,
          valueSize,
          clients,
          testNames,
          pipelines,
          requests,
          requestsP1,
          Math.max(0, warmup),
          warmupRounds,
          repeat,
          durabilities,
          strace && !sustainedOnly,
          straceRequests,
          stracePipelines,
          rss && !sustainedOnly,
          unpinned && !sustainedOnly,
          sustainedOnly ? 0 : Math.max(0, coldRequests),
          sustained);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** Fails now, not after the run, if the report cannot go where {@code --markdown} says. */
  private void checkMarkdownTarget() {
    if (markdown == null) {
      return;
    }
    try {
      MarkdownSection.check(Files.readString(markdown));
    } catch (IOException e) {
      throw new ParameterException(
          spec.commandLine(), "--markdown " + markdown + ": cannot read it: " + e);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "--markdown " + markdown + ": " + e.getMessage());
    }
  }

  private static void positive(String option, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(option + " must be positive, got " + value);
    }
  }

  private Tools tools() {
    try {
      return Tools.locate(launcherOptions.launcher(), strace && !sustainedOnly);
    } catch (IllegalStateException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private Path jsonPath(Tools tools) {
    if ("-".equals(out)) {
      return null;
    }
    if (out != null) {
      return Path.of(out);
    }
    return tools
        .repositoryRoot()
        .resolve("docs/benchmarks/server-" + LocalDate.now(ZoneOffset.UTC) + ".json");
  }
}
