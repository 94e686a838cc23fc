package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Against what redis-benchmark 7.0.15 printed with --csv. */
class RedisBenchmarkCsvTest {

  /** {@code -c 50 -n 20000 -r 1000000 -d 60 -t set -P 16 --csv} against redis-server 7.0.15. */
  static final String SET_P16 =
      """
      "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
      "SET","294117.62","2.311","0.728","2.287","3.687","4.839","4.959"
      """;

  /**
   * {@code -t set,get -P 1} against Cellar, with the warning it prints (to stderr) about CONFIG in
   * the same text.
   */
  static final String SET_GET_P1_WITH_WARNING =
      """
      "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
      "SET","9881.42","4.507","0.112","3.319","12.591","19.055","129.343"
      "GET","13908.21","2.791","0.064","0.559","12.615","20.959","106.303"
      WARNING: Could not fetch server CONFIG
      """;

  @Test
  void readsEveryColumnOfARow() {
    List<RedisBenchmarkCsv.Row> rows = RedisBenchmarkCsv.parse(SET_P16);
    assertEquals(
        List.of(
            new RedisBenchmarkCsv.Row("SET", 294117.62, 2.311, 0.728, 2.287, 3.687, 4.839, 4.959)),
        rows);
  }

  @Test
  void readsOneRowPerTestAndSkipsWarnings() {
    List<RedisBenchmarkCsv.Row> rows = RedisBenchmarkCsv.parse(SET_GET_P1_WITH_WARNING);
    assertEquals(2, rows.size());
    assertEquals("GET", rows.get(1).test());
    assertEquals(13908.21, rows.get(1).opsPerSecond());
    assertEquals(0.559, rows.get(1).p50Ms());
    assertEquals(20.959, rows.get(1).p99Ms());
  }

  @Test
  void findsColumnsByNameNotPosition() {
    String reordered =
        """
        "test","p99_latency_ms","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","max_latency_ms","extra"
        "GET","4.0","1000.5","1.0","0.5","2.0","3.0","5.0","x"
        """;
    RedisBenchmarkCsv.Row row = RedisBenchmarkCsv.parse(reordered).getFirst();
    assertEquals(1000.5, row.opsPerSecond());
    assertEquals(4.0, row.p99Ms());
    assertEquals(2.0, row.p50Ms());
  }

  @Test
  void refusesOutputWithoutAHeader() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                RedisBenchmarkCsv.parse(
                    "Could not connect to Redis at 127.0.0.1:6379: Connection refused\n"));
    assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
  }

  @Test
  void refusesAHeaderWithoutPercentiles() {
    assertThrows(
        IllegalArgumentException.class,
        () -> RedisBenchmarkCsv.parse("\"test\",\"rps\"\n\"SET\",\"1.0\"\n"));
  }

  @Test
  void namesTheFieldThatIsNotANumber() {
    String bad = SET_P16.replace("\"2.287\"", "\"-nan\"");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> RedisBenchmarkCsv.parse(bad));
    assertTrue(e.getMessage().contains("p50_latency_ms is '-nan'"), e.getMessage());
  }
}
