package dev.cellar.bench.crash;

import dev.cellar.bench.server.ChildProcesses;
import dev.cellar.bench.server.ServerProcess;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * The crash loop: a Cellar server under {@code appendfsync always}, several Jedis and Lettuce
 * clients writing to it, SIGKILL at a random moment or while a compaction or checkpoint runs, a
 * restart on the same directory, and a check of every key against what the clients were told.
 *
 * <p>Cycle. Once each client has had a write acknowledged, the clients write for a random time;
 * then, depending on the cycle's {@link KillMoment}, a control connection sends {@code
 * BGREWRITEAOF} or {@code BGSAVE}, waits a random 0 to {@code maxKillDelayMillis} ms, and then
 * until {@code INFO persistence} shows a compaction (checkpoint) running (BGREWRITEAOF's or
 * BGSAVE's, or the engine's own), for at most two seconds; the server gets SIGKILL while the
 * clients go on writing. The last INFO reading says whether the kill hit the work, which the report
 * counts. The restarted server is checked and then serves the next cycle, so the store grows and
 * ages across cycles as a real one does, and every recovery starts from what the previous recovery
 * left.
 *
 * <p>What counts. Under {@code always} a reply means the write was fsynced, so after any kill every
 * key must hold its last acknowledged state or what its client's in-flight write makes of it
 * ({@link ClientModel#verify}). Nothing else the server does (a failed restart, an error reply) is
 * excused either: the run stops with a failure.
 *
 * <p>Concurrency: the loop's thread owns the server and the models between cycles; during a cycle
 * each client thread owns its model, handed over by start and join.
 */
public final class CrashLoop {
  static {
    // Lettuce finds Netty's io_uring transport beside epoll on the class path, picks epoll, and
    // would log a warning about the choice at every connection.
    System.setProperty("io.lettuce.core.iouring", "false");
  }

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);
  private static final long CLIENT_EXIT_MILLIS = 60_000;
  private static final Duration SEEK_WORK = Duration.ofSeconds(2);
  private static final Duration CONNECT = Duration.ofSeconds(60);

  private final CrashSettings settings;
  private final ServerLaunch launch;
  private final Path workDir;
  private final ChildProcesses children;
  private final PrintStream out;
  private final Random random;
  private final List<ClientModel> models = new ArrayList<>();
  private int starts;

  /**
   * @param workDir where the store ({@code data}) and the server's logs go; the caller removes it
   * @param out where a line per cycle goes
   */
  public CrashLoop(
      CrashSettings settings,
      ServerLaunch launch,
      Path workDir,
      ChildProcesses children,
      PrintStream out) {
    this.settings = settings;
    this.launch = launch;
    this.workDir = workDir;
    this.children = children;
    this.out = out;
    this.random = new Random(settings.seed());
    for (int c = 0; c < settings.clients(); c++) {
      models.add(
          new ClientModel(
              c, settings.keysPerClient(), settings.maxValueBytes(), settings.seed() * 31 + c));
    }
  }

  /** Runs every cycle, or until the server fails to restart; the result says which. */
  public CrashResult run() throws IOException, InterruptedException {
    ClientResources resources =
        DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2).build();
    try {
      return run(resources);
    } finally {
      resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  private CrashResult run(ClientResources resources) throws IOException, InterruptedException {
    List<CycleOutcome> outcomes = new ArrayList<>();
    ServerProcess server = start();
    try {
      for (int cycle = 1; cycle <= settings.cycles(); cycle++) {
        Killed killed = writeAndKill(cycle, server, resources);
        long begin = System.nanoTime();
        try {
          server = start();
        } catch (IOException e) {
          return new CrashResult(
              settings,
              outcomes,
              "cycle " + cycle + ": the server did not restart after the kill: " + e.getMessage());
        }
        long restartMillis = (System.nanoTime() - begin) / 1_000_000;
        CycleOutcome outcome = check(cycle, killed, restartMillis, server);
        outcomes.add(outcome);
        out.println(outcome.line(settings.cycles()));
        outcome.violations().stream().limit(20).forEach(v -> out.println("  " + v));
      }
      return new CrashResult(settings, outcomes, null);
    } finally {
      server.close();
    }
  }

  /** What the kill of one cycle left for the check. */
  private record Killed(
      KillMoment moment,
      String started,
      long delayMillis,
      boolean compactionRunning,
      boolean checkpointRunning,
      long compactions,
      long writeMillis,
      long acknowledged,
      int inFlight) {}

  private Killed writeAndKill(int cycle, ServerProcess server, ClientResources resources)
      throws IOException, InterruptedException {
    KillMoment moment = KillMoment.forCycle(cycle);
    long writeMillis =
        settings.minWriteMillis()
            + (long)
                (random.nextDouble() * (settings.maxWriteMillis() - settings.minWriteMillis()));
    long delayMillis =
        moment.delayed() ? (long) (random.nextDouble() * settings.maxKillDelayMillis()) : 0;
    long ackedBefore = acknowledged();
    long[] ackedBeforeEach = acknowledgedEach();
    AtomicBoolean killing = new AtomicBoolean();
    List<CrashClient> clients = new ArrayList<>();
    for (ClientModel model : models) {
      model.startCycle(cycle);
      CrashClient client = new CrashClient(model, server.port(), resources, killing);
      clients.add(client);
      client.start();
    }
    String started;
    Map<String, String> info;
    long startedAt;
    try {
      awaitFirstAcknowledgements(clients, ackedBeforeEach);
      Thread.sleep(writeMillis);
      try (Jedis control = new Jedis("127.0.0.1", server.port(), 60_000)) {
        startedAt = System.nanoTime();
        started = moment.start(control);
        Thread.sleep(delayMillis);
        info = awaitWork(control, moment);
      }
    } finally {
      killing.set(true);
      server.kill();
    }
    long killedAfterMillis = moment.delayed() ? (System.nanoTime() - startedAt) / 1_000_000 : 0;
    int inFlight = 0;
    for (CrashClient client : clients) {
      if (!client.join(CLIENT_EXIT_MILLIS)) {
        throw new IllegalStateException(
            "a client did not notice the kill within " + CLIENT_EXIT_MILLIS + " ms");
      }
      if (client.failure() != null) {
        throw new IllegalStateException(
            "cycle " + cycle + ": a client failed before the kill: " + client.failure(),
            client.failure());
      }
    }
    for (ClientModel model : models) {
      inFlight += model.inFlight() != null ? 1 : 0;
    }
    return new Killed(
        moment,
        started,
        killedAfterMillis,
        "1".equals(info.get("aof_rewrite_in_progress")),
        "1".equals(info.get("rdb_bgsave_in_progress")),
        Long.parseLong(info.getOrDefault("cellar_compactions", "-1")),
        writeMillis,
        acknowledged() - ackedBefore,
        inFlight);
  }

  /**
   * Waits until every client has had a write acknowledged (or has ended, which the caller reports),
   * for at most {@link #CONNECT}: the writing time starts once every client is connected and
   * writing, however long a freshly started server or a first Lettuce connection takes.
   */
  private void awaitFirstAcknowledgements(List<CrashClient> clients, long[] before)
      throws InterruptedException {
    long deadline = System.nanoTime() + CONNECT.toNanos();
    for (int i = 0; i < clients.size(); i++) {
      while (models.get(i).acknowledged() == before[i]
          && !clients.get(i).ended()
          && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
    }
  }

  private long[] acknowledgedEach() {
    return models.stream().mapToLong(ClientModel::acknowledged).toArray();
  }

  /**
   * INFO persistence, read again every millisecond while the work the moment started (or the
   * engine's own of the same kind) is not running, for at most {@link #SEEK_WORK}: the kill then
   * comes at a random point of a compaction or checkpoint rather than after it, since a pass over a
   * small store is over within tens of milliseconds. Returns the last reading.
   */
  private static Map<String, String> awaitWork(Jedis control, KillMoment moment)
      throws InterruptedException {
    Map<String, String> info = fields(control.info("persistence"));
    long deadline = System.nanoTime() + SEEK_WORK.toNanos();
    while (moment.delayed() && !moment.running(info) && System.nanoTime() < deadline) {
      Thread.sleep(1);
      info = fields(control.info("persistence"));
    }
    return info;
  }

  /** Reads every client's keys from the restarted server and checks them against the models. */
  private CycleOutcome check(int cycle, Killed killed, long restartMillis, ServerProcess server) {
    List<Violation> violations = new ArrayList<>();
    long checked = 0;
    long present = 0;
    try (Jedis jedis = new Jedis("127.0.0.1", server.port(), 60_000)) {
      for (ClientModel model : models) {
        violations.addAll(model.drainReplyViolations());
        List<String> keys = model.keys();
        Pipeline pipeline = jedis.pipelined();
        List<Response<String>> values = new ArrayList<>();
        List<Response<Long>> ttls = new ArrayList<>();
        for (String key : keys) {
          values.add(pipeline.get(key));
          ttls.add(pipeline.pttl(key));
        }
        pipeline.sync();
        Map<String, KeyState.Observed> observed = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
          observed.put(keys.get(i), new KeyState.Observed(values.get(i).get(), ttls.get(i).get()));
        }
        violations.addAll(model.verify(observed));
        checked += keys.size();
        present += model.presentKeys();
      }
      long size = jedis.dbSize();
      if (size != present) {
        violations.add(
            new Violation(
                cycle,
                Violation.Kind.UNKNOWN_KEYS,
                "*",
                "DBSIZE is " + size + " but the clients' keys that exist number " + present));
      }
    }
    return new CycleOutcome(
        cycle,
        killed.moment(),
        killed.started(),
        killed.delayMillis(),
        killed.compactionRunning(),
        killed.checkpointRunning(),
        killed.compactions(),
        killed.writeMillis(),
        killed.acknowledged(),
        killed.inFlight(),
        restartMillis,
        checked,
        violations);
  }

  private ServerProcess start() throws IOException, InterruptedException {
    int port = freePort();
    Path log = workDir.resolve("server-" + ++starts + ".log");
    return ServerProcess.startCellar(
        launch.command(port, workDir.resolve("data"), settings.segmentSize()),
        port,
        log,
        children,
        READY_TIMEOUT);
  }

  private long acknowledged() {
    return models.stream().mapToLong(ClientModel::acknowledged).sum();
  }

  /** {@code name:value} lines of an INFO reply. */
  private static Map<String, String> fields(String info) {
    Map<String, String> fields = new HashMap<>();
    for (String line : info.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
      }
    }
    return fields;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return socket.getLocalPort();
    }
  }
}
