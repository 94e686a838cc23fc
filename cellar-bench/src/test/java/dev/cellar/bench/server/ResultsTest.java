package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Medians over rounds, the targets read from them, and the reports. */
class ResultsTest {

  private static Results.Run run(ServerKind server, int round, double opsPerSecond, double p99) {
    Workload workload = new Workload("set", 16, 1000, 50, 1000, 60);
    return new Results.Run(
        "pinned",
        Durability.NO,
        server,
        round,
        workload,
        new RedisBenchmarkCsv.Row("SET", opsPerSecond, 1, 0.1, 1, 2, p99, 9),
        0.99,
        server == ServerKind.REDIS ? 0 : 0.01);
  }

  private static Results threeRounds() {
    Results results = new Results();
    results.add(run(ServerKind.REDIS, 1, 100_000, 3));
    results.add(run(ServerKind.REDIS, 2, 300_000, 1));
    results.add(run(ServerKind.REDIS, 3, 200_000, 2));
    results.add(run(ServerKind.CELLAR, 1, 280_000, 5));
    results.add(run(ServerKind.CELLAR, 2, 250_000, 4));
    results.add(run(ServerKind.CELLAR, 3, 900_000, 6));
    return results;
  }

  @Test
  void eachFigureIsTheMedianOfItsOwnSamples() {
    Results.Comparison c = threeRounds().compare("pinned", Durability.NO, "set", 16).orElseThrow();
    assertEquals(200_000, c.redis().opsPerSecond());
    assertEquals(2, c.redis().p99Ms());
    assertEquals(280_000, c.cellar().opsPerSecond());
    assertEquals(1.4, c.ratio(), 1e-9);
    assertEquals(3, c.cellar().samples());
    assertEquals(2.5, Results.median(4, 1, 2, 3));
  }

  @Test
  void throughputTargetComparesMedians() {
    Results results = threeRounds();
    assertTrue(
        new Target.Throughput("pinned", Durability.NO, "set", 16, 1.3).evaluate(results).met());
    assertFalse(
        new Target.Throughput("pinned", Durability.NO, "set", 16, 1.5).evaluate(results).met());
    Target.Verdict unmeasured =
        new Target.Throughput("pinned", Durability.ALWAYS, "set", 1, 1.5).evaluate(results);
    assertNull(unmeasured.met());
    assertEquals("not measured", unmeasured.measured());
  }

  @Test
  void durableDepthOneTargetsNameTheClientsCeiling() {
    Results results = new Results();
    Workload depthOne = new Workload("set", 1, 1000, 50, 1000, 60);
    for (Durability durability : List.of(Durability.NO, Durability.ALWAYS)) {
      for (ServerKind server : ServerKind.values()) {
        double ops =
            durability == Durability.NO ? 80_000 : server == ServerKind.REDIS ? 40_000 : 70_000;
        results.add(
            new Results.Run(
                "pinned",
                durability,
                server,
                1,
                depthOne,
                new RedisBenchmarkCsv.Row("SET", ops, 1, 0.1, 1, 2, 3, 9),
                0.99,
                0));
      }
    }
    Target.Verdict always =
        new Target.Throughput("pinned", Durability.ALWAYS, "set", 1, 1.5).evaluate(results);
    assertTrue(always.met());
    assertTrue(
        always
            .measured()
            .endsWith(
                "= 1.75x (the client's ceiling, Redis without persistence in this run: "
                    + Format.rate(80_000)
                    + ", at most 2.00x)"),
        always.measured());
    Target.Verdict plain =
        new Target.Throughput("pinned", Durability.NO, "set", 1, 1.0).evaluate(results);
    assertFalse(plain.measured().contains("ceiling"), plain.measured());
  }

  @Test
  void syscallTargetComparesCallsPerRequest() {
    Results results = new Results();
    Workload traced = new Workload("get", 1, 1000, 50, 1000, 60);
    results.add(
        new Results.SyscallRun(
            ServerKind.REDIS,
            traced,
            new StraceSummary(Map.of("read", 1000L, "write", 1000L), 2100)));
    results.add(
        new Results.SyscallRun(
            ServerKind.CELLAR,
            traced,
            new StraceSummary(Map.of("recvfrom", 1000L, "sendto", 1000L), 2050)));
    Target.Verdict v = new Target.Syscalls("get", 1).evaluate(results);
    assertTrue(v.met());
    assertEquals("2.050 vs 2.100", v.measured());
  }

  @Test
  void memoryTargetUsesRedisUsedMemoryRssAndCellarVmRss() {
    Results results = new Results();
    results.add(
        new Results.MemoryRun(ServerKind.REDIS, 1, new ResidentMemory(110, 100, 10, 0), 105L, 80L));
    results.add(
        new Results.MemoryRun(
            ServerKind.CELLAR, 1, new ResidentMemory(104, 50, 54, 0), null, null));
    assertTrue(new Target.Memory().evaluate(results).met());
  }

  @Test
  void readsResidentMemoryFromProcStatus() {
    String status =
        "Name:\tjava\nVmPeak:\t 1000 kB\nVmRSS:\t  149276 kB\nRssAnon:\t  116000 kB\nRssFile:\t   33276 kB\nRssShmem:\t       0 kB\n";
    assertEquals(
        new ResidentMemory(149276L * 1024, 116000L * 1024, 33276L * 1024, 0),
        ResidentMemory.parse(status));
  }

  @Test
  void readsInfoFields() {
    String info =
        "# Memory\r\nused_memory:9971000\r\nused_memory_human:9.51M\r\nused_memory_rss:22159360\r\n";
    assertEquals(22159360L, SessionRunner.infoField(info, "used_memory_rss"));
    assertEquals(9971000L, SessionRunner.infoField(info, "used_memory"));
    assertNull(SessionRunner.infoField(info, "used_memory_peak"));
  }

  @Test
  void reportsListFailedTargetsAndKeepEveryRun() {
    Results results = threeRounds();
    results.fail("round 2, pinned, always, cellar: boom");
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
            List.of(1, 16),
            false,
            false,
            0,
            Settings.Sustained.none());
    List<Target.Verdict> verdicts =
        List.of(
            new Target.Throughput("pinned", Durability.NO, "set", 16, 1.5).evaluate(results),
            new Target.Throughput("pinned", Durability.ALWAYS, "set", 1, 1.5).evaluate(results));
    String md =
        MarkdownReport.render(
            "Heading.", settings, List.of(Placement.pinned(0, 1)), results, verdicts);
    assertTrue(
        md.contains(
            "| no | SET | 16 | 200,000 | 1.000 / 2.000 | 280,000 | 1.000 / 5.000 | **1.40x** | 99% / 99% |"),
        md);
    assertTrue(
        md.contains("**1 of 1 measured targets failed**: SET no P16, pinned (1 not measured)."),
        md);
    assertTrue(md.contains("- round 2, pinned, always, cellar: boom"), md);
    String json = JsonReport.render(Map.of("cores", 2), settings.describe(), results, verdicts);
    assertEquals(6, json.split("\"ops_per_s\"").length - 1, json);
    assertTrue(json.contains("\"met\": false"), json);
    assertTrue(json.contains("\"met\": null"), json);
  }

  @Test
  void coldRowComparesTheFirstRequestsWithTheSameServersWarmRun() {
    Results results = new Results();
    Workload p1 = new Workload("set", 1, 1000, 50, 1000, 60);
    Workload cold = new Workload("set", 1, 500, 50, 1000, 60);
    double[] colds = {40_000, 60_000, 50_000};
    for (int round = 1; round <= 3; round++) {
      results.add(
          new Results.Run(
              "pinned",
              Durability.NO,
              ServerKind.CELLAR,
              round,
              p1,
              new RedisBenchmarkCsv.Row("SET", 80_000, 1, 0.1, 1, 2, 3, 9),
              0.99,
              0.01));
      results.add(
          new Results.ColdRun(
              "pinned",
              Durability.NO,
              ServerKind.CELLAR,
              round,
              0.5 + round / 10.0,
              cold,
              new RedisBenchmarkCsv.Row("SET", colds[round - 1], 1, 0.1, 1, 2, 3, 9),
              0.25));
    }
    Settings settings =
        new Settings(
            1000,
            60,
            50,
            List.of("set"),
            List.of(1),
            1000,
            1000,
            0,
            1,
            3,
            List.of(Durability.NO),
            false,
            1000,
            List.of(1),
            false,
            false,
            500,
            Settings.Sustained.none());
    String md =
        MarkdownReport.render(
            "Heading.", settings, List.of(Placement.pinned(0, 1)), results, List.of());
    assertTrue(md.contains("the first 500 SETs at pipeline 1"), md);
    assertTrue(
        md.contains("| pinned | no | Cellar | 0.70 s | 50,000 | 80,000 | **0.63x** | 25% |"), md);
    String json = JsonReport.render(Map.of("cores", 2), settings.describe(), results, List.of());
    assertTrue(json.contains("\"cold_requests\": 500"), json);
    assertEquals(3, json.split("\"ready_s\"").length - 1, json);
  }
}
