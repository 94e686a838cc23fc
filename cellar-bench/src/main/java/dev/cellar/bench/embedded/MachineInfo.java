package dev.cellar.bench.embedded;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/** What the numbers were measured on, for the report (also the server benchmark's). */
public final class MachineInfo {
  private MachineInfo() {}

  /** Name-value pairs in a stable order; values are strings or numbers. */
  public static Map<String, Object> describe() {
    Map<String, Object> machine = new LinkedHashMap<>();
    machine.put("cores", Runtime.getRuntime().availableProcessors());
    machine.put("cpu", cpuModel());
    machine.put("memory_bytes", totalMemoryBytes());
    machine.put(
        "os",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
    machine.put(
        "jdk",
        System.getProperty("java.vm.vendor")
            + " "
            + System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version"));
    machine.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    return machine;
  }

  private static long totalMemoryBytes() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getTotalMemorySize();
    }
    return -1;
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(line -> line.startsWith("model name"))
          .map(line -> line.substring(line.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown");
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
