package dev.cellar.bench.atrest;

import dev.cellar.Compression;
import dev.cellar.bench.server.MemoryCgroup;
import dev.cellar.bench.workload.JsonDocuments;
import dev.cellar.inspect.StoreDirectory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The compressed-store part of {@code bench at-rest}: the compression targets measured on the
 * engine itself. Three stores of the same JSON documents, uncompressed, LZ4 and zstd ({@link
 * CompressedStores}), each compacted until everything sealed is compressed and checkpointed; their
 * segment files' bytes (target: compressed at most 0.4x of uncompressed); then random GETs and
 * {@code getAll} of 16, each store read by a fresh child JVM ({@link CompressedStoreReader}), in
 * two settings:
 *
 * <ul>
 *   <li><b>in memory</b>: the store's files read into the page cache first, the child unconfined
 *       (target: compressed GETs at least 0.5x the uncompressed store's throughput);
 *   <li><b>under a memory limit</b>: the child started inside a memory cgroup ({@link
 *       MemoryCgroup}) of {@code --memory-limit-mb}, the store's pages evicted first ({@link
 *       PageCache}), so that the uncompressed store, twice the limit at the defaults, is read from
 *       disk as the kernel reclaims the group's pages, while a compressed one may fit (target:
 *       compressed GETs at least 1.5x). Skipped, and said so, where no cgroup can be made.
 * </ul>
 *
 * <p><b>Fairness.</b> Every child has the same fixed heap ({@code -Xms = -Xmx}), the serial
 * collector and the same untimed warm-up (as many reads as it then times), so the JIT and, under
 * the limit, the page cache reach a steady state before the clock starts. Within a round each
 * setting runs the three stores one after the other, the order rotating from round to round, so a
 * slow spell of this shared host falls on each store as often. Each figure is the median round.
 */
final class CompressedStoreRun {
  static final long SEED = CodecCpuRun.SEED;

  static final List<Compression> CODECS =
      List.of(Compression.NONE, Compression.LZ4, Compression.ZSTD);

  /** The two settings the stores are read in. */
  enum Setting {
    IN_MEMORY("in-memory"),
    MEMORY_LIMIT("memory-limit");

    final String id;

    Setting(String id) {
      this.id = id;
    }
  }

  /** What the part is asked to do. */
  record Config(
      long storeBytes,
      long limitBytes,
      int heapMb,
      int gets,
      int stepSeconds,
      int rounds,
      Path profiler) {}

  /** One child's reads of one store in one setting. */
  record Sample(
      int round,
      Compression codec,
      Setting setting,
      Map<String, Long> reader,
      Map<String, Long> cgroup) {
    double opsPerSecond(String op) {
      return reader.get(op + "_" + opsField(op)) / (reader.get(op + "_wall_ns") / 1e9);
    }

    double cpuNanosPerOp(String op) {
      return (double) reader.get(op + "_cpu_ns") / reader.get(op + "_" + opsField(op));
    }

    double majorFaultsPerOp(String op) {
      return (double) reader.get(op + "_major_faults") / reader.get(op + "_" + opsField(op));
    }

    private static String opsField(String op) {
      return "get".equals(op) ? "ops" : "keys";
    }
  }

  /** A run's stores and samples. */
  record Result(
      Config config,
      int documents,
      long rawBytes,
      MemoryCgroup.Support cgroup,
      Map<Compression, CompressedStores.Built> stores,
      List<Sample> samples,
      List<String> childJvm,
      String readAheadKb) {}

  private final Config config;
  private final Path runDir;
  private final PrintStream log;

  CompressedStoreRun(Config config, Path runDir, PrintStream log) {
    if (config.storeBytes() < 1 << 20
        || config.gets() < 16
        || config.rounds() < 1
        || config.stepSeconds() < 1) {
      throw new IllegalArgumentException(
          "--store-mb "
              + (config.storeBytes() >> 20)
              + " must be at least 1, --store-gets "
              + config.gets()
              + " at least 16 and --store-rounds "
              + config.rounds()
              + " and --store-step-seconds "
              + config.stepSeconds()
              + " positive");
    }
    this.config = config;
    this.runDir = runDir;
    this.log = log;
  }

  Result run() throws Exception {
    int documents = documentsFor(config.storeBytes());
    long raw = rawBytes(documents);
    Map<Compression, CompressedStores.Built> stores = new EnumMap<>(Compression.class);
    for (Compression codec : CODECS) {
      CompressedStores.Built built =
          CompressedStores.build(runDir.resolve(codec.label()), codec, documents, raw, SEED);
      stores.put(codec, built);
      log.printf(
          Locale.ROOT,
          "at-rest compressed-store: %s: %d documents, %,d bytes; segments %,d bytes (%d files, %d"
              + " compressed) after %d compaction passes; load %.1f s, compaction %.1f s%n",
          codec.label(),
          documents,
          built.rawBytes(),
          built.segmentBytes(),
          built.segments(),
          built.compressedSegments(),
          built.compactionPasses(),
          built.loadSeconds(),
          built.compactSeconds());
    }
    MemoryCgroup.Support cgroup =
        MemoryCgroup.usable(
            "cellar-bench-" + ProcessHandle.current().pid() + "-trial", config.limitBytes());
    if (!cgroup.available()) {
      log.printf("at-rest compressed-store: memory-limit rows skipped: %s%n", cgroup.unavailable());
    }
    List<Sample> samples = new ArrayList<>();
    for (int r = 1; r <= config.rounds(); r++) {
      List<Compression> order = order(r);
      for (Compression codec : order) {
        PageCache.warm(files(stores.get(codec)));
      }
      for (Compression codec : order) {
        samples.add(read(r, stores.get(codec), documents, Setting.IN_MEMORY, null));
      }
      if (cgroup.available()) {
        for (Compression codec : order) {
          samples.add(read(r, stores.get(codec), documents, Setting.MEMORY_LIMIT, cgroup));
        }
      }
    }
    return new Result(
        config,
        documents,
        stores.get(Compression.NONE).rawBytes(),
        cgroup,
        stores,
        samples,
        childJvm(),
        readAheadKb());
  }

  /**
   * The read-ahead of each block device ({@code /sys/block/DEV/queue/read_ahead_kb}), as {@code
   * dev=kb} pairs: a page fault on a mapped file reads about this much around the page, so it sets
   * what a miss of the uncompressed store costs under the limit.
   */
  static String readAheadKb() {
    List<String> out = new ArrayList<>();
    try (var devices = Files.list(Path.of("/sys/block"))) {
      for (Path dev : devices.sorted().toList()) {
        Path ra = dev.resolve("queue/read_ahead_kb");
        String name = dev.getFileName().toString();
        if (Files.isReadable(ra) && !name.startsWith("loop") && !name.startsWith("ram")) {
          out.add(name + "=" + Files.readString(ra).strip());
        }
      }
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
    return out.isEmpty() ? "unknown" : String.join(" ", out);
  }

  /** The stores in round {@code r}: the three rotated by one each round, none first in round 1. */
  static List<Compression> order(int round) {
    List<Compression> order = new ArrayList<>();
    for (int i = 0; i < CODECS.size(); i++) {
      order.add(CODECS.get((i + round - 1) % CODECS.size()));
    }
    return order;
  }

  /** How many documents of the seed make {@code bytes}: generated and counted, never held. */
  static int documentsFor(long bytes) {
    JsonDocuments docs = new JsonDocuments(SEED);
    long total = 0;
    int n = 0;
    while (total < bytes) {
      total += docs.next().length;
      n++;
    }
    return n;
  }

  /** The bytes of the first {@code documents} documents of the seed. */
  static long rawBytes(int documents) {
    JsonDocuments docs = new JsonDocuments(SEED);
    long total = 0;
    for (int n = 0; n < documents; n++) {
      total += docs.next().length;
    }
    return total;
  }

  private static List<Path> files(CompressedStores.Built store) throws IOException {
    StoreDirectory dir = StoreDirectory.list(store.directory());
    List<Path> files = new ArrayList<>(dir.segments());
    files.addAll(dir.checkpoints());
    return files;
  }

  /** The child JVM's options: a small fixed heap, counted inside the limit with everything else. */
  private List<String> childJvm() {
    return List.of(
        "-Xms" + config.heapMb() + "m",
        "-Xmx" + config.heapMb() + "m",
        "-XX:+UseSerialGC",
        "-XX:ReservedCodeCacheSize=48m",
        "-XX:MaxMetaspaceSize=64m",
        "-XX:-UsePerfData",
        "--enable-native-access=ALL-UNNAMED");
  }

  private Sample read(
      int round,
      CompressedStores.Built store,
      int documents,
      Setting setting,
      MemoryCgroup.Support support)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(AtRestClasspath.java());
    command.addAll(childJvm());
    if (config.profiler() != null) {
      Path out =
          runDir.resolve(
              "profile-" + store.codec().label() + "-" + setting.id + "-" + round + ".collapsed");
      command.add(
          "-agentpath:"
              + config.profiler()
              + "=start,event=cpu,interval=1ms,collapsed,file="
              + out);
    }
    command.addAll(
        List.of(
            "-cp",
            AtRestClasspath.get(),
            CompressedStoreReader.class.getName(),
            store.directory().toString(),
            store.codec().label(),
            Integer.toString(documents),
            Long.toString(store.rawBytes()),
            Integer.toString(config.gets()),
            Integer.toString(config.stepSeconds()),
            Long.toString(SEED)));
    Map<String, Long> cgroupUsage = Map.of();
    Map<String, Long> reader;
    if (setting == Setting.MEMORY_LIMIT) {
      PageCache.evict(files(store));
      String name = "cellar-bench-" + ProcessHandle.current().pid() + "-" + store.codec().label();
      try (MemoryCgroup group = MemoryCgroup.create(support, name, config.limitBytes())) {
        reader = runChild(group.command(command), store, setting);
        cgroupUsage = group.usage();
      }
    } else {
      reader = runChild(command, store, setting);
    }
    Sample s = new Sample(round, store.codec(), setting, reader, cgroupUsage);
    log.printf(
        Locale.ROOT,
        "at-rest compressed-store: round %d, %s, %s: get %,.0f/s (%,.0f CPU ns, %.3f major faults"
            + " per GET), getAll %,.0f keys/s; rss %,d bytes%s%n",
        round,
        setting.id,
        store.codec().label(),
        s.opsPerSecond("get"),
        s.cpuNanosPerOp("get"),
        s.majorFaultsPerOp("get"),
        s.opsPerSecond("getall"),
        reader.get("rss_bytes"),
        cgroupUsage.isEmpty() ? "" : "; cgroup " + cgroupUsage);
    return s;
  }

  /** Runs the reader; returns its result line's fields. Its standard error goes to a log file. */
  private Map<String, Long> runChild(
      List<String> command, CompressedStores.Built store, Setting setting) throws Exception {
    Path err = runDir.resolve("reader-" + store.codec().label() + "-" + setting.id + ".log");
    Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
    String result = null;
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith("result ")) {
          result = line;
        }
      }
    }
    int status = p.waitFor();
    if (status != 0 || result == null) {
      throw new IllegalStateException(
          "the reader of "
              + store.directory()
              + " ("
              + setting.id
              + ") exited with status "
              + status
              + (setting == Setting.MEMORY_LIMIT
                  ? " (137 is a kill: the memory limit may be too small for the JVM and the index)"
                  : "")
              + "; its output: "
              + Files.readString(err).strip());
    }
    Map<String, Long> fields = new LinkedHashMap<>();
    for (String kv : result.substring("result ".length()).split(" ")) {
      int eq = kv.indexOf('=');
      fields.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
    }
    return fields;
  }
}
