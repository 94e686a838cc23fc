package dev.cellar.bench.atrest;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.bench.server.Format;
import dev.cellar.bench.server.Host;
import dev.cellar.bench.server.JsonReport;
import dev.cellar.inspect.StoreDirectory;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cellar bench at-rest}: data at rest, in two parts that {@code --parts} selects.
 *
 * <p>{@code backup}: a store of {@code --size-mb} backed up to and restored from an S3 API endpoint
 * (s3proxy in a JVM of its own, on the same disk) by Cellar's {@code tool backup}/{@code restore}
 * and by the AWS SDK for Java v2, and copied with {@code cp}, in {@code --rounds} rounds; megabytes
 * per second (the median round) and the ratios the targets name: Cellar at least 1.3x the SDK, and
 * at least half of {@code cp}, both ways. What each side does is what it must to be a backup:
 * Cellar reads every file twice (its SHA-256, then the upload, in 8 MiB parts above 8 MiB) and,
 * restoring, checks every file's SHA-256 and syncs it; the SDK uploads each file in one request and
 * its downloads are synced; {@code cp} copies, then each file is synced. The store's files are in
 * the page cache for all of them.
 *
 * <p>{@code codecs}: the CPU that AES-256-GCM costs per JSON document beside zstd's and LZ4's on
 * the same documents ({@link CodecCpuRun}); the target is encryption at most 10% of zstd
 * compression. Its JSON goes under {@code codecs}; the backup part's fields are as they were.
 *
 * <p>{@code engine}, only when asked for: a plain and an encrypted embedded store side by side,
 * load, random and batched GETs, compaction and recovery, and what encryption adds to each
 * operation ({@link EngineRun}). Its JSON goes under {@code engine}.
 *
 * <p>{@code compression}, only when asked for: per-record zstd with and without a trained
 * dictionary, LZ4, and zstd and LZ4 over blocks, on the same documents; sizes, CPU to compress and
 * to read, and a model of the compression targets ({@link CompressionDesignRun}). Its JSON goes
 * under {@code compression}.
 *
 * <p>{@code compressed-store}, only when asked for: the compression targets on the engine itself,
 * three stores of the same documents (none, LZ4, zstd) compacted until compressed; their disk use,
 * and random GETs in memory and with the store twice a memory cgroup's limit, each store read by a
 * child JVM of its own ({@link CompressedStoreRun}). Its JSON goes under {@code compressed_store}.
 */
@Command(
    name = "at-rest",
    mixinStandardHelpOptions = true,
    description = {
      "Backups: a store backed up to and restored from an S3 endpoint (s3proxy, a child JVM) by"
          + " cellar tool backup/restore and by the AWS SDK for Java v2, and copied with cp;"
          + " MB/s and the ratios of the targets (Cellar >= 1.3x the SDK, >= 0.5x cp).",
      "Codecs: CPU per ~1 KB JSON document of AES-256-GCM (JDK) beside zstd (aircompressor-v3,"
          + " zstd-jni) and LZ4, per record and per 64 KiB block; target: encryption <= 10%% of"
          + " zstd compression's CPU.",
      "Engine (not run unless --parts names it): a plain and an encrypted embedded store on the"
          + " same documents, load (putAll of 100), random get, getAll of 16, compaction and"
          + " recovery; throughput, CPU per operation and the encrypted/plain ratios.",
      "Compression (not run unless --parts names it): per-record zstd with and without a trained"
          + " dictionary, LZ4, and zstd and LZ4 over 4 to 64 KiB blocks read through a cache, on"
          + " the same documents; size, CPU per document compressed and per read, and a model of"
          + " the targets (disk <= 0.4x, GET in memory >= 0.5x, encryption <= 10%% of compression).",
      "Compressed store (not run unless --parts names it): the same documents in an uncompressed,"
          + " an LZ4 and a zstd store, compacted until compressed; disk use, and random get and"
          + " getAll of 16 in a child JVM per store, in memory and with the data twice a memory"
          + " cgroup's limit (root only, else skipped); targets: disk <= 0.4x, GET in memory >="
          + " 0.5x, GET under the limit >= 1.5x."
    })
public final class AtRestBenchmark implements Callable<Integer> {
  static final double SDK_RATIO = 1.3;
  static final double CP_RATIO = 0.5;
  static final String BACKUP = "backup";
  static final String CODECS = "codecs";
  static final String ENGINE = "engine";
  static final String COMPRESSION = "compression";
  static final String COMPRESSED_STORE = "compressed-store";
  static final String DEFAULT_PARTS = BACKUP + "," + CODECS;

  @Option(
      names = "--size-mb",
      defaultValue = "512",
      description = "Store size (default ${DEFAULT-VALUE}).")
  int sizeMb;

  @Option(
      names = "--rounds",
      defaultValue = "3",
      description = "Rounds (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--part-mb",
      defaultValue = "8",
      description =
          "Cellar uploads files larger than this in parts of this size, as multipart uploads it"
              + " can resume (default ${DEFAULT-VALUE}, at least 5).")
  int partMb;

  @Option(names = "--dir", description = "Parent of the run directory (default: the temp dir).")
  Path baseDir;

  @Option(names = "--keep-data", description = "Keep the run directory.")
  boolean keepData;

  @Option(names = "--json", description = "Write the results as JSON into this file.")
  Path json;

  @Option(names = "--markdown", description = "Write the Markdown report into this file.")
  Path markdown;

  @Option(
      names = "--parts",
      split = ",",
      defaultValue = DEFAULT_PARTS,
      description =
          "Parts to run, comma-separated: backup, codecs, engine, compression, compressed-store"
              + " (default ${DEFAULT-VALUE}; the engine, compression and compressed-store parts"
              + " run only when named: about 45 s, 4 minutes and 10 minutes at their defaults on"
              + " 2 cores, which would take a default run, about 100 s, past 2 minutes).")
  List<String> parts;

  @Option(
      names = "--docs",
      defaultValue = "20000",
      description = "Codec part: JSON documents of about 1 KB (default ${DEFAULT-VALUE}).")
  int docs;

  @Option(
      names = "--codec-rounds",
      defaultValue = "7",
      description =
          "Codec part: timed passes over all documents for each row, after a warm-up"
              + " (default ${DEFAULT-VALUE}).")
  int codecRounds;

  @Option(
      names = "--engine-docs",
      defaultValue = "200000",
      description =
          "Engine part: JSON documents of about 1 KB in each store; also the GETs of each GET"
              + " row (default ${DEFAULT-VALUE}).")
  int engineDocs;

  @Option(
      names = "--engine-rounds",
      defaultValue = "3",
      description = "Engine part: rounds after a warm-up round (default ${DEFAULT-VALUE}).")
  int engineRounds;

  @Option(
      names = "--compression-docs",
      defaultValue = "100000",
      description =
          "Compression part: JSON documents of about 1 KB, compressed by every candidate"
              + " (default ${DEFAULT-VALUE}).")
  int compressionDocs;

  @Option(
      names = "--compression-rounds",
      defaultValue = "3",
      description =
          "Compression part: timed passes over all documents for each step, after a warm-up"
              + " (default ${DEFAULT-VALUE}).")
  int compressionRounds;

  @Option(
      names = "--store-mb",
      defaultValue = "512",
      description =
          "Compressed-store part: MiB of JSON documents in each store (default ${DEFAULT-VALUE},"
              + " twice the default memory limit).")
  int storeMb;

  @Option(
      names = "--memory-limit-mb",
      defaultValue = "256",
      description =
          "Compressed-store part: the memory cgroup's limit for the reading JVM, its heap, index"
              + " and page cache together (default ${DEFAULT-VALUE}).")
  int memoryLimitMb;

  @Option(
      names = "--store-heap-mb",
      defaultValue = "64",
      description =
          "Compressed-store part: the reading JVM's heap, fixed (default ${DEFAULT-VALUE}).")
  int storeHeapMb;

  @Option(
      names = "--store-gets",
      defaultValue = "200000",
      description =
          "Compressed-store part: GETs timed per store and setting, as many keys in getAll of"
              + " 16, after as many untimed (default ${DEFAULT-VALUE}).")
  int storeGets;

  @Option(
      names = "--store-step-seconds",
      defaultValue = "15",
      description =
          "Compressed-store part: each of a reader's four steps (warm-up and timed, get and"
              + " getAll) stops after this many seconds if its reads are not done: a store read"
              + " from disk may do only hundreds of GETs a second (default ${DEFAULT-VALUE}).")
  int storeStepSeconds;

  @Option(
      names = "--store-rounds",
      defaultValue = "3",
      description = "Compressed-store part: rounds (default ${DEFAULT-VALUE}).")
  int storeRounds;

  @Option(
      names = "--store-profiler",
      description =
          "Compressed-store part: libasyncProfiler.so; each reading JVM then writes collapsed CPU"
              + " stacks into the run directory (use with --keep-data).")
  Path storeProfiler;

  @Override
  public Integer call() throws Exception {
    PrintStream log = System.err;
    Set<String> run = selectedParts();
    if (run.contains(BACKUP) && (sizeMb < 1 || rounds < 1)) {
      throw new IllegalArgumentException("--size-mb and --rounds must be positive");
    }
    String loadStart = oneMinuteLoad();
    Instant started = Instant.now();
    String command = command(run);
    StringBuilder report = new StringBuilder();
    Summary backups = null;
    if (run.contains(BACKUP)) {
      BackupOutcome outcome = backups(log);
      backups = outcome.summary();
      report.append(
          markdown(backups, command, started, loadStart, oneMinuteLoad(), outcome.files()));
    }
    CodecCpuRun.Result codecs = null;
    if (run.contains(CODECS)) {
      String codecLoadStart = oneMinuteLoad();
      Instant codecStarted = Instant.now();
      codecs = new CodecCpuRun(docs, codecRounds, log).run();
      report.append(report.isEmpty() ? "" : "\nCodec CPU, encryption beside compression:\n\n");
      report.append(
          CodecCpuReport.markdown(
              codecs, command, codecStarted.toString(), codecLoadStart, oneMinuteLoad()));
    }
    EngineRun.Result engine = null;
    if (run.contains(ENGINE)) {
      String engineLoadStart = oneMinuteLoad();
      Instant engineStarted = Instant.now();
      engine = engine(log);
      report.append(report.isEmpty() ? "" : "\nEncryption in the engine:\n\n");
      report.append(
          EngineReport.markdown(
              engine, command, engineStarted.toString(), engineLoadStart, oneMinuteLoad()));
    }
    CompressionDesignRun.Result compression = null;
    if (run.contains(COMPRESSION)) {
      String compressionLoadStart = oneMinuteLoad();
      Instant compressionStarted = Instant.now();
      compression = new CompressionDesignRun(compressionDocs, compressionRounds, log).run();
      report.append(report.isEmpty() ? "" : "\nCompression design:\n\n");
      report.append(
          CompressionDesignReport.markdown(
              compression,
              command,
              compressionStarted.toString(),
              compressionLoadStart,
              oneMinuteLoad()));
    }
    CompressedStoreRun.Result compressedStore = null;
    if (run.contains(COMPRESSED_STORE)) {
      String storeLoadStart = oneMinuteLoad();
      Instant storeStarted = Instant.now();
      compressedStore = compressedStore(log);
      report.append(report.isEmpty() ? "" : "\nCompressed store:\n\n");
      report.append(
          CompressedStoreReport.markdown(
              compressedStore, command, storeStarted.toString(), storeLoadStart, oneMinuteLoad()));
    }
    if (markdown != null) {
      Files.writeString(markdown, report);
    }
    System.out.print(report);
    if (json != null) {
      Files.writeString(
          json,
          json(
              backups,
              codecs,
              engine,
              compression,
              compressedStore,
              command,
              started,
              loadStart,
              oneMinuteLoad()));
    }
    return 0;
  }

  /** A backup comparison's results, and the number of files the store had. */
  private record BackupOutcome(Summary summary, int files) {}

  private BackupOutcome backups(PrintStream log) throws Exception {
    Path runDir =
        baseDir == null
            ? Files.createTempDirectory("cellar-bench-at-rest-")
            : Files.createTempDirectory(Files.createDirectories(baseDir), "cellar-bench-at-rest-");
    try {
      Path store = runDir.resolve("store");
      writeStore(store, (long) sizeMb << 20);
      List<Path> files = storeFiles(store);
      long bytes = 0;
      for (Path f : files) {
        bytes += Files.size(f);
      }
      log.printf(
          Locale.ROOT, "at-rest: store of %d files, %,d bytes in %s%n", files.size(), bytes, store);
      List<BackupRun.Round> results = new ArrayList<>();
      try (S3ProxyProcess endpoint = S3ProxyProcess.start(runDir);
          SdkProcess sdk =
              new SdkProcess(
                  endpoint.endpoint(),
                  S3ProxyProcess.BUCKET,
                  S3ProxyProcess.ACCESS,
                  S3ProxyProcess.SECRET,
                  runDir.resolve("sdk.log"))) {
        log.printf(
            "at-rest: s3proxy pid %d at %s, the AWS SDK in pid %d%n",
            endpoint.pid(), endpoint.endpoint(), sdk.pid());
        BackupRun run = new BackupRun(store, files, runDir, endpoint, partMb << 20, sdk);
        for (int r = 1; r <= rounds; r++) {
          BackupRun.Round round = run.round(r);
          results.add(round);
          log.printf(
              Locale.ROOT,
              "at-rest: round %d: backup cellar %.2f s, sdk %.2f s; restore cellar %.2f s, sdk %.2f"
                  + " s; cp %.2f s%n",
              r,
              round.cellarBackup().seconds(),
              round.sdkUpload().seconds(),
              round.cellarRestore().seconds(),
              round.sdkDownload().seconds(),
              round.cp().seconds());
        }
      }
      return new BackupOutcome(new Summary(bytes, results), files.size());
    } finally {
      if (!keepData) {
        BackupRun.deleteTree(runDir);
      }
    }
  }

  /** The engine part in a run directory of its own, removed after unless {@code --keep-data}. */
  private EngineRun.Result engine(PrintStream log) throws Exception {
    Path runDir =
        baseDir == null
            ? Files.createTempDirectory("cellar-bench-at-rest-engine-")
            : Files.createTempDirectory(
                Files.createDirectories(baseDir), "cellar-bench-at-rest-engine-");
    try {
      return new EngineRun(engineDocs, engineRounds, runDir, log).run();
    } finally {
      if (keepData) {
        log.printf("at-rest engine: the last round's stores and key are in %s%n", runDir);
      } else {
        BackupRun.deleteTree(runDir);
      }
    }
  }

  /** The compressed-store part in a run directory of its own, removed after unless kept. */
  private CompressedStoreRun.Result compressedStore(PrintStream log) throws Exception {
    Path runDir =
        baseDir == null
            ? Files.createTempDirectory("cellar-bench-at-rest-store-")
            : Files.createTempDirectory(
                Files.createDirectories(baseDir), "cellar-bench-at-rest-store-");
    try {
      return new CompressedStoreRun(
              new CompressedStoreRun.Config(
                  (long) storeMb << 20,
                  (long) memoryLimitMb << 20,
                  storeHeapMb,
                  storeGets,
                  storeStepSeconds,
                  storeRounds,
                  storeProfiler),
              runDir,
              log)
          .run();
    } finally {
      if (keepData) {
        log.printf("at-rest compressed-store: the stores and reader logs are in %s%n", runDir);
      } else {
        BackupRun.deleteTree(runDir);
      }
    }
  }

  private Set<String> selectedParts() {
    Set<String> run = new LinkedHashSet<>();
    for (String part : parts) {
      String p = part.strip().toLowerCase(Locale.ROOT);
      if (!List.of(BACKUP, CODECS, ENGINE, COMPRESSION, COMPRESSED_STORE).contains(p)) {
        throw new IllegalArgumentException(
            "--parts: unknown part '"
                + part
                + "'; the parts are "
                + BACKUP
                + ", "
                + CODECS
                + ", "
                + ENGINE
                + ", "
                + COMPRESSION
                + " and "
                + COMPRESSED_STORE);
      }
      run.add(p);
    }
    return run;
  }

  /** The command line that repeats this run. */
  private String command(Set<String> run) {
    StringBuilder command = new StringBuilder("./cellar bench at-rest");
    if (!run.equals(new LinkedHashSet<>(List.of(DEFAULT_PARTS.split(","))))) {
      command.append(" --parts ").append(String.join(",", run));
    }
    if (run.contains(BACKUP)) {
      command.append(" --size-mb ").append(sizeMb);
      command.append(" --rounds ").append(rounds);
      command.append(" --part-mb ").append(partMb);
    }
    if (run.contains(CODECS)) {
      command.append(" --docs ").append(docs);
      command.append(" --codec-rounds ").append(codecRounds);
    }
    if (run.contains(ENGINE)) {
      command.append(" --engine-docs ").append(engineDocs);
      command.append(" --engine-rounds ").append(engineRounds);
    }
    if (run.contains(COMPRESSION)) {
      command.append(" --compression-docs ").append(compressionDocs);
      command.append(" --compression-rounds ").append(compressionRounds);
    }
    if (run.contains(COMPRESSED_STORE)) {
      command.append(" --store-mb ").append(storeMb);
      command.append(" --memory-limit-mb ").append(memoryLimitMb);
      command.append(" --store-heap-mb ").append(storeHeapMb);
      command.append(" --store-gets ").append(storeGets);
      command.append(" --store-step-seconds ").append(storeStepSeconds);
      command.append(" --store-rounds ").append(storeRounds);
    }
    return command.toString();
  }

  /** The one-minute load average, the first figure of {@code /proc/loadavg}. */
  private static String oneMinuteLoad() {
    return Host.loadAverage().split(" ")[0];
  }

  /** Medians and ratios of a run. */
  record Summary(long bytes, List<BackupRun.Round> rounds) {
    double mbPerS(Function<BackupRun.Round, Measured> step) {
      return bytes / 1e6 / median(step, Measured::seconds);
    }

    /** CPU seconds per GB moved, of the client or of the endpoint (median round). */
    double cpuPerGb(Function<BackupRun.Round, Measured> step, ToDoubleFunction<Measured> cpu) {
      return median(step, cpu) / (bytes / 1e9);
    }

    private double median(
        Function<BackupRun.Round, Measured> step, ToDoubleFunction<Measured> value) {
      return BackupRun.median(rounds.stream().map(step).map(value::applyAsDouble).toList());
    }

    double backupVsSdk() {
      return mbPerS(BackupRun.Round::cellarBackup) / mbPerS(BackupRun.Round::sdkUpload);
    }

    double restoreVsSdk() {
      return mbPerS(BackupRun.Round::cellarRestore) / mbPerS(BackupRun.Round::sdkDownload);
    }

    double backupVsCp() {
      return mbPerS(BackupRun.Round::cellarBackup) / mbPerS(BackupRun.Round::cp);
    }

    double restoreVsCp() {
      return mbPerS(BackupRun.Round::cellarRestore) / mbPerS(BackupRun.Round::cp);
    }
  }

  /** Values of 1 KiB from a seeded generator (incompressible), put in batches until the size. */
  private static void writeStore(Path store, long size) {
    CellarOptions options = CellarOptions.defaults().fsync(Fsync.NO).backgroundCompaction(false);
    SplittableRandom random = new SplittableRandom(21);
    try (Cellar db = Cellar.open(store, options)) {
      long written = 0;
      for (int i = 0; written < size; i++) {
        byte[] value = new byte[1024];
        random.nextBytes(value);
        db.put(("doc:" + i).getBytes(StandardCharsets.UTF_8), value);
        written += value.length + 32;
      }
    }
  }

  private static List<Path> storeFiles(Path store) throws IOException {
    StoreDirectory dir = StoreDirectory.list(store);
    List<Path> files = new ArrayList<>();
    if (Files.isRegularFile(dir.metaFile())) {
      files.add(dir.metaFile());
    }
    files.addAll(dir.checkpoints());
    files.addAll(dir.segments());
    return files;
  }

  private static String markdown(
      Summary s, String command, Instant started, String loadStart, String loadEnd, int files) {
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "`%s`, %s: a store of %d files, %s; %d rounds, the median shown; s3proxy (filesystem"
                + " store) in its own JVM on the same disk; %d cores, load average %s at the"
                + " start and %s at the end.%n%n",
            command,
            started,
            files,
            Format.bytes(s.bytes()),
            s.rounds().size(),
            Runtime.getRuntime().availableProcessors(),
            loadStart,
            loadEnd));
    md.append("| | Cellar tool | AWS SDK v2 | cp + sync | Cellar / SDK | Cellar / cp |\n");
    md.append("|---|---:|---:|---:|---:|---:|\n");
    md.append(
        row(
            "backup MB/s",
            s.mbPerS(BackupRun.Round::cellarBackup),
            s.mbPerS(BackupRun.Round::sdkUpload),
            s.mbPerS(BackupRun.Round::cp),
            s.backupVsSdk(),
            s.backupVsCp()));
    md.append(
        row(
            "restore MB/s",
            s.mbPerS(BackupRun.Round::cellarRestore),
            s.mbPerS(BackupRun.Round::sdkDownload),
            s.mbPerS(BackupRun.Round::cp),
            s.restoreVsSdk(),
            s.restoreVsCp()));
    md.append(
        "\nCPU seconds per GB moved (median round): the client's JVM, all its threads, and the"
            + " endpoint's (s3proxy):\n\n");
    md.append("| | Cellar client | SDK client | endpoint under Cellar | endpoint under SDK |\n");
    md.append("|---|---:|---:|---:|---:|\n");
    cpuRow(md, s, "backup", BackupRun.Round::cellarBackup, BackupRun.Round::sdkUpload);
    cpuRow(md, s, "restore", BackupRun.Round::cellarRestore, BackupRun.Round::sdkDownload);
    md.append("\n| target | required | measured | met |\n|---|---|---|---|\n");
    verdict(md, "backup, Cellar / AWS SDK", "≥ 1.3x", s.backupVsSdk(), SDK_RATIO);
    verdict(md, "restore, Cellar / AWS SDK", "≥ 1.3x", s.restoreVsSdk(), SDK_RATIO);
    verdict(md, "backup, Cellar / cp", "≥ 0.5x", s.backupVsCp(), CP_RATIO);
    verdict(md, "restore, Cellar / cp", "≥ 0.5x", s.restoreVsCp(), CP_RATIO);
    return md.toString();
  }

  private static void cpuRow(
      StringBuilder md,
      Summary s,
      String what,
      Function<BackupRun.Round, Measured> cellar,
      Function<BackupRun.Round, Measured> sdk) {
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %.2f | %.2f | %.2f | %.2f |%n",
            what,
            s.cpuPerGb(cellar, Measured::clientCpu),
            s.cpuPerGb(sdk, Measured::clientCpu),
            s.cpuPerGb(cellar, Measured::serverCpu),
            s.cpuPerGb(sdk, Measured::serverCpu)));
  }

  private static String row(
      String what, double cellar, double sdk, double cp, double vsSdk, double vsCp) {
    return String.format(
        Locale.ROOT,
        "| %s | %.1f | %.1f | %.1f | %s | %s |%n",
        what,
        cellar,
        sdk,
        cp,
        Format.ratio(vsSdk),
        Format.ratio(vsCp));
  }

  private static void verdict(
      StringBuilder md, String target, String required, double measured, double needed) {
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %s | %s | %s |%n",
            target,
            required,
            Format.ratio(measured),
            measured >= needed ? "yes" : "**no**"));
  }

  /** The run's record: the backup part's fields as they were before the codec part, then it. */
  private static String json(
      Summary backups,
      CodecCpuRun.Result codecs,
      EngineRun.Result engine,
      CompressionDesignRun.Result compression,
      CompressedStoreRun.Result compressedStore,
      String command,
      Instant started,
      String loadStart,
      String loadEnd) {
    Map<String, Object> machine = new LinkedHashMap<>();
    machine.put("cores", Runtime.getRuntime().availableProcessors());
    machine.put("started", started.toString());
    machine.put("load_average_start", loadStart);
    machine.put("load_average_end", loadEnd);
    machine.put("command", command);
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("machine", machine);
    if (backups != null) {
      machine.put("store_bytes", backups.bytes());
      backupJson(backups, root);
    }
    if (codecs != null) {
      root.put("codecs", CodecCpuReport.json(codecs));
    }
    if (engine != null) {
      root.put("engine", EngineReport.json(engine));
    }
    if (compression != null) {
      root.put("compression", CompressionDesignReport.json(compression));
    }
    if (compressedStore != null) {
      root.put("compressed_store", CompressedStoreReport.json(compressedStore));
    }
    return JsonReport.render(root);
  }

  private static void backupJson(Summary s, Map<String, Object> root) {
    List<Object> results = new ArrayList<>();
    addRow(results, "backup", "cellar", s.mbPerS(BackupRun.Round::cellarBackup));
    addRow(results, "backup", "aws-sdk-v2", s.mbPerS(BackupRun.Round::sdkUpload));
    addRow(results, "backup", "cp", s.mbPerS(BackupRun.Round::cp));
    addRow(results, "restore", "cellar", s.mbPerS(BackupRun.Round::cellarRestore));
    addRow(results, "restore", "aws-sdk-v2", s.mbPerS(BackupRun.Round::sdkDownload));
    addRow(results, "restore", "cp", s.mbPerS(BackupRun.Round::cp));
    List<Object> rounds = new ArrayList<>();
    for (BackupRun.Round r : s.rounds()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("round", r.round());
      m.put("cellar_backup", measured(r.cellarBackup()));
      m.put("sdk_upload", measured(r.sdkUpload()));
      m.put("cellar_restore", measured(r.cellarRestore()));
      m.put("sdk_download", measured(r.sdkDownload()));
      m.put("cp", measured(r.cp()));
      rounds.add(m);
    }
    root.put("results", results);
    root.put("rounds", rounds);
  }

  private static Map<String, Object> measured(Measured m) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("seconds", m.seconds());
    out.put("client_cpu_s", m.clientCpu());
    out.put("endpoint_cpu_s", m.serverCpu());
    return out;
  }

  private static void addRow(List<Object> rows, String op, String client, double mbPerS) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("part", "backup");
    row.put("op", op);
    row.put("client", client);
    row.put("metric", "mb_per_s");
    row.put("value", Math.round(mbPerS * 10) / 10.0);
    rows.add(row);
  }
}
