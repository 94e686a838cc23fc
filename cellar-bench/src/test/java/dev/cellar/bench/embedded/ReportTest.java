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
        json.contains("{\"store\": \"cellar\", \"metric\": \"get_hit_ops_per_s\", \"value\": 2000000.0}"),
        json);
    assertTrue(
        json.contains("{\"store\": \"hashmap\", \"metric\": \"reopen_ms\", \"value\": null}"), json);
    assertEquals(4, json.split("\"store\":").length - 1);
  }

  @Test
  void tableShowsCellarOverPeerRatios() {
    String table = ComparisonTable.render(sample(), List.of(StoreKind.LMDB));
    assertTrue(table.contains("4.00 M/s (0.50x)"), table);
    assertTrue(table.contains("failed"), table);
    String reopenRow = table.lines().filter(l -> l.startsWith("reopen_ms")).findFirst().orElseThrow();
    assertTrue(reopenRow.contains("50.0 ms") && reopenRow.contains(" - "), reopenRow);
  }
}
