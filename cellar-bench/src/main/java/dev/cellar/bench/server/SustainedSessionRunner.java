package dev.cellar.bench.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * One server's session of the sustained-overwrite row: start it pinned on a fresh directory, load
 * the key space, send the warm-up SETs untimed, then the measured SETs, reading the server's CPU
 * and its writes to storage ({@link ProcessAccounting}) just before and just after them.
 *
 * <p>Why a session of its own rather than one more test in {@link SessionRunner}'s: the row is
 * about the steady state of a server that overwrites its whole key space again and again, with
 * compaction (Cellar) or AOF rewrites (Redis) running beside the request path. In the other
 * sessions what runs before a test decides how much garbage it inherits; here the warm-up is the
 * same workload, long enough to bring compaction in, and nothing else runs.
 */
final class SustainedSessionRunner {
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(10);

  private final Tools tools;
  private final ChildProcesses children;
  private final Settings settings;
  private final SessionRunner progress;

  SustainedSessionRunner(
      Tools tools, ChildProcesses children, Settings settings, SessionRunner progress) {
    this.tools = tools;
    this.children = children;
    this.settings = settings;
    this.progress = progress;
  }

  void run(
      Path sessionDir,
      ServerKind kind,
      Durability durability,
      Placement placement,
      int round,
      Results results)
      throws IOException, InterruptedException {
    Path data = Files.createDirectories(sessionDir.resolve("data"));
    int port = SessionRunner.freePort();
    String name =
        String.format(
            Locale.ROOT, "round %d, sustained, %s, %s", round, durability.id(), kind.id());
    progress.progress("%s: starting on port %d", name, port);
    try (ServerProcess server =
        ServerProcess.start(
            kind,
            tools,
            kind.command(tools, durability, placement, port, data),
            port,
            sessionDir.resolve("server.log"),
            children,
            READY_TIMEOUT)) {
      RedisBenchmarkRunner benchmark = new RedisBenchmarkRunner(tools, children, sessionDir);
      new KeyLoader(tools, children, sessionDir)
          .load(server, placement, settings.keyspace(), settings.valueSize());
      if (settings.sustained().warmup() > 0) {
        long begin = System.nanoTime();
        benchmark.run(server.port(), placement, settings.sustainedWarmup());
        progress.progress(
            "%s: loaded %,d keys, warmed up with %,d SETs in %.1f s",
            name,
            settings.keyspace(),
            settings.sustained().warmup(),
            (System.nanoTime() - begin) / 1e9);
      }
      Results.SustainedRun run = measure(server, benchmark, placement, durability, round, data);
      results.add(run);
      progress.progress(
          "%s: %,d SETs at P%d, %s ops/s, server CPU %.2f µs a request (event loop %.2f,"
              + " compaction %.2f), write amplification %.2f, data %s",
          name,
          run.workload().requests(),
          run.workload().pipeline(),
          Format.rate(run.row().opsPerSecond()),
          run.cpuMicrosPerRequest(),
          run.cpuMicrosPerRequest(ProcessAccounting.EVENT_LOOP),
          run.cpuMicrosPerRequest(ProcessAccounting.COMPACTION),
          run.writeAmplification(),
          Format.bytes(run.dataBytes()));
    }
  }

  private Results.SustainedRun measure(
      ServerProcess server,
      RedisBenchmarkRunner benchmark,
      Placement placement,
      Durability durability,
      int round,
      Path data)
      throws IOException, InterruptedException {
    Workload workload = settings.sustainedMeasured();
    Duration compilerBefore = server.compilerCpuTime();
    ProcessAccounting.Snapshot before = ProcessAccounting.read(server.pid());
    long begin = System.nanoTime();
    RedisBenchmarkCsv.Row row = benchmark.run(server.port(), placement, workload);
    double wall = (System.nanoTime() - begin) / 1e9;
    ProcessAccounting.Snapshot cost = ProcessAccounting.read(server.pid()).minus(before);
    double compiler = server.compilerCpuTime().minus(compilerBefore).toNanos() / 1e9;
    return new Results.SustainedRun(
        durability,
        server.kind(),
        round,
        workload,
        row,
        wall,
        cost,
        compiler / wall,
        directoryBytes(data));
  }

  /** The sizes of the files under {@code directory}. */
  static long directoryBytes(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files
          .filter(Files::isRegularFile)
          .mapToLong(
              f -> {
                try {
                  return Files.size(f);
                } catch (IOException gone) {
                  return 0; // replaced by compaction or a rewrite while we walked
                }
              })
          .sum();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
