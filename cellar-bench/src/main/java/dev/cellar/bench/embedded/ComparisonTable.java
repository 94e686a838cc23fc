package dev.cellar.bench.embedded;

import dev.cellar.bench.stores.StoreKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The human-readable result: one row per metric, one column per store, and beside each peer's value
 * the ratio cellar / peer. For throughputs a ratio above 1 favours Cellar; for heap, GC pause, disk
 * and reopen time a ratio below 1 does. A store whose run failed shows what it measured before
 * failing, {@code failed} for the rest, and its failure below the table.
 */
final class ComparisonTable {
  private static final String NOT_APPLICABLE = "-";
  private static final String NOT_MEASURED = "failed";

  private ComparisonTable() {}

  static String render(Map<StoreKind, Measurements> results) {
    List<StoreKind> stores = new ArrayList<>(results.keySet());
    Measurements cellar = results.get(StoreKind.CELLAR);
    List<List<String>> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("metric"));
    stores.forEach(store -> header.add(store.id()));
    rows.add(header);
    for (Metric metric : Metric.values()) {
      List<String> row = new ArrayList<>(List.of(metric.jsonName()));
      Optional<Double> base = cellar == null ? Optional.empty() : cellar.get(metric);
      for (StoreKind store : stores) {
        Measurements measured = results.get(store);
        Optional<Double> value = measured.get(metric);
        String cell =
            value
                .map(v -> format(metric, v))
                .orElse(measured.has(metric) ? NOT_APPLICABLE : NOT_MEASURED);
        if (store != StoreKind.CELLAR && base.isPresent() && value.isPresent() && value.get() > 0) {
          cell += " (" + formatRatio(base.get() / value.get()) + ")";
        }
        row.add(cell);
      }
      rows.add(row);
    }
    StringBuilder out = new StringBuilder(layOut(rows));
    out.append(
        "(ratio) = cellar / peer: above 1 favours cellar for *_ops_per_s, below 1 for the rest.\n");
    results.forEach(
        (store, measured) ->
            measured
                .failure()
                .ifPresent(
                    why -> out.append(store.id()).append(" FAILED: ").append(why).append('\n')));
    return out.toString();
  }

  static String format(Metric metric, double value) {
    return switch (metric.unit()) {
      case OPS_PER_S ->
          value >= 1e6
              ? String.format(Locale.ROOT, "%.2f M/s", value / 1e6)
              : String.format(Locale.ROOT, "%.1f k/s", value / 1e3);
      case BYTES ->
          value >= 1L << 30
              ? String.format(Locale.ROOT, "%.2f GiB", value / (1L << 30))
              : String.format(Locale.ROOT, "%.1f MiB", value / (1L << 20));
      case MILLIS ->
          value >= 100
              ? String.format(Locale.ROOT, "%.0f ms", value)
              : String.format(Locale.ROOT, "%.1f ms", value);
    };
  }

  /** Two decimals, or two significant digits for small ratios, which would otherwise read 0.00. */
  static String formatRatio(double ratio) {
    return ratio >= 0.095
        ? String.format(Locale.ROOT, "%.2fx", ratio)
        : String.format(Locale.ROOT, "%.2gx", ratio);
  }

  private static String layOut(List<List<String>> rows) {
    int columns = rows.getFirst().size();
    int[] widths = new int[columns];
    for (List<String> row : rows) {
      for (int c = 0; c < columns; c++) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : rows) {
      for (int c = 0; c < columns; c++) {
        String cell = row.get(c);
        // Metric names read best left-aligned, numbers right-aligned.
        out.append(c == 0 ? pad(cell, widths[c], false) : "  " + pad(cell, widths[c], true));
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static String pad(String cell, int width, boolean right) {
    String space = " ".repeat(width - cell.length());
    return right ? space + cell : cell + space;
  }
}
