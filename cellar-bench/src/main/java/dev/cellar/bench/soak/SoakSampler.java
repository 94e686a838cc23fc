package dev.cellar.bench.soak;

import dev.cellar.bench.server.ResidentMemory;
import dev.cellar.bench.server.RespClient;
import dev.cellar.bench.server.ServerProcess;
import java.io.IOException;

/**
 * Reads the server every few seconds over one connection of its own: resident memory from {@code
 * /proc/<pid>/status}, the heap, used memory, the log and compactions from INFO, and the clients'
 * operations from {@link LoadCounters}; on request it first has the server's JVM collect fully and
 * count its live objects (see {@link FullCollection}). It also starts the periodic BGSAVEs, over
 * the same connection.
 *
 * <p>Owned by the benchmark's main thread.
 */
final class SoakSampler implements AutoCloseable {
  private final ServerProcess server;
  private final LoadCounters counters;
  private final FullCollection fullCollection;
  private final RespClient info;
  private long lastOperations;
  private long lastNanos;
  long bgsaves;
  long bgsavesRefused;
  long fullCollectionsFailed;

  SoakSampler(
      ServerProcess server, LoadCounters counters, FullCollection fullCollection, long startNanos)
      throws IOException {
    this.server = server;
    this.counters = counters;
    this.fullCollection = fullCollection;
    this.info = server.connect();
    this.lastNanos = startNanos;
  }

  Sample take(long seconds, boolean collectFirst) throws IOException, InterruptedException {
    long live = collectFirst ? fullCollection.liveHeapBytes(server.pid()) : -1;
    if (collectFirst && live < 0) {
      fullCollectionsFailed++;
    }
    InfoFields fields = new InfoFields(info.call("INFO", "memory", "persistence", "keyspace"));
    ResidentMemory rss = server.residentMemory();
    long now = System.nanoTime();
    long operations = counters.operations.sum();
    double rate = (operations - lastOperations) / Math.max(1e-9, (now - lastNanos) / 1e9);
    lastOperations = operations;
    lastNanos = now;
    long heap = fields.number("used_memory_heap", -1);
    return new Sample(
        seconds,
        rss.vmRss(),
        rss.rssAnon(),
        heap,
        live,
        fields.number("used_memory", -1),
        fields.number("cellar_log_bytes", -1),
        fields.number("cellar_compactions", -1),
        fields.keys(),
        operations,
        rate,
        counters.errors());
  }

  /** INFO of the given sections, over the sampler's connection. */
  InfoFields info(String... sections) throws IOException {
    String[] command = new String[1 + sections.length];
    command[0] = "INFO";
    System.arraycopy(sections, 0, command, 1, sections.length);
    return new InfoFields(info.call(command));
  }

  /** Starts a background save; one still running is counted, not an error. */
  void bgsave() throws IOException {
    try {
      info.call("BGSAVE");
      bgsaves++;
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("server replied")) {
        throw e;
      }
      bgsavesRefused++;
    }
  }

  @Override
  public void close() throws IOException {
    info.close();
  }
}
