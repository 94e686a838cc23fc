package dev.cellar.bench.server;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * One server's session at one durability level and placement: start it on a fresh directory, load
 * the key space, warm up, run every measured workload, optionally read its memory and count its
 * syscalls, stop it. Each session starts from nothing, so no run inherits another's data, log or
 * JIT profile.
 *
 * <p>Warm-up: after the load, both servers get rounds of untimed requests ({@code --warmup} per
 * test at each measured pipeline depth) until their JIT compilers are nearly idle (see {@link
 * #warmUp}). Redis has nothing to warm but its caches; for the JVM it means the measured runs time
 * compiled code, which is how a long-running server runs. Each measured run records how much of its
 * time the compilers still took.
 */
final class SessionRunner {
  /** A first start may build the project ({@code ./cellar} builds when sources changed). */
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(10);

  private final Tools tools;
  private final ChildProcesses children;
  private final Settings settings;
  private final PrintStream log;
  private final long startNanos = System.nanoTime();

  SessionRunner(Tools tools, ChildProcesses children, Settings settings, PrintStream log) {
    this.tools = tools;
    this.children = children;
    this.settings = settings;
    this.log = log;
  }

  /** What this session measures besides throughput. */
  record Extras(boolean memory, boolean syscalls) {}

  void run(
      Path sessionDir,
      ServerKind kind,
      Durability durability,
      Placement placement,
      int round,
      Extras extras,
      Results results)
      throws IOException, InterruptedException {
    Path data = Files.createDirectories(sessionDir.resolve("data"));
    int port = freePort();
    String name =
        String.format(
            Locale.ROOT, "round %d, %s, %s, %s", round, placement.id(), durability.id(), kind.id());
    progress("%s: starting on port %d", name, port);
    long launched = System.nanoTime();
    try (ServerProcess server =
        ServerProcess.start(
            kind,
            tools,
            kind.command(tools, durability, placement, port, data),
            port,
            sessionDir.resolve("server.log"),
            children,
            READY_TIMEOUT)) {
      double ready = (System.nanoTime() - launched) / 1e9;
      RedisBenchmarkRunner benchmark = new RedisBenchmarkRunner(tools, children, sessionDir);
      if (settings.coldRequests() > 0) {
        Results.ColdRun cold = cold(server, benchmark, placement, durability, round, ready);
        results.add(cold);
        progress(
            "%s: answered PING %.2f s after launch; first %,d SETs at P1: %s ops/s, JIT compilers %s",
            name,
            ready,
            cold.workload().requests(),
            Format.rate(cold.row().opsPerSecond()),
            Format.percent(cold.compilerCpuShare()));
      }
      new KeyLoader(tools, children, sessionDir)
          .load(server, placement, settings.keyspace(), settings.valueSize());
      progress("%s: loaded %,d keys", name, settings.keyspace());
      if (extras.memory()) {
        results.add(memory(server, round));
      }
      if (settings.warmup() > 0) {
        Results.WarmupRun warmup = warmUp(server, benchmark, placement, durability, round);
        results.add(warmup);
        progress(
            "%s: warmed up in %d round(s), JIT compilers at %s in the last",
            name, warmup.rounds(), Format.percent(warmup.lastCompilerShare()));
      }
      for (int pipeline : settings.pipelines()) {
        for (String test : settings.tests()) {
          Results.Run run =
              measure(
                  server,
                  benchmark,
                  placement,
                  durability,
                  round,
                  settings.measured(test, pipeline));
          results.add(run);
          progress(
              "%s: %s P%d %s ops/s, p50 %s ms, p99 %s ms, server CPU %s",
              name,
              test.toUpperCase(Locale.ROOT),
              pipeline,
              Format.rate(run.row().opsPerSecond()),
              Format.millis(run.row().p50Ms()),
              Format.millis(run.row().p99Ms()),
              Format.percent(run.serverCpuShare()));
        }
      }
      if (extras.syscalls()) {
        traceSyscalls(
            server,
            benchmark,
            new SyscallTracer(tools, children, sessionDir),
            placement,
            name,
            results);
      }
    }
  }

  /**
   * Runs the warm-up set (every test at every measured depth, {@code --warmup} requests each) until
   * {@link Settings#QUIET_ROUNDS} rounds in a row in which the server's JIT compilers used less
   * than {@link Settings#QUIET_COMPILER_SHARE} of the round's wall time, or {@code --warmup-rounds}
   * rounds. Redis has no compiler and stops after the minimum; a JVM server keeps compiling for
   * millions of requests, and pinned to one core its compilers take that CPU from the event loop,
   * so a fixed warm-up timed the JIT, not the server. Two quiet rounds, not one: code that first
   * runs later (Cellar's first compaction pass, once the log has doubled) compiles then.
   */
  private Results.WarmupRun warmUp(
      ServerProcess server,
      RedisBenchmarkRunner benchmark,
      Placement placement,
      Durability durability,
      int round)
      throws IOException, InterruptedException {
    int quiet = 0;
    for (int rounds = 1; ; rounds++) {
      Duration compilerBefore = server.compilerCpuTime();
      long begin = System.nanoTime();
      for (int pipeline : settings.pipelines()) {
        for (String test : settings.tests()) {
          benchmark.run(server.port(), placement, settings.warmup(test, pipeline));
        }
      }
      double wall = (System.nanoTime() - begin) / 1e9;
      double share = server.compilerCpuTime().minus(compilerBefore).toNanos() / 1e9 / wall;
      progress("  warm-up round %d: %.1f s, JIT compilers %s", rounds, wall, Format.percent(share));
      quiet = share < Settings.QUIET_COMPILER_SHARE ? quiet + 1 : 0;
      if (quiet == Settings.QUIET_ROUNDS || rounds >= settings.warmupRounds()) {
        return new Results.WarmupRun(
            placement.id(), durability, server.kind(), round, rounds, share);
      }
    }
  }

  /**
   * The first requests a server serves, right after its first PONG: a JVM runs them in the
   * interpreter and its first compilations, which the warm rows never see. The launcher has built
   * the project and its start-up cache before the first session (ServerBenchmark), so no session
   * times a build.
   */
  private Results.ColdRun cold(
      ServerProcess server,
      RedisBenchmarkRunner benchmark,
      Placement placement,
      Durability durability,
      int round,
      double ready)
      throws IOException, InterruptedException {
    Duration compilerBefore = server.compilerCpuTime();
    long begin = System.nanoTime();
    RedisBenchmarkCsv.Row row = benchmark.run(server.port(), placement, settings.cold());
    double wall = (System.nanoTime() - begin) / 1e9;
    double compiler = server.compilerCpuTime().minus(compilerBefore).toNanos() / 1e9;
    return new Results.ColdRun(
        placement.id(),
        durability,
        server.kind(),
        round,
        ready,
        settings.cold(),
        row,
        compiler / wall);
  }

  private Results.Run measure(
      ServerProcess server,
      RedisBenchmarkRunner benchmark,
      Placement placement,
      Durability durability,
      int round,
      Workload workload)
      throws IOException, InterruptedException {
    Duration cpuBefore = server.cpuTime();
    Duration compilerBefore = server.compilerCpuTime();
    long begin = System.nanoTime();
    RedisBenchmarkCsv.Row row = benchmark.run(server.port(), placement, workload);
    double wall = (System.nanoTime() - begin) / 1e9;
    double cpu = server.cpuTime().minus(cpuBefore).toNanos() / 1e9;
    double compiler = server.compilerCpuTime().minus(compilerBefore).toNanos() / 1e9;
    return new Results.Run(
        placement.id(),
        durability,
        server.kind(),
        round,
        workload,
        row,
        cpu / wall,
        compiler / wall);
  }

  private void traceSyscalls(
      ServerProcess server,
      RedisBenchmarkRunner benchmark,
      SyscallTracer tracer,
      Placement placement,
      String name,
      Results results)
      throws IOException, InterruptedException {
    for (int pipeline : settings.stracePipelines()) {
      for (String test : settings.tests()) {
        Workload workload = settings.traced(test, pipeline);
        StraceSummary summary =
            tracer.trace(
                server, placement, () -> benchmark.run(server.port(), placement, workload));
        Results.SyscallRun run = new Results.SyscallRun(server.kind(), workload, summary);
        results.add(run);
        progress(
            "%s: %s P%d %.3f syscalls per op (%s)",
            name,
            test.toUpperCase(Locale.ROOT),
            pipeline,
            run.perOperation(),
            MarkdownReport.top(run));
      }
    }
  }

  private static Results.MemoryRun memory(ServerProcess server, int round) throws IOException {
    ResidentMemory resident = server.residentMemory();
    if (server.kind() != ServerKind.REDIS) {
      return new Results.MemoryRun(server.kind(), round, resident, null, null);
    }
    try (RespClient client = server.connect()) {
      String info = client.call("INFO", "memory");
      return new Results.MemoryRun(
          server.kind(),
          round,
          resident,
          infoField(info, "used_memory_rss"),
          infoField(info, "used_memory"));
    }
  }

  /** A numeric {@code name:value} line of INFO output. */
  static Long infoField(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return Long.parseLong(line.substring(name.length() + 1).trim());
      }
    }
    return null;
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  void progress(String format, Object... args) {
    long seconds = (System.nanoTime() - startNanos) / 1_000_000_000L;
    log.printf(
        Locale.ROOT,
        "[%02d:%02d] %s%n",
        seconds / 60,
        seconds % 60,
        String.format(Locale.ROOT, format, args));
  }
}
