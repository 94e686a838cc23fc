package dev.cellar.bench.jmh;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The Markdown table of a {@link MemoryAccessBenchmark} run: one table a size, a row a holder, a
 * column a loop, each cell the holder's speed as a ratio to the array's in the same run (above 1 is
 * faster than the array), then its passes a second, both from the median time of one pass. A ratio
 * needs both of its runs; a cell whose array run is missing (filtered out, or failed) shows the
 * passes a second alone.
 */
final class MemoryAccessTable {
  /** Loops in column order, as the benchmark's method names begin. */
  static final List<String> LOOPS = List.of("sumLongs", "fillLongs", "randomLongs", "sumBytes");

  private static final Map<String, String> LOOP_HEADINGS =
      Map.of(
          "sumLongs", "sequential read (longs)",
          "fillLongs", "sequential write (longs)",
          "randomLongs", "random read (longs)",
          "sumBytes", "byte by byte (read)");

  /** Rows in order: holder (the method name's end) and kind (the state's {@code kind} param). */
  private static final List<String> ROWS =
      List.of(
          "array/",
          "buffer/heap",
          "buffer/direct",
          "segment/confined",
          "segment/shared",
          "segment/global",
          "segment/ofArray",
          "segment/mapped",
          "segmentUnaligned/confined",
          "segmentUnaligned/shared",
          "segmentUnaligned/global",
          "segmentUnaligned/ofArray",
          "segmentUnaligned/mapped");

  private static final Map<String, String> ROW_LABELS = rowLabels();

  /**
   * One JMH result.
   *
   * @param method the benchmark method's simple name, {@code loop_holder}
   * @param kind the {@code kind} parameter, or "" for the arrays, which have none
   * @param size bytes
   * @param medianNanos the median time of one operation (a whole pass) in nanoseconds
   */
  record Result(String method, String kind, long size, double medianNanos) {
    double opsPerSecond() {
      return 1e9 / medianNanos;
    }

    String loop() {
      return method.substring(0, separator());
    }

    String row() {
      return method.substring(separator() + 1) + "/" + kind;
    }

    private int separator() {
      int at = method.indexOf('_');
      if (at <= 0) {
        throw new IllegalArgumentException(
            "benchmark method " + method + " is not named loop_holder, as sumLongs_array is");
      }
      return at;
    }
  }

  private MemoryAccessTable() {}

  static String markdown(List<Result> results) {
    StringBuilder out = new StringBuilder();
    for (long size : new TreeSet<>(results.stream().map(Result::size).toList())) {
      List<Result> ofSize = results.stream().filter(r -> r.size() == size).toList();
      out.append("\n**")
          .append(sizeText(size))
          .append(
              "**: ratio to the array, then ops/s (whole passes a second, from the median pass)\n\n");
      out.append("| holder |");
      for (String loop : LOOPS) {
        out.append(' ').append(LOOP_HEADINGS.get(loop)).append(" |");
      }
      out.append("\n|---|").append("---:|".repeat(LOOPS.size())).append('\n');
      for (String row : orderedRows(ofSize)) {
        out.append("| ").append(ROW_LABELS.getOrDefault(row, row)).append(" |");
        for (String loop : LOOPS) {
          out.append(' ').append(cell(ofSize, row, loop)).append(" |");
        }
        out.append('\n');
      }
    }
    return out.toString().stripLeading();
  }

  private static List<String> orderedRows(List<Result> results) {
    List<String> rows = new ArrayList<>();
    for (String row : ROWS) {
      if (results.stream().anyMatch(r -> r.row().equals(row))) {
        rows.add(row);
      }
    }
    // A kind this class does not know yet still shows, after the known ones.
    results.stream().map(Result::row).filter(r -> !rows.contains(r)).distinct().forEach(rows::add);
    return rows;
  }

  private static String cell(List<Result> results, String row, String loop) {
    Result result = find(results, row, loop);
    if (result == null) {
      return "—";
    }
    String throughput = rate(result.opsPerSecond());
    Result array = find(results, "array/", loop);
    if (array == null) {
      return throughput;
    }
    double ratio = result.opsPerSecond() / array.opsPerSecond();
    return String.format(Locale.ROOT, "**%.2fx** (%s)", ratio, throughput);
  }

  private static Result find(List<Result> results, String row, String loop) {
    return results.stream()
        .filter(r -> r.row().equals(row) && r.loop().equals(loop))
        .findFirst()
        .orElse(null);
  }

  static String rate(double opsPerSecond) {
    if (opsPerSecond >= 1e6) {
      return String.format(Locale.ROOT, "%.2fM", opsPerSecond / 1e6);
    }
    if (opsPerSecond >= 1e3) {
      return String.format(Locale.ROOT, "%.1fk", opsPerSecond / 1e3);
    }
    // A random pass over 256 MiB takes seconds: 0.36 and 0.44 must not both read 0.4.
    return String.format(Locale.ROOT, opsPerSecond >= 10 ? "%.1f" : "%.2f", opsPerSecond);
  }

  static String sizeText(long bytes) {
    if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
      return (bytes >> 10) + " KiB";
    }
    return bytes + " bytes";
  }

  private static Map<String, String> rowLabels() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("array/", "`long[]` / `byte[]` (baseline)");
    labels.put("buffer/heap", "heap `ByteBuffer`");
    labels.put("buffer/direct", "direct `ByteBuffer`");
    for (String kind : List.of("confined", "shared", "global", "ofArray", "mapped")) {
      String source =
          switch (kind) {
            case "ofArray" -> "`MemorySegment.ofArray(long[])`";
            case "mapped" -> "segment, mapped file (shared arena)";
            default ->
                "segment, `Arena." + ("global".equals(kind) ? "global" : "of" + cap(kind)) + "()`";
          };
      labels.put("segment/" + kind, source + ", `JAVA_LONG`");
      labels.put("segmentUnaligned/" + kind, source + ", `JAVA_LONG_UNALIGNED`");
    }
    return labels;
  }

  private static String cap(String word) {
    return Character.toUpperCase(word.charAt(0)) + word.substring(1);
  }
}
