package dev.cellar.bench.ipc;

import dev.cellar.bench.server.ChildProcesses;
import dev.cellar.bench.server.Host;
import dev.cellar.bench.server.LauncherOptions;
import dev.cellar.bench.server.Placement;
import dev.cellar.bench.server.ReportedCommandLine;
import dev.cellar.bench.server.ScratchDirectory;
import dev.cellar.bench.server.Tools;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench ipc}: Cellar's Java client against Cellar's server over shared memory and
 * over loopback TCP, one client thread and one server thread, at batches of 1, 10 and 50 GETs or
 * SETs; then Jedis against {@code redis-server} with the same workload.
 *
 * <p>The server is started through the {@code cellar} launcher as users start it and pinned to one
 * core, this JVM (the client) to the other, so that neither transport can borrow a third core. The
 * report always exits 0 once it has run: the targets it misses are in the report, not the status.
 */
@Command(
    name = "ipc",
    mixinStandardHelpOptions = true,
    description = {
      "Cellar's client over shared memory against the same client over loopback TCP: GET and SET"
          + " at batches 1, 10 and 50, round trips, throughput and server CPU per command; then"
          + " Jedis against redis-server with the same workload.",
      "Prints a Markdown report with the shm/tcp ratios and the transport's targets"
          + " (docs/benchmarks.md)."
    })
public final class IpcBenchmark implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin LauncherOptions launcherOptions;

  @Option(
      names = "--keys",
      defaultValue = "1000000",
      description = "Keys loaded before measuring and drawn at random (default ${DEFAULT-VALUE}).")
  int keys;

  @Option(
      names = "--value-size",
      defaultValue = "60",
      description = "Value bytes (default ${DEFAULT-VALUE}).")
  int valueSize;

  @Option(
      names = "--seconds",
      defaultValue = "3",
      description = "Timed seconds per cell (default ${DEFAULT-VALUE}).")
  double seconds;

  @Option(
      names = "--warmup-seconds",
      defaultValue = "2",
      description =
          "Untimed seconds of the same workload before each cell (default ${DEFAULT-VALUE}).")
  double warmupSeconds;

  @Option(
      names = "--batches",
      split = ",",
      defaultValue = "1,10,50",
      description = "Commands per pipeline (default ${DEFAULT-VALUE}).")
  List<Integer> batches;

  @Option(
      names = "--transports",
      split = ",",
      defaultValue = "shm,tcp",
      description = "Cellar client transports, in order: shm, tcp (default ${DEFAULT-VALUE}).")
  List<String> transports;

  @Option(
      names = "--ops",
      split = ",",
      defaultValue = "get,set",
      description = "Commands: get, set (default ${DEFAULT-VALUE}).")
  List<String> ops;

  @Option(
      names = "--modes",
      split = ",",
      defaultValue = "copy,zero-copy",
      description =
          "How GET hands over values: copy (a new array), zero-copy (a view where the value"
              + " arrived); SET has copy only (default ${DEFAULT-VALUE}).")
  List<String> modes;

  @Option(
      names = "--redis",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description = "Also measure redis-server with Jedis (default on; --no-redis to skip).")
  boolean redis;

  @Option(
      names = "--pin",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Pin the server to --server-cpu and this JVM to --client-cpu (default on; --no-pin to"
              + " let the scheduler place them).")
  boolean pin;

  @Option(
      names = "--server-cpu",
      defaultValue = "0",
      description = "Core the servers are pinned to (default ${DEFAULT-VALUE}).")
  int serverCpu;

  @Option(
      names = "--client-cpu",
      defaultValue = "1",
      description = "Core this JVM, the client, is pinned to (default ${DEFAULT-VALUE}).")
  int clientCpu;

  @Option(
      names = "--ring-bytes",
      defaultValue = "0",
      description = "Size of each shared-memory ring, a power of two; 0 for the client's default.")
  int ringBytes;

  @Option(
      names = "--seed",
      defaultValue = "20261126",
      description = "Seed of the random keys (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--json", description = "Write the results as JSON into this file.")
  Path json;

  @Option(
      names = "--markdown",
      description = "Write the Markdown report into this file; '-' (the default) for stdout.")
  String markdown;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintStream log = System.err;
    IpcSettings settings = settings();
    Tools tools = tools();
    ChildProcesses children = new ChildProcesses().installShutdownHook();
    Map<String, Object> machine = Host.describe(tools);
    Placement placement = placement(settings);
    if (settings.pinned()) {
      Host.pinThisJvm(tools, settings.clientCpu(), log);
    }
    Path runDir = launcherOptions.newRunDirectory("cellar-bench-ipc-");
    if (!launcherOptions.keepData()) {
      children.deleteAtExit(runDir);
    }
    log.printf(
        Locale.ROOT,
        "ipc benchmark: %,d keys of %d B, batches %s, %s, transports %s%s; data in %s%n",
        settings.keys(),
        settings.valueSize(),
        settings.batches(),
        settings.ops().stream().map(Op::id).toList(),
        settings.transports().stream().map(IpcTransport::id).toList(),
        settings.redis() ? " and redis" : "",
        runDir);
    long begin = System.nanoTime();
    IpcRun run = new IpcRun(settings, tools, placement, children, runDir, log);
    List<CellResult> cellar = new ArrayList<>();
    List<CellResult> redisCells = new ArrayList<>();
    try {
      if (!settings.transports().isEmpty()) {
        cellar.addAll(run.measureCellar());
      }
      if (settings.redis()) {
        redisCells.addAll(run.measureRedis());
      }
    } finally {
      if (!launcherOptions.keepData()) {
        ScratchDirectory.delete(runDir);
      }
    }
    IpcResults results = new IpcResults(cellar, redisCells);
    machine.put("load_average_end", Host.loadAverage());
    machine.put("duration_s", (System.nanoTime() - begin) / 1_000_000_000L);
    machine.put("placement", describe(placement));
    machine.put("connections", run.connections());
    machine.put("settings", settings.describe());
    String command = ReportedCommandLine.of(spec, "./cellar bench ipc");
    machine.put("command", command);
    report(command, settings, machine, results, log);
    return 0;
  }

  private void report(
      String command,
      IpcSettings settings,
      Map<String, Object> machine,
      IpcResults results,
      PrintStream log)
      throws IOException {
    List<IpcTargets.Verdict> verdicts = IpcTargets.evaluate(results);
    String heading =
        String.format(
            Locale.ROOT,
            "`%s`, %s, %s s: %,d keys of %d bytes loaded before measuring; %s s per cell after %s s"
                + " of warm-up; one client thread; Cellar %s with --io-threads 1 --ipc-agents 1"
                + " --fsync no, %s without persistence; %s; %s cores (%s), load average %s at the"
                + " start and %s at the end.",
            command,
            machine.get("date"),
            machine.get("duration_s"),
            settings.keys(),
            settings.valueSize(),
            trim(settings.timed()),
            trim(settings.warmup()),
            machine.get("cellar_commit"),
            redisVersion(machine),
            machine.get("placement"),
            machine.get("cores"),
            machine.get("cpu"),
            String.valueOf(machine.get("load_average_start")).split(" ")[0],
            String.valueOf(machine.get("load_average_end")).split(" ")[0]);
    String text = IpcReport.render(heading, settings, results, verdicts);
    if (markdown == null || markdown.equals("-")) {
      System.out.print(text);
    } else {
      Files.writeString(Path.of(markdown), text, StandardCharsets.UTF_8);
      log.println("wrote " + markdown);
    }
    if (json != null) {
      Path parent = json.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(json, IpcJson.render(machine, results, verdicts), StandardCharsets.UTF_8);
      log.println("wrote " + json);
    }
  }

  /** {@code Redis 7.0.15} from {@code redis-server --version}'s line, or the line itself. */
  private static String redisVersion(Map<String, Object> machine) {
    String line = String.valueOf(machine.get("redis_version"));
    Matcher m = Pattern.compile("v=(\\S+)").matcher(line);
    return m.find() ? "Redis " + m.group(1) : line;
  }

  private static String trim(Duration d) {
    double s = d.toMillis() / 1000.0;
    return s == Math.rint(s) ? Long.toString((long) s) : Double.toString(s);
  }

  private static String describe(Placement placement) {
    return placement.isPinned()
        ? "servers pinned to core "
            + placement.serverCpus()
            + ", the client JVM to core "
            + placement.clientCpus()
        : "unpinned, every process on cores " + placement.serverCpus();
  }

  /**
   * Cellar gets one event loop however it is placed (the command line says so, not the placement),
   * and Redis its single thread: one server thread against one client thread.
   */
  private static Placement placement(IpcSettings settings) throws IOException {
    if (settings.pinned()) {
      return new Placement(
          "pinned",
          true,
          Integer.toString(settings.serverCpu()),
          Integer.toString(settings.clientCpu()),
          1,
          null);
    }
    String all = Host.allowedCpus();
    return new Placement("unpinned", false, all, all, 1, null);
  }

  private IpcSettings settings() {
    try {
      return new IpcSettings(
          keys,
          valueSize,
          Duration.ofMillis(Math.round(seconds * 1000)),
          Duration.ofMillis(Math.round(warmupSeconds * 1000)),
          batches,
          transports.stream().map(IpcTransport::parse).distinct().toList(),
          ops.stream().map(Op::parse).distinct().toList(),
          modes.stream().map(Mode::parse).distinct().toList(),
          redis,
          pin,
          serverCpu,
          clientCpu,
          ringBytes,
          seed);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private Tools tools() {
    try {
      return Tools.locate(launcherOptions.launcher(), false);
    } catch (IllegalStateException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
