package dev.cellar.bench.ipc;

import dev.cellar.bench.server.ChildProcesses;
import dev.cellar.bench.server.Durability;
import dev.cellar.bench.server.Placement;
import dev.cellar.bench.server.RespClient;
import dev.cellar.bench.server.ServerKind;
import dev.cellar.bench.server.ServerProcess;
import dev.cellar.bench.server.Tools;
import dev.cellar.bench.workload.KeySpace;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The run: one Cellar server (one event loop, one shared-memory agent, no fsync) started through
 * the launcher, loaded once, then measured with the same client over each transport in turn; then,
 * unless told not to, {@code redis-server} with the same keys, measured with Jedis.
 *
 * <p>One server for both transports, not one each: both then serve the very same data, heap and
 * compiled code, and the comparison is of the carrier alone. The TCP cells of a run follow the
 * shared-memory ones, so they run on a server warmed for longer; the per-cell warm-up is there so
 * that this does not matter.
 */
final class IpcRun {
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(10);

  private final IpcSettings settings;
  private final Tools tools;
  private final Placement placement;
  private final ChildProcesses children;
  private final Path runDir;
  private final PrintStream log;
  private final KeySpace keys;
  private final byte[] value;
  private final Map<String, String> connections = new LinkedHashMap<>();

  IpcRun(
      IpcSettings settings,
      Tools tools,
      Placement placement,
      ChildProcesses children,
      Path runDir,
      PrintStream log) {
    this.settings = settings;
    this.tools = tools;
    this.placement = placement;
    this.children = children;
    this.runDir = runDir;
    this.log = log;
    this.keys = new KeySpace(settings.keys());
    this.value = new byte[settings.valueSize()];
    Arrays.fill(value, (byte) 'x');
  }

  /** What each transport's client said it was connected to, for the report. */
  Map<String, String> connections() {
    return connections;
  }

  List<CellResult> measureCellar() throws IOException, InterruptedException {
    int port = freePort();
    Path data = Files.createDirectories(runDir.resolve("cellar-data"));
    List<String> command =
        new ArrayList<>(
            List.of(
                tools.cellarScript().toString(),
                "server",
                "--port",
                Integer.toString(port),
                "--dir",
                data.toString(),
                "--fsync",
                "no",
                "--http-port",
                "0",
                "--io-threads",
                "1",
                "--ipc-agents",
                "1"));
    List<CellResult> results = new ArrayList<>();
    try (ServerProcess server =
        ServerProcess.startCellar(
            placement.onServerCpu(command),
            port,
            runDir.resolve("cellar.log"),
            children,
            READY_TIMEOUT)) {
      log.printf(Locale.ROOT, "ipc: cellar pid %d on port %d%n", server.pid(), port);
      try (BatchClient loader = CellarBatchClient.connect(port, IpcTransport.TCP, 0)) {
        load(loader, server);
      }
      CellRunner runner = runner();
      for (IpcTransport transport : settings.transports()) {
        try (BatchClient client =
            CellarBatchClient.connect(port, transport, settings.ringBytes())) {
          // Without the run directory: the report names no path of the machine that ran it.
          connections.put(transport.id(), client.describe().replace(runDir.toString(), "<run>"));
          log.println("ipc: cellar-client over " + client.describe());
          for (int batch : settings.batches()) {
            for (Op op : settings.ops()) {
              for (Mode mode : settings.modes()) {
                if (mode.appliesTo(op)) {
                  results.add(
                      logged(
                          runner.run("cellar", transport.id(), client, server, op, mode, batch)));
                }
              }
            }
          }
        }
      }
      checkAlive(server);
    }
    return results;
  }

  List<CellResult> measureRedis() throws IOException, InterruptedException {
    int port = freePort();
    Path data = Files.createDirectories(runDir.resolve("redis-data"));
    List<String> command = ServerKind.REDIS.command(tools, Durability.NO, placement, port, data);
    List<CellResult> results = new ArrayList<>();
    try (ServerProcess server =
        ServerProcess.start(
            ServerKind.REDIS,
            tools,
            command,
            port,
            runDir.resolve("redis.log"),
            children,
            READY_TIMEOUT)) {
      log.printf(Locale.ROOT, "ipc: redis-server pid %d on port %d%n", server.pid(), port);
      try (BatchClient client = new JedisBatchClient(port)) {
        load(client, server);
        connections.put("redis", client.describe());
        CellRunner runner = runner();
        for (int batch : settings.batches()) {
          for (Op op : settings.ops()) {
            results.add(logged(runner.run("redis", "tcp", client, server, op, Mode.COPY, batch)));
          }
        }
      }
      checkAlive(server);
    }
    return results;
  }

  private CellRunner runner() {
    return new CellRunner(keys, value, settings.seed(), settings.warmup(), settings.timed());
  }

  /** Every key once, in pipelines of {@link IpcSettings#LOAD_BATCH} SETs, then a DBSIZE check. */
  private void load(BatchClient client, ServerProcess server) throws IOException {
    long begin = System.nanoTime();
    for (long first = 0; first < keys.keys(); first += IpcSettings.LOAD_BATCH) {
      int count = (int) Math.min(IpcSettings.LOAD_BATCH, keys.keys() - first);
      byte[][] chunk = new byte[count][];
      for (int i = 0; i < count; i++) {
        chunk[i] = keys.key(first + i);
      }
      client.run(Op.SET, Mode.COPY, chunk, value);
    }
    try (RespClient control = server.connect()) {
      long size = Long.parseLong(control.call("DBSIZE"));
      if (size != keys.keys()) {
        throw new IOException(
            "the server holds " + size + " keys after loading " + keys.keys() + "; expected equal");
      }
    }
    log.printf(
        Locale.ROOT,
        "ipc: loaded %,d keys of %d bytes in %.1f s%n",
        keys.keys(),
        value.length,
        (System.nanoTime() - begin) / 1e9);
  }

  private CellResult logged(CellResult r) {
    log.printf(
        Locale.ROOT,
        "ipc: %-6s %-3s batch %3d %-3s %-9s %,12.0f ops/s  p50 %,9d ns  p99 %,9d ns  max %,11d ns  server %,8.1f ns/op%n",
        r.server(),
        r.transport(),
        r.batch(),
        r.op().id(),
        r.mode().id(),
        r.opsPerSecond(),
        r.rttP50(),
        r.rttP99(),
        r.rttMax(),
        r.serverCpuPerOp());
    return r;
  }

  private static void checkAlive(ServerProcess server) throws IOException {
    if (!server.process().isAlive()) {
      throw new IOException(
          "the server exited during the run with status "
              + server.process().exitValue()
              + "; its output ends:\n"
              + server.logTail());
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
