package dev.cellar.platform;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MemoryPressure} on files laid out as the kernel lays them out: cgroup v2 and v1, a limit
 * on the process's own group or on a parent, no limit anywhere (then {@code /proc/meminfo}), and
 * files that cannot be read (never tight).
 */
class MemoryPressureTest {
  @TempDir Path dir;

  private Path cgroupFile;
  private Path root;
  private Path meminfo;

  private MemoryPressure pressure(String selfCgroup) throws IOException {
    cgroupFile = Files.writeString(dir.resolve("self-cgroup"), selfCgroup);
    root = Files.createDirectories(dir.resolve("sys-fs-cgroup"));
    meminfo = dir.resolve("meminfo");
    return new MemoryPressure(cgroupFile, root, meminfo);
  }

  private void write(String relative, String content) throws IOException {
    Path file = root.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content + "\n");
  }

  private void meminfo(long totalKb, long availableKb) throws IOException {
    Files.writeString(
        meminfo,
        "MemTotal:       "
            + totalKb
            + " kB\nMemFree:          1000 kB\nMemAvailable:   "
            + availableKb
            + " kB\n");
  }

  @Test
  void cgroupV2LimitOnTheOwnGroup() throws IOException {
    MemoryPressure p = pressure("0::/bench/server\n");
    write("bench/server/memory.max", "1000");
    write("bench/server/memory.current", "950");
    assertArrayEquals(new long[] {950, 1000}, p.cgroupUsageAndLimit());
    assertTrue(p.isTight());
    write("bench/server/memory.current", "500");
    assertFalse(p.isTight());
  }

  @Test
  void cgroupV2LimitOnAParent() throws IOException {
    MemoryPressure p = pressure("0::/bench/server\n");
    write("bench/server/memory.max", "max");
    write("bench/server/memory.current", "10");
    write("bench/memory.max", "2000");
    write("bench/memory.current", "1900");
    assertArrayEquals(new long[] {1900, 2000}, p.cgroupUsageAndLimit());
    assertTrue(p.isTight());
  }

  @Test
  void cgroupV1MemoryController() throws IOException {
    MemoryPressure p = pressure("12:cpu,cpuacct:/x\n9:memory:/bench\n0::/\n");
    write("memory/bench/memory.limit_in_bytes", "4096");
    write("memory/bench/memory.usage_in_bytes", "4000");
    assertArrayEquals(new long[] {4000, 4096}, p.cgroupUsageAndLimit());
    assertTrue(p.isTight());
  }

  @Test
  void noLimitFallsBackToTheSystemsAvailableMemory() throws IOException {
    MemoryPressure p = pressure("9:memory:/\n");
    // v1 without a limit reports a huge number
    write("memory/memory.limit_in_bytes", "9223372036854771712");
    write("memory/memory.usage_in_bytes", "4000");
    assertNull(p.cgroupUsageAndLimit());
    meminfo(1_000_000, 50_000);
    assertTrue(p.isTight());
    meminfo(1_000_000, 500_000);
    assertFalse(p.isTight());
  }

  @Test
  void nothingReadableIsNeverTight() {
    MemoryPressure p =
        new MemoryPressure(dir.resolve("missing"), dir.resolve("none"), dir.resolve("no-meminfo"));
    assertNull(p.cgroupUsageAndLimit());
    assertFalse(p.isTight());
  }
}
