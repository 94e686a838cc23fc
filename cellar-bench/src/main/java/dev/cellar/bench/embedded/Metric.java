package dev.cellar.bench.embedded;

/**
 * What the embedded benchmark measures, under the names its JSON output uses (other tooling reads
 * them: do not rename).
 */
public enum Metric {
  LOAD("load_ops_per_s", Unit.OPS_PER_S),
  GET_HIT("get_hit_ops_per_s", Unit.OPS_PER_S),
  GET_MISS("get_miss_ops_per_s", Unit.OPS_PER_S),
  OVERWRITE("overwrite_ops_per_s", Unit.OPS_PER_S),
  GET_HIT_2T("get_hit_2t_ops_per_s", Unit.OPS_PER_S),
  /** Keys a second read in batches of {@link WorkloadDriver#BATCH} random existing keys. */
  GET_HIT_BATCH16("get_hit_batch16_ops_per_s", Unit.OPS_PER_S),
  /** Keys a second loaded into a fresh store in batches of {@link WorkloadDriver#BATCH}. */
  LOAD_BATCH16("load_batch16_ops_per_s", Unit.OPS_PER_S),
  HEAP_USED("heap_used_bytes", Unit.BYTES),
  FULL_GC("full_gc_ms", Unit.MILLIS),
  /** Allocated bytes of the store's directory right after the load, store still open. */
  DISK("disk_bytes", Unit.BYTES),
  REOPEN("reopen_ms", Unit.MILLIS),
  /** Allocated bytes after the overwrites, store closed (not a contract metric). */
  DISK_FINAL("disk_bytes_final", Unit.BYTES);

  /** How a value is shown; throughputs are better higher, the rest better lower. */
  public enum Unit {
    OPS_PER_S,
    BYTES,
    MILLIS
  }

  private final String jsonName;
  private final Unit unit;

  Metric(String jsonName, Unit unit) {
    this.jsonName = jsonName;
    this.unit = unit;
  }

  public String jsonName() {
    return jsonName;
  }

  public Unit unit() {
    return unit;
  }

  public boolean higherIsBetter() {
    return unit == Unit.OPS_PER_S;
  }

  public static Metric byJsonName(String name) {
    for (Metric metric : values()) {
      if (metric.jsonName.equals(name)) {
        return metric;
      }
    }
    throw new IllegalArgumentException("unknown metric '" + name + "'");
  }
}
