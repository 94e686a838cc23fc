package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sustained-overwrite row: its /proc readings, its arithmetic, its targets and reports. */
class SustainedRowTest {
  // A real /proc/PID/stat line of a shell: utime 3, stime 13, cutime 8631, cstime 516.
  private static final String SHELL_STAT =
      "24863 (bash) S 24860 24863 24863 0 -1 4194560 13005 651989 0 9 3 13 8631 516 20 0 1 0"
          + " 881186 5357568 993 18446744073709551615 94726327746560 94726328535965 0 0 0 0 65536 4"
          + " 1132560123 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0";

  private static final String PROC_IO =
      "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 0\nwrite_bytes: 123456789\n"
          + "cancelled_write_bytes: 4096\n";

  @TempDir Path dir;

  @Test
  void readsCpuOfTheProcessAndItsReapedChildren() {
    assertArrayEquals(new long[] {16, 0, 9147}, ProcessAccounting.statTicks(SHELL_STAT));
    String tricky = SHELL_STAT.replace("(bash)", "(a) (b c)");
    assertArrayEquals(new long[] {16, 0, 9147}, ProcessAccounting.statTicks(tricky));
    assertEquals("a) (b c", ProcessAccounting.comm(tricky));
  }

  @Test
  void readsWriteBytesAndRefusesAFileWithoutThem() {
    assertEquals(new ProcessAccounting.Io(123456789, 4096), ProcessAccounting.Io.parse(PROC_IO));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ProcessAccounting.Io.parse("rchar: 1\nwchar: 2\n"));
    assertTrue(e.getMessage().contains("CONFIG_TASK_IO_ACCOUNTING"), e.getMessage());
  }

  @Test
  void namesThreadRolesOfBothServers() {
    assertEquals(ProcessAccounting.EVENT_LOOP, ProcessAccounting.role("cellar-loop-0"));
    assertEquals(ProcessAccounting.EVENT_LOOP, ProcessAccounting.role("redis-server"));
    assertEquals(ProcessAccounting.COMPACTION, ProcessAccounting.role("cellar-maintena"));
    assertEquals(ProcessAccounting.COMPACTION, ProcessAccounting.role("cellar-idle-com"));
    assertEquals(ProcessAccounting.FSYNC, ProcessAccounting.role("cellar-fsync"));
    assertEquals(ProcessAccounting.FSYNC, ProcessAccounting.role("cellar-flusher-"));
    assertEquals(ProcessAccounting.FSYNC, ProcessAccounting.role("bio_aof"));
    assertEquals(ProcessAccounting.PREFAULT, ProcessAccounting.role("cellar-prefault"));
    assertEquals(ProcessAccounting.GC, ProcessAccounting.role("VM Thread"));
    assertEquals(ProcessAccounting.JIT, ProcessAccounting.role("C2 CompilerThre"));
    assertEquals(ProcessAccounting.OTHER, ProcessAccounting.role("Signal Dispatch"));
  }

  @Test
  void readsThisProcessAndCountsWhatItWrites() throws Exception {
    long pid = ProcessHandle.current().pid();
    ProcessAccounting.Snapshot before = ProcessAccounting.read(pid);
    Path file = dir.resolve("written");
    Files.write(file, new byte[1 << 20]);
    ProcessAccounting.Snapshot delta = ProcessAccounting.read(pid).minus(before);
    // write_bytes is charged when the page cache pages are dirtied, before any write-back.
    assertTrue(delta.writeBytes() >= 1 << 20, "write_bytes grew by " + delta.writeBytes());
    assertTrue(delta.cpuTicks() >= 0);
  }

  @Test
  void differenceOfSnapshotsKeepsEveryRole() {
    ProcessAccounting.Snapshot before =
        new ProcessAccounting.Snapshot(100, 1000, 10, Map.of("event_loop", 60L, "jit", 40L));
    ProcessAccounting.Snapshot after =
        new ProcessAccounting.Snapshot(
            350, 9000, 10, Map.of("event_loop", 260L, "jit", 40L, "compaction", 50L));
    ProcessAccounting.Snapshot delta = after.minus(before);
    assertEquals(250, delta.cpuTicks());
    assertEquals(8000, delta.writeBytes());
    assertEquals(0, delta.cancelledWriteBytes());
    assertEquals(200, delta.ticksOf("event_loop"));
    assertEquals(50, delta.ticksOf("compaction"));
    assertEquals(0, delta.ticksOf("jit"));
    assertEquals(0, delta.ticksOf("gc"));
  }

  /** 1,000 SETs of 16 + 60 bytes: 76,000 bytes acknowledged. */
  private static Results.SustainedRun run(
      Durability durability, ServerKind server, int round, double ops, long ticks, long written) {
    return new Results.SustainedRun(
        durability,
        server,
        round,
        new Workload("set", 16, 1000, 50, 1000, 60),
        new RedisBenchmarkCsv.Row("SET", ops, 1, 0.1, 1, 2, 3, 9),
        0.5,
        new ProcessAccounting.Snapshot(
            ticks, written, 0, Map.of("event_loop", ticks * 3 / 4, "compaction", ticks / 4)),
        0.01,
        5 << 20);
  }

  @Test
  void writeAmplificationIsBytesWrittenOverKeyAndValueBytesAcknowledged() {
    Results.SustainedRun r = run(Durability.NO, ServerKind.CELLAR, 1, 2000, 40, 152_000);
    assertEquals(76_000, r.acknowledgedBytes());
    assertEquals(2.0, r.writeAmplification(), 1e-12);
    // 40 ticks = 0.4 s of CPU over 1,000 requests; 0.4 s over 0.5 s of wall time.
    assertEquals(400, r.cpuMicrosPerRequest(), 1e-9);
    assertEquals(300, r.cpuMicrosPerRequest(ProcessAccounting.EVENT_LOOP), 1e-9);
    assertEquals(100, r.cpuMicrosPerRequest(ProcessAccounting.COMPACTION), 1e-9);
    assertEquals(0, r.cpuMicrosPerRequest(ProcessAccounting.GC), 1e-9);
    assertEquals(0.8, r.serverCpuShare(), 1e-12);
  }

  private static Results threeRounds() {
    Results results = new Results();
    double[] redisOps = {100_000, 300_000, 200_000};
    double[] cellarOps = {230_000, 250_000, 900_000};
    long[] cellarWritten = {400_000, 152_000, 228_000};
    for (int round = 1; round <= 3; round++) {
      results.add(run(Durability.NO, ServerKind.REDIS, round, redisOps[round - 1], 30, 0));
      results.add(
          run(
              Durability.NO,
              ServerKind.CELLAR,
              round,
              cellarOps[round - 1],
              20 + round,
              cellarWritten[round - 1]));
    }
    return results;
  }

  @Test
  void targetsReadMediansOfTheirOwnSamples() {
    Results results = threeRounds();
    Results.SustainedComparison c = results.compareSustained(Durability.NO).orElseThrow();
    assertEquals(200_000, c.redis().opsPerSecond());
    assertEquals(250_000, c.cellar().opsPerSecond());
    assertEquals(1.25, c.ratio(), 1e-12);
    assertEquals(220, c.cellar().cpuMicrosPerRequest(), 1e-9);
    assertEquals(3.0, c.cellar().writeAmplification(), 1e-12);
    assertEquals(3, c.cellar().samples());

    Target.Verdict faster = new Target.SustainedThroughput(Durability.NO, 1.1).evaluate(results);
    assertTrue(faster.met());
    assertEquals(
        "250,000 vs 200,000 = 1.25x (server CPU 220.00 vs 300.00 µs a request: 1.36x)",
        faster.measured());
    assertFalse(new Target.SustainedThroughput(Durability.NO, 1.3).evaluate(results).met());
    assertNull(new Target.SustainedThroughput(Durability.EVERYSEC, 2.0).evaluate(results).met());

    Target.Verdict amplification =
        new Target.WriteAmplification(Durability.NO, 3.0).evaluate(results);
    assertTrue(amplification.met(), "3.0 is within a limit of 3");
    assertEquals("3.00 (Redis 0.00)", amplification.measured());
    assertFalse(new Target.WriteAmplification(Durability.NO, 2.9).evaluate(results).met());
  }

  @Test
  void reportsGiveTheRowAndEveryRun() {
    Results results = threeRounds();
    Settings settings =
        new Settings(
            1000,
            60,
            50,
            List.of("set"),
            List.of(16),
            1000,
            1000,
            0,
            1,
            3,
            List.of(Durability.NO),
            false,
            1000,
            List.of(16),
            false,
            false,
            0,
            new Settings.Sustained(1000, 500, List.of(Durability.NO, Durability.EVERYSEC), true));
    String md =
        MarkdownReport.render(
            "Heading.", settings, List.of(Placement.pinned(0, 1)), results, List.of());
    assertTrue(
        md.contains(
            "| no | 200,000 | 250,000 | **1.25x** | 300.00 / 220.00 | 1.36x"
                + " | 160.00 / 50.00 / 0.00 / 0.00 / 0.00 / 0.00 / 0.00 | 0.00 / 3.00 | 5.0 MiB / 5.0 MiB |"),
        md);
    assertFalse(md.contains("| everysec |"), "a mode with no runs has no line: " + md);
    assertFalse(md.contains("**Pinned**"), "--sustained-only leaves the other rows out: " + md);
    String json = JsonReport.render(Map.of("cores", 2), settings.describe(), results, List.of());
    assertEquals(6, json.split("\"write_amplification\"").length - 1, json);
    assertTrue(json.contains("\"acknowledged_bytes\": 76000"), json);
    assertTrue(json.contains("\"write_bytes\": 228000"), json);
    assertTrue(json.contains("\"sustained_modes\": [\"no\", \"everysec\"]"), json);
    assertTrue(
        json.contains(
            "\"cpu_us_per_request_by_thread\": {\"event_loop\": 160.0, \"compaction\": 50.0,"),
        json);
  }
}
