package dev.cellar.bench.server;

import dev.cellar.bench.embedded.MachineInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The machine the benchmark runs on: what is recorded about it, and where the harness itself runs.
 */
public final class Host {
  private Host() {}

  /**
   * The machine, the peers' versions, the commit measured and the load average, for the report;
   * read before the harness pins itself, which would shrink the core count it sees.
   */
  public static Map<String, Object> describe(Tools tools) {
    Map<String, Object> machine = new LinkedHashMap<>(MachineInfo.describe());
    machine.put(
        "redis_version",
        firstLine(List.of(tools.redisServer().toString(), "--version"), tools.repositoryRoot()));
    machine.put(
        "redis_benchmark_version",
        firstLine(List.of(tools.redisBenchmark().toString(), "--version"), tools.repositoryRoot()));
    machine.put(
        "cellar_commit",
        firstLine(List.of("git", "describe", "--always", "--dirty"), tools.repositoryRoot()));
    machine.put("load_average_start", loadAverage());
    return machine;
  }

  /**
   * The cores this process may run on, from {@code /proc/self/status}, as a {@code taskset -c}
   * list.
   */
  public static String allowedCpus() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("Cpus_allowed_list:")) {
        return line.substring(line.indexOf(':') + 1).trim();
      }
    }
    return "0-" + (Runtime.getRuntime().availableProcessors() - 1);
  }

  /** {@code /proc/loadavg} as it reads: three averages, runnable/total tasks, last pid. */
  public static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (IOException e) {
      return "unknown";
    }
  }

  /**
   * Moves every thread of this JVM to {@code cpu}, so the harness (idle while redis-benchmark runs,
   * but a JVM all the same) never takes time from the servers' core. Children inherit it, which is
   * why {@link Placement} names the cores of every command it starts.
   */
  public static void pinThisJvm(Tools tools, int cpu, PrintStream log) throws InterruptedException {
    try {
      Process taskset =
          new ProcessBuilder(
                  tools.taskset().toString(),
                  "-a",
                  "-p",
                  "-c",
                  Integer.toString(cpu),
                  Long.toString(ProcessHandle.current().pid()))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (taskset.waitFor() != 0) {
        log.println(
            "could not pin the harness to core "
                + cpu
                + " (taskset status "
                + taskset.exitValue()
                + "); continuing");
      }
    } catch (IOException e) {
      log.println("could not pin the harness to core " + cpu + ": " + e + "; continuing");
    }
  }

  private static String firstLine(List<String> command, Path dir) {
    try {
      Process p =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      p.waitFor();
      return p.exitValue() == 0 && !text.isEmpty()
          ? text.lines().findFirst().orElse("unknown")
          : "unknown";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
