package dev.cellar.bench.codecs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** One line saying what a benchmark ran on, for its report. */
final class Environment {
  private Environment() {}

  static String describe() {
    Runtime.Version version = Runtime.version();
    return "Java "
        + version
        + " ("
        + System.getProperty("java.vm.name")
        + "), "
        + Runtime.getRuntime().availableProcessors()
        + " CPUs available, "
        + System.getProperty("os.name")
        + " "
        + System.getProperty("os.arch")
        + cpuModel();
  }

  /** The CPU model from Linux's /proc/cpuinfo, or nothing elsewhere. */
  private static String cpuModel() {
    Path cpuinfo = Path.of("/proc/cpuinfo");
    if (!Files.isReadable(cpuinfo)) {
      return "";
    }
    try (Stream<String> lines = Files.lines(cpuinfo)) {
      return lines
          .filter(line -> line.startsWith("model name"))
          .findFirst()
          .map(line -> ", " + line.substring(line.indexOf(':') + 1).trim())
          .orElse("");
    } catch (IOException | RuntimeException unreadable) {
      return "";
    }
  }
}
