package dev.cellar.bench.crash;

import dev.cellar.bench.embedded.MachineInfo;
import dev.cellar.bench.server.ChildProcesses;
import dev.cellar.bench.server.JsonReport;
import dev.cellar.bench.server.LauncherOptions;
import dev.cellar.bench.server.MarkdownSection;
import dev.cellar.bench.server.ScratchDirectory;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench crash}: the crash loop ({@link CrashLoop}) against the server started by the
 * {@code cellar} launcher, as users start it. Prints a line per cycle and a summary, writes a JSON
 * report and a section of {@code docs/benchmarks.md}, and exits 1 if anything acknowledged was lost
 * (or anything else went wrong), 0 otherwise. The bar: 100 cycles, no losses.
 *
 * <p>The data directory and the server logs are kept when the run fails, for inspection with {@code
 * ./cellar tool verify}.
 */
@Command(
    name = "crash",
    mixinStandardHelpOptions = true,
    description = {
      "Crash loop: ./cellar server --fsync always, Jedis and Lettuce clients writing, SIGKILL at random"
          + " moments and during compaction (BGREWRITEAOF) and checkpoints (BGSAVE), restart, and a check"
          + " of every acknowledged write.",
      "Exit status 1 on any loss."
    })
public final class CrashCommand implements Callable<Integer> {
  static final String BEGIN = "<!-- crash-bench:begin -->";
  static final String END = "<!-- crash-bench:end -->";

  @Spec CommandSpec spec;

  @Mixin LauncherOptions launcherOptions;

  @Option(
      names = "--cycles",
      defaultValue = "100",
      description = "Kill-restart-check cycles (default ${DEFAULT-VALUE}).")
  int cycles;

  @Option(
      names = "--clients",
      defaultValue = "4",
      description =
          "Concurrent clients, each with its own keys, Jedis and Lettuce in turn (default ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--keys",
      defaultValue = "200",
      description = "String keys per client (default ${DEFAULT-VALUE}; counters: one per 50).")
  int keys;

  @Option(
      names = "--max-value",
      defaultValue = "512",
      description =
          "Longest value in bytes; lengths are uniform from 16 (default ${DEFAULT-VALUE}).")
  int maxValue;

  @Option(
      names = "--seed",
      description =
          "Seed of the clients' operations and of the timings (default: random, printed).")
  Long seed;

  @Option(
      names = "--min-write-ms",
      defaultValue = "300",
      description = "Shortest writing time before a kill (default ${DEFAULT-VALUE}).")
  long minWriteMillis;

  @Option(
      names = "--max-write-ms",
      defaultValue = "3000",
      description = "Longest writing time before a kill (default ${DEFAULT-VALUE}).")
  long maxWriteMillis;

  @Option(
      names = "--max-kill-delay-ms",
      defaultValue = "50",
      description =
          "Longest wait between BGREWRITEAOF or BGSAVE and the kill (default ${DEFAULT-VALUE}).")
  long maxKillDelayMillis;

  @Option(
      names = "--segment-size",
      defaultValue = "1mb",
      description =
          "The server's log segment size: small, so segments seal and compaction has work (default ${DEFAULT-VALUE}).")
  String segmentSize;

  @Option(
      names = "--out",
      description =
          "JSON report; '-' for none (default docs/benchmarks/crash-<date>.json in the checkout).")
  String out;

  @Option(
      names = "--markdown",
      description =
          "Markdown file to write the results into, between "
              + BEGIN
              + " and "
              + END
              + "; '-' for none (default docs/benchmarks.md in the checkout).")
  String markdown;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintStream log = System.out;
    CrashSettings settings = settings();
    Path script = launcherOptions.executableLauncher(spec);
    Path root = script.toAbsolutePath().getParent();
    Path markdownFile = target(markdown, root.resolve("docs/benchmarks.md"));
    checkMarkdownTarget(markdownFile);
    ChildProcesses children = new ChildProcesses().installShutdownHook();
    Path runDir = launcherOptions.newRunDirectory("cellar-bench-crash-");
    children.deleteAtExit(launcherOptions.keepData() ? null : runDir);
    log.printf(
        Locale.ROOT,
        "crash loop: %d cycles, %d clients of %d keys, seed %d, segments of %s; data in %s%n",
        settings.cycles(),
        settings.clients(),
        settings.keysPerClient(),
        settings.seed(),
        settings.segmentSize(),
        runDir);
    Map<String, Object> machine = new LinkedHashMap<>(MachineInfo.describe());
    machine.put("cellar_commit", commit(root));
    long begin = System.nanoTime();
    CrashResult result;
    try {
      result = new CrashLoop(settings, ServerLaunch.launcher(script), runDir, children, log).run();
    } catch (IOException | RuntimeException e) {
      children.deleteAtExit(null);
      log.println("crash loop failed; data and server logs kept in " + runDir);
      throw e;
    }
    machine.put("duration_s", (System.nanoTime() - begin) / 1_000_000_000L);
    log.println(result.summary());
    report(result, machine, root, markdownFile, log);
    if (result.passed() && !launcherOptions.keepData()) {
      ScratchDirectory.delete(runDir);
    } else {
      children.deleteAtExit(null);
      log.println("data and server logs kept in " + runDir);
    }
    return result.passed() ? 0 : 1;
  }

  private void report(
      CrashResult result,
      Map<String, Object> machine,
      Path root,
      Path markdownFile,
      PrintStream log)
      throws IOException {
    Path json =
        target(
            out, root.resolve("docs/benchmarks/crash-" + LocalDate.now(ZoneOffset.UTC) + ".json"));
    if (json != null) {
      Map<String, Object> report = new LinkedHashMap<>();
      report.put("machine", machine);
      Map<String, Object> config = new LinkedHashMap<>(result.settings().describe());
      config.put("command", commandLine());
      report.put("config", config);
      report.putAll(result.describe());
      Files.createDirectories(json.toAbsolutePath().getParent());
      Files.writeString(json, JsonReport.render(report), StandardCharsets.UTF_8);
      log.println("wrote " + json);
    }
    if (markdownFile != null) {
      String heading =
          String.format(
              Locale.ROOT,
              "`%s`, %s, %s s, %d clients of %d keys, segments of %s, seed %d; Cellar %s; %s cores (%s).",
              commandLine(),
              machine.get("date"),
              machine.get("duration_s"),
              result.settings().clients(),
              result.settings().keysPerClient(),
              result.settings().segmentSize(),
              result.settings().seed(),
              machine.get("cellar_commit"),
              machine.get("cores"),
              machine.get("cpu"));
      String section = result.markdown(heading);
      Files.writeString(
          markdownFile,
          MarkdownSection.replace(Files.readString(markdownFile), section, BEGIN, END),
          StandardCharsets.UTF_8);
      log.println("wrote the results into " + markdownFile);
    }
  }

  private CrashSettings settings() {
    try {
      long s = seed != null ? seed : ThreadLocalRandom.current().nextLong(1L << 48);
      return new CrashSettings(
          cycles,
          clients,
          keys,
          maxValue,
          s,
          minWriteMillis,
          maxWriteMillis,
          maxKillDelayMillis,
          segmentSize);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** How this run was invoked, for the report, without options that name local paths. */
  private String commandLine() {
    StringBuilder line = new StringBuilder("./cellar bench crash");
    line.append(" --cycles ")
        .append(cycles)
        .append(" --clients ")
        .append(clients)
        .append(" --keys ")
        .append(keys)
        .append(" --max-value ")
        .append(maxValue);
    line.append(" --min-write-ms ")
        .append(minWriteMillis)
        .append(" --max-write-ms ")
        .append(maxWriteMillis);
    line.append(" --max-kill-delay-ms ")
        .append(maxKillDelayMillis)
        .append(" --segment-size ")
        .append(segmentSize);
    return line.toString();
  }

  private static Path target(String option, Path fallback) {
    if ("-".equals(option)) {
      return null;
    }
    return option != null ? Path.of(option) : fallback;
  }

  /** Fails now, not after the run, if the results cannot go where they should. */
  private void checkMarkdownTarget(Path file) {
    if (file == null) {
      return;
    }
    try {
      MarkdownSection.check(Files.readString(file), BEGIN, END);
    } catch (IOException e) {
      throw new ParameterException(
          spec.commandLine(), "--markdown " + file + ": cannot read it: " + e);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "--markdown " + file + ": " + e.getMessage());
    }
  }

  private static String commit(Path root) {
    try {
      Process git =
          new ProcessBuilder("git", "describe", "--always", "--dirty")
              .directory(root.toFile())
              .redirectErrorStream(true)
              .start();
      String text = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      return git.waitFor() == 0 ? text : "unknown";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
