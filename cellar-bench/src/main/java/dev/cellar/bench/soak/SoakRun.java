package dev.cellar.bench.soak;

import dev.cellar.bench.server.ChildProcesses;
import dev.cellar.bench.server.ServerProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One soak run from start to stop: the server, the client threads, the readings on the schedule,
 * then the clients stopped, the server checked for life and stopped, and its output searched for
 * OutOfMemoryError.
 *
 * <p>Concurrency: the main thread runs this; the clients only read {@link #stopping}.
 */
final class SoakRun {
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(5);

  /** The hostile clients' cycle when no full collections set it. */
  private static final long DEFAULT_HOSTILE_CYCLE_SECONDS = 30;

  private final SoakSettings settings;
  private final FullCollection fullCollection;
  private final PrintStream log;
  private volatile boolean stopping;

  SoakRun(SoakSettings settings, FullCollection fullCollection, PrintStream log) {
    this.settings = settings;
    this.fullCollection = fullCollection;
    this.log = log;
  }

  SoakResult run(Path cellar, Path runDir, int port, ChildProcesses children)
      throws IOException, InterruptedException {
    return run(List.of(cellar.toString(), "server"), runDir, port, children);
  }

  /**
   * Runs the soak against the server that {@code serverCommand} (the launcher and {@code server},
   * or the java command line it execs) starts with the soak's arguments.
   */
  SoakResult run(List<String> serverCommand, Path runDir, int port, ChildProcesses children)
      throws IOException, InterruptedException {
    Path data = Files.createDirectories(runDir.resolve("data"));
    Path serverLog = runDir.resolve("server.log");
    int httpPort = settings.hostile() ? freePort() : 0;
    // With hostile clients the server has a password, so that requests before AUTH can be tried;
    // the soak's own clients authenticate. A fresh random one: it is visible in ps.
    String password =
        settings.hostile() ? "soak-" + Long.toHexString(new SecureRandom().nextLong()) : null;
    List<String> command = new ArrayList<>(serverCommand);
    command.addAll(
        List.of(
            "--port",
            Integer.toString(port),
            "--dir",
            data.toString(),
            "--fsync",
            settings.fsync(),
            "--http-port",
            Integer.toString(httpPort)));
    if (password != null) {
      command.addAll(List.of("--requirepass", password));
    }
    command.addAll(settings.serverArguments());
    LoadCounters counters = new LoadCounters();
    List<Sample> samples = new ArrayList<>();
    SoakSampler sampler = null;
    HostileLoad hostile = null;
    ConnectionsAfter connections = null;
    String serverExit;
    long begin;
    try (ServerProcess server =
        ServerProcess.startCellar(command, port, password, serverLog, children, READY_TIMEOUT)) {
      log.printf(
          Locale.ROOT,
          "soak: server pid %d on port %d%s%n",
          server.pid(),
          port,
          settings.hostile() ? ", HTTP on " + httpPort + ", hostile clients on" : "");
      begin = System.nanoTime();
      List<Thread> clients = startClients(port, counters, password);
      try {
        sampler = new SoakSampler(server, counters, fullCollection, begin);
        if (settings.hostile()) {
          long cycle =
              settings.fullGcSeconds() > 0
                  ? settings.fullGcSeconds()
                  : DEFAULT_HOSTILE_CYCLE_SECONDS;
          hostile =
              new HostileLoad(
                  port,
                  httpPort,
                  password,
                  new CycleClock(begin, cycle, HostileLoad.QUIET_SECONDS),
                  counters);
          hostile.start();
        }
        sampleUntilTheEnd(sampler, begin, samples);
        if (hostile != null) {
          hostile.stop();
          connections = ConnectionsAfter.await(sampler, httpPort, settings.clients() + 1);
          log.println("soak: " + connections.describe());
        }
      } catch (IOException e) {
        // The server stopped answering the harness: the run ends here, fails, and the report says
        // why.
        counters.connectionFailures.increment();
        counters.problem("harness: " + e);
        log.println("soak: reading the server failed: " + e);
      } finally {
        stopping = true;
        if (hostile != null) {
          hostile.stop();
        }
        for (Thread client : clients) {
          client.join(TimeUnit.MINUTES.toMillis(2));
        }
        if (sampler != null) {
          sampler.close();
        }
      }
      serverExit =
          server.process().isAlive() ? null : "exited with status " + server.process().exitValue();
      if (serverExit != null) {
        log.println("soak: the server " + serverExit + "; its output ends:\n" + server.logTail());
      }
    }
    long seconds = (System.nanoTime() - begin) / 1_000_000_000L;
    return new SoakResult(
        samples,
        counters.operations.sum(),
        counters.errorReplies.sum(),
        counters.wrongReplies.sum(),
        counters.connectionFailures.sum(),
        counters.problems(),
        sampler == null ? 0 : sampler.bgsaves,
        sampler == null ? 0 : sampler.bgsavesRefused,
        sampler == null ? 0 : sampler.fullCollectionsFailed,
        serverExit,
        outOfMemoryLines(serverLog),
        seconds,
        counters.stalls.sum(),
        TimeUnit.NANOSECONDS.toMillis(counters.longestNanos.get()),
        hostile == null ? List.of() : hostile.patterns(),
        connections);
  }

  private List<Thread> startClients(int port, LoadCounters counters, String password) {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < settings.clients(); i++) {
      MixedLoadClient client =
          new MixedLoadClient(
              port, i, settings.clients(), settings.keys(), counters, () -> stopping, password);
      threads.add(Thread.ofPlatform().name("soak-client-" + i).daemon().start(client));
    }
    return threads;
  }

  /**
   * Readings every {@code sampleSeconds}, with BGSAVEs and full collections on their own periods,
   * until the run's length has passed.
   */
  private void sampleUntilTheEnd(SoakSampler sampler, long begin, List<Sample> samples)
      throws IOException, InterruptedException {
    long duration = settings.durationSeconds();
    long nextBgsave = settings.bgsaveSeconds() == 0 ? Long.MAX_VALUE : settings.bgsaveSeconds();
    long nextFullGc = settings.fullGcSeconds() == 0 ? Long.MAX_VALUE : settings.fullGcSeconds();
    for (long due = settings.sampleSeconds(); due <= duration; due += settings.sampleSeconds()) {
      long wait = begin + TimeUnit.SECONDS.toNanos(due) - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      boolean collect = due >= nextFullGc;
      if (collect) {
        nextFullGc += settings.fullGcSeconds();
      }
      Sample sample = sampler.take(due, collect);
      samples.add(sample);
      progress(sample);
      if (due >= nextBgsave) {
        sampler.bgsave();
        nextBgsave += settings.bgsaveSeconds();
      }
    }
  }

  private void progress(Sample s) {
    log.printf(
        Locale.ROOT,
        "[%02d:%02d] RSS %s (anon %s), heap %s%s, used_memory %s, log %s, %,d keys, %,.0f ops/s, %,d compactions, %d errors%n",
        s.seconds() / 60,
        s.seconds() % 60,
        SoakReport.mib(s.vmRss()),
        SoakReport.mib(s.rssAnon()),
        SoakReport.mib(s.heapUsed()),
        s.heapLive() < 0 ? "" : ", live " + SoakReport.mib(s.heapLive()),
        SoakReport.mib(s.usedMemory()),
        SoakReport.mib(s.logBytes()),
        s.keys(),
        s.opsPerSecond(),
        s.compactions(),
        s.errors());
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static long outOfMemoryLines(Path serverLog) throws IOException {
    try (Stream<String> lines = Files.lines(serverLog, StandardCharsets.ISO_8859_1)) {
      return lines.filter(line -> line.contains("OutOfMemoryError")).count();
    }
  }
}
