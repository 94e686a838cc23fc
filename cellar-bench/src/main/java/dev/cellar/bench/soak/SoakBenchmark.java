package dev.cellar.bench.soak;

import dev.cellar.bench.embedded.MachineInfo;
import dev.cellar.bench.server.ChildProcesses;
import dev.cellar.bench.server.LauncherOptions;
import dev.cellar.bench.server.MarkdownSection;
import dev.cellar.bench.server.ReportedCommandLine;
import dev.cellar.bench.server.ScratchDirectory;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench soak}: the server under mixed load for a long time, to show that its memory
 * stays flat.
 *
 * <p>Plan. The server is started as users start it (the {@code cellar server} launcher, its JVM
 * flags, {@code appendfsync everysec}) on a fresh directory. Client threads (see {@link
 * MixedLoadClient}) send a mix of reads and writes over a bounded key space with values up to 64
 * KiB, so keys are overwritten many times over and compaction never runs out of work; a BGSAVE
 * starts every minute. Every ten seconds the harness reads the server's resident memory, heap, used
 * memory, log size and compactions, asking for a full collection first every half minute so the
 * live heap can be told from garbage (see {@link FullCollection}). The report judges the second
 * half of the readings (see {@link Flatness}). Unless {@code --no-hostile}, hostile clients run
 * beside the load (see {@link HostileLoad}), and the run must also show the server defending
 * itself: each pattern cut off or answered as it should be, and its connections back to the
 * well-behaved ones afterwards.
 *
 * <p>This is not a CI test: it needs a quiet machine for its full length. The exit status is 0 when
 * the run passes and 1 when it does not; the report is written either way.
 */
@Command(
    name = "soak",
    mixinStandardHelpOptions = true,
    description = {
      "The server under long mixed load: SET/GET/DEL/EXPIRE/INCR/APPEND, values of 10 B to 64 KiB,"
          + " heavy overwrite, a BGSAVE a minute.",
      "Reads RSS, heap, used memory and the log every 10 s and judges whether memory stays flat."
          + " Exit status 1 if it does not, or if any request failed."
    })
public final class SoakBenchmark implements Callable<Integer> {
  static final String BEGIN = "<!-- soak:begin -->";
  static final String END = "<!-- soak:end -->";

  @Spec CommandSpec spec;

  @Mixin LauncherOptions launcherOptions;

  @Option(
      names = "--minutes",
      defaultValue = "30",
      description = "Length of the load (default ${DEFAULT-VALUE}).")
  double minutes;

  @Option(
      names = "--clients",
      defaultValue = "8",
      description = "Client connections, one thread each (default ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--keys",
      defaultValue = "20000",
      description = "String keys overwritten at random (default ${DEFAULT-VALUE}).")
  int keys;

  @Option(
      names = "--sample-seconds",
      defaultValue = "10",
      description = "Seconds between readings (default ${DEFAULT-VALUE}).")
  int sampleSeconds;

  @Option(
      names = "--bgsave-seconds",
      defaultValue = "60",
      description = "Seconds between BGSAVEs; 0 for none (default ${DEFAULT-VALUE}).")
  int bgsaveSeconds;

  @Option(
      names = "--full-gc-seconds",
      defaultValue = "30",
      description =
          "Seconds between full collections asked of the server (jcmd GC.class_histogram, which also counts the live objects); 0 for none (default ${DEFAULT-VALUE}).")
  int fullGcSeconds;

  @Option(
      names = "--fsync",
      defaultValue = "everysec",
      description = "The server's appendfsync (default ${DEFAULT-VALUE}).")
  String fsync;

  @Option(
      names = "--server-arg",
      description = "An extra argument for cellar server, such as --maxmemory=1gb (repeatable).")
  List<String> serverArgs = new ArrayList<>();

  @Option(
      names = "--hostile",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Hostile clients beside the load (default on; --no-hostile for the load alone): resets mid-request, stalled 56 MB MSETs,"
              + " a trickled MSET, HTTP slowloris, oversized requests before AUTH. The server then has a password and HTTP on.")
  boolean hostile;

  @Option(
      names = "--out",
      description =
          "JSON results file; '-' for none (default docs/benchmarks/soak-<date>.json in the checkout).")
  String out;

  @Option(
      names = "--markdown",
      description =
          "Markdown file the report goes into, between "
              + BEGIN
              + " and "
              + END
              + "; '-' for none (default docs/benchmarks.md in the checkout).")
  String markdown;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintStream log = System.err;
    SoakSettings settings = settings();
    Path cellar = launcherOptions.executableLauncher(spec);
    Path root = cellar.toAbsolutePath().getParent();
    Path markdownFile = markdownFile(root);
    FullCollection fullCollection = fullCollection(settings);
    Map<String, Object> machine = new LinkedHashMap<>(MachineInfo.describe());
    machine.put("load_average_start", loadAverage());
    ChildProcesses children = new ChildProcesses().installShutdownHook();
    Path runDir = launcherOptions.newRunDirectory("cellar-soak-");
    if (!launcherOptions.keepData()) {
      children.deleteAtExit(runDir);
    }
    log.printf(
        Locale.ROOT,
        "soak: %.1f min, %d clients, %,d keys, fsync %s%s; data in %s%n",
        settings.minutes(),
        settings.clients(),
        settings.keys(),
        settings.fsync(),
        settings.hostile() ? ", hostile clients" : "",
        runDir);
    SoakResult result;
    try {
      result = new SoakRun(settings, fullCollection, log).run(cellar, runDir, freePort(), children);
    } finally {
      if (!launcherOptions.keepData()) {
        ScratchDirectory.delete(runDir);
      }
    }
    machine.put("load_average_end", loadAverage());
    report(settings, machine, result, root, markdownFile, log);
    return result.passed() ? 0 : 1;
  }

  private void report(
      SoakSettings settings,
      Map<String, Object> machine,
      SoakResult result,
      Path root,
      Path markdownFile,
      PrintStream log)
      throws IOException {
    String heading =
        String.format(
            Locale.ROOT,
            "`%s`, %s: %d clients over %,d keys, values %d B to %d KiB, fsync %s, a BGSAVE every %d s, readings every %d s, "
                + "a full GC asked every %d s%s; %s cores (%s), load average %s at the start.",
            ReportedCommandLine.of(spec, "./cellar bench soak"),
            machine.get("date"),
            settings.clients(),
            settings.keys(),
            MixedLoadClient.MIN_VALUE,
            MixedLoadClient.MAX_VALUE / 1024,
            settings.fsync(),
            settings.bgsaveSeconds(),
            settings.sampleSeconds(),
            settings.fullGcSeconds(),
            settings.hostile()
                ? "; hostile clients throughout (below), the server with a password and HTTP"
                : "",
            machine.get("cores"),
            machine.get("cpu"),
            String.valueOf(machine.get("load_average_start")).split(" ")[0]);
    String section = SoakReport.markdown(heading, result);
    System.out.print(section);
    Path json = jsonPath(root);
    if (json != null) {
      Files.createDirectories(json.toAbsolutePath().getParent());
      Map<String, Object> config = new LinkedHashMap<>(settings.describe());
      config.put("command", ReportedCommandLine.of(spec, "./cellar bench soak"));
      Files.writeString(json, SoakReport.json(machine, config, result), StandardCharsets.UTF_8);
      log.println("wrote " + json);
    }
    if (markdownFile != null) {
      Files.writeString(
          markdownFile,
          MarkdownSection.replace(Files.readString(markdownFile), section, BEGIN, END),
          StandardCharsets.UTF_8);
      log.println("wrote the report into " + markdownFile);
    }
  }

  private SoakSettings settings() {
    try {
      return new SoakSettings(
          minutes,
          clients,
          keys,
          sampleSeconds,
          bgsaveSeconds,
          fullGcSeconds,
          fsync,
          serverArgs,
          hostile);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private FullCollection fullCollection(SoakSettings settings) {
    if (settings.fullGcSeconds() == 0) {
      return null;
    }
    try {
      return FullCollection.ofThisJdk();
    } catch (IllegalStateException e) {
      throw new ParameterException(
          spec.commandLine(), e.getMessage() + " (or pass --full-gc-seconds 0)");
    }
  }

  /** The Markdown file, checked now rather than after a half-hour run; null for none. */
  private Path markdownFile(Path root) {
    if ("-".equals(markdown)) {
      return null;
    }
    Path file = markdown != null ? Path.of(markdown) : root.resolve("docs/benchmarks.md");
    try {
      MarkdownSection.check(Files.readString(file), BEGIN, END);
      return file;
    } catch (IOException e) {
      throw new ParameterException(
          spec.commandLine(), "--markdown " + file + ": cannot read it: " + e);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "--markdown " + file + ": " + e.getMessage());
    }
  }

  private Path jsonPath(Path root) {
    if ("-".equals(out)) {
      return null;
    }
    return out != null
        ? Path.of(out)
        : root.resolve("docs/benchmarks/soak-" + LocalDate.now(ZoneOffset.UTC) + ".json");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
