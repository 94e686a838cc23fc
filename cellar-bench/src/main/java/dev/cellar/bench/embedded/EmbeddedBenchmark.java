package dev.cellar.bench.embedded;

import dev.cellar.bench.stores.StoreKind;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench embedded}: the macro benchmark of Cellar against embedded peers. Each store
 * runs every phase (see {@link WorkloadDriver}) in a fresh child JVM ({@link ChildJvm}) on a fresh
 * data directory; this JVM only launches them, one after another, and gathers the results into a
 * table on stdout and, if asked, a JSON file.
 *
 * <p>A store that fails (crash, wrong answer, timeout) is reported with the phases it completed,
 * the others still run, and the exit status is then 1.
 */
@Command(
    name = "embedded",
    mixinStandardHelpOptions = true,
    description =
        "Load, read, overwrite and reopen N keys in Cellar and embedded peers, each in its own JVM.")
public final class EmbeddedBenchmark implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--keys",
      defaultValue = "" + Workload.DEFAULT_KEYS,
      description = "Number of keys user:0 .. user:N-1 (default ${DEFAULT-VALUE}).")
  long keys;

  @Option(
      names = "--value-size",
      defaultValue = "" + Workload.DEFAULT_VALUE_BYTES,
      description = "Value size in bytes (default ${DEFAULT-VALUE}).")
  int valueBytes;

  @Option(
      names = "--ops",
      description = "Operations in each read and overwrite phase (default min(5,000,000, keys)).")
  Long ops;

  @Option(
      names = "--stores",
      defaultValue = "cellar,hashmap,chronicle,mapdb,lmdb,rocksdb",
      description = "Comma-separated stores to run, in order (default ${DEFAULT-VALUE}).")
  String stores;

  @Option(names = "--json", description = "Also write the results as JSON to this file.")
  Path json;

  @Option(
      names = "--heap",
      defaultValue = "8g",
      description = "-Xms and -Xmx of every store's JVM (default ${DEFAULT-VALUE}).")
  String heap;

  @Option(names = "--jvm-arg", description = "Extra flag for every store's JVM; repeatable.")
  List<String> jvmArgs = new ArrayList<>();

  @Option(
      names = "--dir",
      description = "Parent of the data directories (default the system temp directory).")
  Path baseDir;

  @Option(names = "--keep-data", description = "Keep the stores' data directories.")
  boolean keepData;

  @Option(
      names = "--seed",
      defaultValue = "" + Workload.DEFAULT_SEED,
      description = "Seed of the random key choices (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--timeout-minutes",
      defaultValue = "240",
      description = "Give up on a store after this long (default ${DEFAULT-VALUE}).")
  long timeoutMinutes;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintStream log = System.err;
    Workload workload;
    List<StoreKind> kinds;
    try {
      workload =
          new Workload(keys, valueBytes, ops != null ? ops : Workload.defaultOps(keys), seed);
      kinds = StoreKind.parseList(stores);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    ChildJvm jvm = new ChildJvm(heap, jvmArgs, timeoutMinutes, log);
    Path runDir = createRunDir();
    Map<String, Object> machine = MachineInfo.describe();
    log.printf(
        "embedded benchmark: %,d keys, %d-byte values, %,d ops per phase, stores %s, data in %s%n",
        workload.keys(),
        workload.valueBytes(),
        workload.ops(),
        kinds.stream().map(StoreKind::id).toList(),
        runDir);
    Map<StoreKind, Measurements> results = new LinkedHashMap<>();
    for (StoreKind kind : kinds) {
      Measurements measured = runOne(kind, workload, jvm, runDir);
      measured.failure().ifPresent(why -> log.println("[" + kind.id() + "] FAILED: " + why));
      results.put(kind, measured);
    }
    System.out.print(ComparisonTable.render(results));
    if (json != null) {
      String report = JsonReport.render(machine, config(workload, kinds, jvm), results);
      Files.writeString(json, report, StandardCharsets.UTF_8);
      log.println("wrote " + json);
    }
    if (!keepData) {
      deleteTree(runDir);
    }
    return results.values().stream().anyMatch(r -> r.failure().isPresent()) ? 1 : 0;
  }

  /** Runs one store in its child JVM on a fresh directory, removed afterwards unless kept. */
  private Measurements runOne(StoreKind kind, Workload workload, ChildJvm jvm, Path runDir)
      throws IOException, InterruptedException {
    Path dataDir = Files.createDirectories(runDir.resolve(kind.id()));
    try {
      return jvm.run(kind, workload, dataDir, runDir.resolve(kind.id() + ".results"));
    } catch (IOException e) {
      Measurements failed = new Measurements();
      failed.fail(e.toString());
      return failed;
    } finally {
      if (!keepData) {
        deleteTree(dataDir);
      }
    }
  }

  private Path createRunDir() throws IOException {
    Path parent = baseDir != null ? baseDir : Path.of(System.getProperty("java.io.tmpdir"));
    Files.createDirectories(parent);
    return Files.createTempDirectory(parent, "cellar-bench-");
  }

  private Map<String, Object> config(Workload workload, List<StoreKind> kinds, ChildJvm jvm) {
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("keys", workload.keys());
    config.put("value_size", workload.valueBytes());
    config.put("ops", workload.ops());
    config.put("seed", workload.seed());
    config.put("load_order", "sequential");
    config.put("stores", kinds.stream().map(StoreKind::id).toList());
    config.put("jvm_flags", jvm.commonFlags());
    return config;
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            Files.delete(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
