package dev.cellar.bench.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.bench.stores.StoreKind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportTest {

  private static Map<StoreKind, Measurements> sample() {
    Measurements cellar = new Measurements();
    cellar.record(Metric.GET_HIT, 2_000_000);
    cellar.record(Metric.REOPEN, 50);
    Measurements hashmap = new Measurements();
    hashmap.record(Metric.GET_HIT, 4_000_000);
    hashmap.recordNotApplicable(Metric.REOPEN);
    Map<StoreKind, Measurements> results = new LinkedHashMap<>();
    results.put(StoreKind.CELLAR, cellar);
    results.put(StoreKind.HASHMAP, hashmap);
    return results;
  }

  @Test
  void jsonHasMachineAndOneResultPerStoreAndMetric() {
    Map<String, Object> machine = new LinkedHashMap<>();
    machine.put("cores", 2);
    machine.put("os", "Linux \"x\"");
    String json = JsonReport.render(machine, Map.of("stores", List.of("cellar")), sample());
    assertTrue(json.contains("\"machine\": {\"cores\": 2, \"os\": \"Linux \\\"x\\\"\"}"), json);
    assertTrue(json.contains("\"config\": {\"stores\": [\"cellar\"]}"), json);
    assertTrue(
        json.contains(
            "{\"store\": \"cellar\", \"metric\": \"get_hit_ops_per_s\", \"value\": 2000000.0}"),
        json);
    assertTrue(
        json.contains("{\"store\": \"hashmap\", \"metric\": \"reopen_ms\", \"value\": null}"),
        json);
    assertEquals(4, json.split("\"store\":").length - 1);
  }

  @Test
  void failedStoreKeepsItsPartialResultsAndIsListedInJson() {
    Map<StoreKind, Measurements> results = sample();
    Measurements lmdb = new Measurements();
    lmdb.record(Metric.GET_HIT, 1_000_000);
    lmdb.fail("java.io.IOException: boom\n  at somewhere");
    results.put(StoreKind.LMDB, lmdb);

    String json = JsonReport.render(Map.of(), Map.of(), results);
    assertTrue(
        json.contains(
            "\"failures\": [\n    {\"store\": \"lmdb\", \"error\": \"java.io.IOException: boom at somewhere\"}"),
        json);
    assertTrue(
        json.contains(
            "{\"store\": \"lmdb\", \"metric\": \"get_hit_ops_per_s\", \"value\": 1000000.0}"),
        json);

    String table = ComparisonTable.render(results);
    assertTrue(table.contains("1.00 M/s (2.00x)"), table);
    assertTrue(table.contains("lmdb FAILED: java.io.IOException: boom at somewhere"), table);
  }

  @Test
  void jsonHasNoFailuresListWhenAllSucceeded() {
    assertTrue(!JsonReport.render(Map.of(), Map.of(), sample()).contains("failures"));
  }

  @Test
  void smallRatiosKeepTwoSignificantDigits() {
    assertEquals("0.50x", ComparisonTable.formatRatio(0.5));
    assertEquals("12.35x", ComparisonTable.formatRatio(12.345));
    assertEquals("0.0021x", ComparisonTable.formatRatio(0.00205));
  }

  @Test
  void tableShowsCellarOverPeerRatios() {
    String table = ComparisonTable.render(sample());
    assertTrue(table.contains("4.00 M/s (0.50x)"), table);
    String reopenRow =
        table.lines().filter(l -> l.startsWith("reopen_ms")).findFirst().orElseThrow();
    assertTrue(reopenRow.contains("50.0 ms") && reopenRow.endsWith(" -"), reopenRow);
  }
}
