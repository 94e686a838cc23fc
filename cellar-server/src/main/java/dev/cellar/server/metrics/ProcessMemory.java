package dev.cellar.server.metrics;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;

/** The process's memory as the OS and the JVM see it: resident set, Java heap. */
public final class ProcessMemory {
  private static final Path STATM = Path.of("/proc/self/statm");
  private static final long PAGE = 4096;

  private ProcessMemory() {}

  /** Resident set size from {@code /proc} (0 where there is none: not Linux). */
  public static long residentBytes() {
    try {
      String[] statm = Files.readString(STATM).trim().split("\\s+");
      return Long.parseLong(statm[1]) * PAGE;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /** The Java heap: used and committed bytes. */
  public static MemoryUsage heap() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
  }
}
