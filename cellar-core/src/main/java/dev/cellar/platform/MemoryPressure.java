package dev.cellar.platform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether the memory this process may use is nearly all taken: its memory cgroup's usage (page
 * cache included) at 90% of the cgroup's limit or more, or, with no limit on the way to the root,
 * the system's available memory (free plus what the kernel can reclaim) under 10% of its total.
 * Read from {@code /proc/self/cgroup}, the cgroup file system (v1 or v2) and {@code /proc/meminfo};
 * where none can be read, never tight.
 *
 * <p>A hint's trigger, read after each checkpoint: a few small file reads.
 */
public final class MemoryPressure {
  /** Usage over limit at which a cgroup counts as tight. */
  static final double CGROUP_TIGHT = 0.90;

  /** Available over total under which the system counts as tight. */
  static final double SYSTEM_TIGHT = 0.10;

  private static final long NO_LIMIT = 1L << 60;

  private final Path procSelfCgroup;
  private final Path cgroupRoot;
  private final Path meminfo;

  MemoryPressure(Path procSelfCgroup, Path cgroupRoot, Path meminfo) {
    this.procSelfCgroup = procSelfCgroup;
    this.cgroupRoot = cgroupRoot;
    this.meminfo = meminfo;
  }

  private static final MemoryPressure SYSTEM =
      new MemoryPressure(
          Path.of("/proc/self/cgroup"), Path.of("/sys/fs/cgroup"), Path.of("/proc/meminfo"));

  /** This process's memory, as above. */
  public static boolean tight() {
    return SYSTEM.isTight();
  }

  boolean isTight() {
    long[] cgroup = cgroupUsageAndLimit();
    if (cgroup != null) {
      return cgroup[0] >= CGROUP_TIGHT * cgroup[1];
    }
    long total = meminfoKb("MemTotal:");
    long available = meminfoKb("MemAvailable:");
    return total > 0 && available >= 0 && available < SYSTEM_TIGHT * total;
  }

  /**
   * Usage and limit of the nearest cgroup, from this process's own up, that has a memory limit;
   * null if none has (or they cannot be read).
   */
  long[] cgroupUsageAndLimit() {
    List<String> lines;
    try {
      lines = Files.readAllLines(procSelfCgroup);
    } catch (IOException | RuntimeException e) {
      return null;
    }
    for (String line : lines) {
      String[] f = line.split(":", 3);
      if (f.length != 3) {
        continue;
      }
      if (f[0].equals("0") && f[1].isEmpty()) {
        long[] v2 = walk(cgroupRoot, f[2], "memory.current", "memory.max");
        if (v2 != null) {
          return v2;
        }
      } else if (List.of(f[1].split(",")).contains("memory")) {
        long[] v1 =
            walk(
                cgroupRoot.resolve("memory"),
                f[2],
                "memory.usage_in_bytes",
                "memory.limit_in_bytes");
        if (v1 != null) {
          return v1;
        }
      }
    }
    return null;
  }

  /** From {@code root/path} up to {@code root}: the first directory whose limit is set. */
  private static long[] walk(Path root, String path, String usageFile, String limitFile) {
    Path dir = root.resolve(path.startsWith("/") ? path.substring(1) : path).normalize();
    while (dir != null && dir.startsWith(root)) {
      long limit = number(dir.resolve(limitFile));
      if (limit > 0 && limit < NO_LIMIT) {
        long usage = number(dir.resolve(usageFile));
        return usage < 0 ? null : new long[] {usage, limit};
      }
      dir = dir.equals(root) ? null : dir.getParent();
    }
    return null;
  }

  /** The number a cgroup file holds; -1 for "max", a missing file or anything else. */
  private static long number(Path file) {
    try {
      String text = Files.readString(file).trim();
      return text.matches("\\d+") ? Long.parseLong(text) : -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** A {@code /proc/meminfo} field in KiB; -1 if missing. */
  private long meminfoKb(String field) {
    try {
      for (String line : Files.readAllLines(meminfo)) {
        if (line.startsWith(field)) {
          String[] f = line.substring(field.length()).trim().split("\\s+");
          return Long.parseLong(f[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
