package dev.cellar.bench.soak;

import dev.cellar.bench.server.ChildProcesses;
import dev.cellar.bench.server.ServerProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

  private final SoakSettings settings;
  private final FullCollection fullCollection;
  private final PrintStream log;
  private volatile boolean stopping;

  SoakRun(SoakSettings settings, FullCollection fullCollection, PrintStream log) {
    this.settings = settings;
    this.fullCollection = fullCollection;
    this.log = log;
  }

  SoakResult run(Path cellar, Path runDir, int port, ChildProcesses children) throws IOException, InterruptedException {
    Path data = Files.createDirectories(runDir.resolve("data"));
    Path serverLog = runDir.resolve("server.log");
    List<String> arguments = new ArrayList<>(List.of(
        "--port", Integer.toString(port), "--dir", data.toString(), "--fsync", settings.fsync(), "--http-port", "0"));
    arguments.addAll(settings.serverArguments());
    LoadCounters counters = new LoadCounters();
    List<Sample> samples = new ArrayList<>();
    SoakSampler sampler = null;
    String serverExit;
    long begin;
    try (ServerProcess server = ServerProcess.startCellar(cellar, arguments, port, serverLog, children, READY_TIMEOUT)) {
      log.printf(Locale.ROOT, "soak: server pid %d on port %d%n", server.pid(), port);
      begin = System.nanoTime();
      List<Thread> clients = startClients(port, counters);
      try {
        sampler = new SoakSampler(server, counters, fullCollection, begin);
        sampleUntilTheEnd(sampler, begin, samples);
      } catch (IOException e) {
        // The server stopped answering the harness: the run ends here, fails, and the report says why.
        counters.connectionFailures.increment();
        counters.problem("harness: " + e);
        log.println("soak: reading the server failed: " + e);
      } finally {
        stopping = true;
        for (Thread client : clients) {
          client.join(TimeUnit.MINUTES.toMillis(2));
        }
        if (sampler != null) {
          sampler.close();
        }
      }
      serverExit = server.process().isAlive() ? null : "exited with status " + server.process().exitValue();
      if (serverExit != null) {
        log.println("soak: the server " + serverExit + "; its output ends:\n" + server.logTail());
      }
    }
    long seconds = (System.nanoTime() - begin) / 1_000_000_000L;
    return new SoakResult(samples, counters.operations.sum(), counters.errorReplies.sum(), counters.wrongReplies.sum(),
        counters.connectionFailures.sum(), counters.problems(), sampler == null ? 0 : sampler.bgsaves,
        sampler == null ? 0 : sampler.bgsavesRefused, sampler == null ? 0 : sampler.fullCollectionsFailed, serverExit, outOfMemoryLines(serverLog), seconds);
  }

  private List<Thread> startClients(int port, LoadCounters counters) {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < settings.clients(); i++) {
      MixedLoadClient client = new MixedLoadClient(port, i, settings.clients(), settings.keys(), counters, () -> stopping);
      threads.add(Thread.ofPlatform().name("soak-client-" + i).daemon().start(client));
    }
    return threads;
  }

  /** Readings every {@code sampleSeconds}, with BGSAVEs and full collections on their own periods, until the run's length has passed. */
  private void sampleUntilTheEnd(SoakSampler sampler, long begin, List<Sample> samples) throws IOException, InterruptedException {
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
    log.printf(Locale.ROOT, "[%02d:%02d] RSS %s (anon %s), heap %s%s, used_memory %s, log %s, %,d keys, %,.0f ops/s, %,d compactions, %d errors%n",
        s.seconds() / 60, s.seconds() % 60, SoakReport.mib(s.vmRss()), SoakReport.mib(s.rssAnon()), SoakReport.mib(s.heapUsed()),
        s.heapLive() < 0 ? "" : ", live " + SoakReport.mib(s.heapLive()), SoakReport.mib(s.usedMemory()), SoakReport.mib(s.logBytes()), s.keys(), s.opsPerSecond(),
        s.compactions(), s.errors());
  }

  private static long outOfMemoryLines(Path serverLog) throws IOException {
    try (Stream<String> lines = Files.lines(serverLog, StandardCharsets.ISO_8859_1)) {
      return lines.filter(line -> line.contains("OutOfMemoryError")).count();
    }
  }
}
