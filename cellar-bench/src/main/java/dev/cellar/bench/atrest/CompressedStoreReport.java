package dev.cellar.bench.atrest;

import dev.cellar.Compression;
import dev.cellar.bench.atrest.CompressedStoreRun.Result;
import dev.cellar.bench.atrest.CompressedStoreRun.Sample;
import dev.cellar.bench.atrest.CompressedStoreRun.Setting;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The compressed-store part's tables and JSON: each store's disk use, its reads in memory and under
 * the memory limit (medians over the rounds), and the three targets, each compressed store against
 * the uncompressed one of the same run.
 */
final class CompressedStoreReport {
  static final double DISK_TARGET = 0.4;
  static final double IN_MEMORY_TARGET = 0.5;
  static final double MEMORY_LIMIT_TARGET = 1.5;
  static final List<String> OPS = List.of("get", "getall");
  static final List<Compression> COMPRESSED = List.of(Compression.LZ4, Compression.ZSTD);

  private CompressedStoreReport() {}

  /** One store's medians for one operation in one setting. */
  record Reads(double opsPerSecond, double cpuNanosPerOp, double majorFaultsPerOp) {}

  /** The medians of {@code codec}'s samples, or null where the setting did not run. */
  static Reads reads(Result r, Setting setting, String op, Compression codec) {
    List<Sample> samples =
        r.samples().stream().filter(s -> s.setting() == setting && s.codec() == codec).toList();
    if (samples.isEmpty()) {
      return null;
    }
    return new Reads(
        median(samples, s -> s.opsPerSecond(op)),
        median(samples, s -> s.cpuNanosPerOp(op)),
        median(samples, s -> s.majorFaultsPerOp(op)));
  }

  static double diskRatio(Result r, Compression codec) {
    return (double) r.stores().get(codec).segmentBytes()
        / r.stores().get(Compression.NONE).segmentBytes();
  }

  /** Compressed GETs per second over uncompressed, in {@code setting}; NaN if it did not run. */
  static double throughputRatio(Result r, Setting setting, String op, Compression codec) {
    Reads c = reads(r, setting, op, codec);
    Reads none = reads(r, setting, op, Compression.NONE);
    return c == null || none == null ? Double.NaN : c.opsPerSecond() / none.opsPerSecond();
  }

  static String markdown(
      Result r, String command, String started, String loadStart, String loadEnd) {
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "`%s`, %s: %,d JSON documents (seed %d, %.0f bytes on average, %.1f MiB) under"
                + " `doc:<n>` in three embedded stores, none, LZ4 and zstd (segments of %.1f MiB,"
                + " fsync no, no background work), each compacted until a pass reclaims nothing"
                + " and checkpointed. Reads: %,d GETs and %,d keys in getAll of 16 timed, after as"
                + " many untimed, each of the four steps cut at %d s, by a child JVM per store and"
                + " setting (%s); %d rounds, the order"
                + " of the stores rotating, the median shown; CPU is the reading thread's. %d"
                + " cores, load average %s at the start and %s at the end.%n%n",
            command,
            started,
            r.documents(),
            CompressedStoreRun.SEED,
            (double) r.rawBytes() / r.documents(),
            r.rawBytes() / (double) (1 << 20),
            CompressedStores.segmentBytes(r.rawBytes()) / (double) (1 << 20),
            r.config().gets(),
            r.config().gets() / 16 * 16,
            r.config().stepSeconds(),
            String.join(" ", r.childJvm()),
            r.config().rounds(),
            Runtime.getRuntime().availableProcessors(),
            loadStart,
            loadEnd));
    md.append(
        "| store | segment files, bytes | / none | files (compressed) | checkpoint bytes |"
            + " compaction passes | load s | compaction s |\n");
    md.append("|---|---:|---:|---|---:|---:|---:|---:|\n");
    for (Compression codec : CompressedStoreRun.CODECS) {
      CompressedStores.Built b = r.stores().get(codec);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %.3fx | %d (%d) | %,d | %d | %.1f | %.1f |%n",
              codec.label(),
              b.segmentBytes(),
              diskRatio(r, codec),
              b.segments(),
              b.compressedSegments(),
              b.checkpointBytes(),
              b.compactionPasses(),
              b.loadSeconds(),
              b.compactSeconds()));
    }
    md.append(limitLine(r));
    md.append(
        "\n| setting | op | none /s | lz4 /s | zstd /s | lz4 / none | zstd / none | CPU ns/op"
            + " none / lz4 / zstd | major faults per op none / lz4 / zstd |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---|---|\n");
    for (Setting setting : Setting.values()) {
      for (String op : OPS) {
        readRow(md, r, setting, op);
      }
    }
    md.append("\n| target | required | lz4 | zstd | met (lz4 / zstd) |\n|---|---|---:|---:|---|\n");
    for (Target t : targets(r)) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s / %s |%n",
              t.name(),
              t.required(),
              ratio(t.measured().get(Compression.LZ4)),
              ratio(t.measured().get(Compression.ZSTD)),
              met(t, Compression.LZ4),
              met(t, Compression.ZSTD)));
    }
    return md.toString();
  }

  private static String limitLine(Result r) {
    if (!r.cgroup().available()) {
      return String.format(
          Locale.ROOT, "%nMemory limit: not measured: %s.%n", r.cgroup().unavailable());
    }
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%nMemory limit: %d MiB, cgroup %s (%s), the child JVM (heap %d MiB) and the"
                    + " page cache of its store charged to it; the store's pages evicted"
                    + " before each child; block-device read-ahead %s KiB. Last round:",
                r.config().limitBytes() >> 20,
                r.cgroup().version(),
                "v2".equals(r.cgroup().version()) ? "memory.max" : "memory.limit_in_bytes",
                r.config().heapMb(),
                r.readAheadKb()));
    for (Compression codec : CompressedStoreRun.CODECS) {
      Sample last =
          r.samples().stream()
              .filter(s -> s.setting() == Setting.MEMORY_LIMIT && s.codec() == codec)
              .reduce((a, b) -> b)
              .orElseThrow();
      line.append(
          String.format(
              Locale.ROOT,
              " %s: the reader's RSS %.0f MiB (index %.1f MiB), the group's peak %.0f MiB, its"
                  + " page cache at the reader's exit %.0f MiB;",
              codec.label(),
              last.reader().get("rss_bytes") / (double) (1 << 20),
              last.reader().get("index_bytes") / (double) (1 << 20),
              last.cgroup().getOrDefault("peak_bytes", -1L) / (double) (1 << 20),
              last.cgroup().getOrDefault("file_bytes", -1L) / (double) (1 << 20)));
    }
    return line.append('\n').toString();
  }

  private static void readRow(StringBuilder md, Result r, Setting setting, String op) {
    Reads none = reads(r, setting, op, Compression.NONE);
    Reads lz4 = reads(r, setting, op, Compression.LZ4);
    Reads zstd = reads(r, setting, op, Compression.ZSTD);
    String name = "get".equals(op) ? "get" : "getAll of 16 (keys)";
    if (none == null) {
      md.append(
          String.format(Locale.ROOT, "| %s | %s | not run | | | | | | |%n", setting.id, name));
      return;
    }
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %s | %,.0f | %,.0f | %,.0f | %s | %s | %,.0f / %,.0f / %,.0f |"
                + " %.3f / %.3f / %.3f |%n",
            setting.id,
            name,
            none.opsPerSecond(),
            lz4.opsPerSecond(),
            zstd.opsPerSecond(),
            ratio(lz4.opsPerSecond() / none.opsPerSecond()),
            ratio(zstd.opsPerSecond() / none.opsPerSecond()),
            none.cpuNanosPerOp(),
            lz4.cpuNanosPerOp(),
            zstd.cpuNanosPerOp(),
            none.majorFaultsPerOp(),
            lz4.majorFaultsPerOp(),
            zstd.majorFaultsPerOp()));
  }

  /** A target of the issue: its measure for each compressed store, and the bound it must meet. */
  record Target(
      String id,
      String name,
      String required,
      boolean atMost,
      double bound,
      Map<Compression, Double> measured) {
    boolean met(Compression codec) {
      double m = measured.get(codec);
      return atMost ? m <= bound : m >= bound;
    }
  }

  static List<Target> targets(Result r) {
    Map<Compression, Double> disk = new LinkedHashMap<>();
    Map<Compression, Double> inMemory = new LinkedHashMap<>();
    Map<Compression, Double> limited = new LinkedHashMap<>();
    for (Compression codec : COMPRESSED) {
      disk.put(codec, diskRatio(r, codec));
      inMemory.put(codec, throughputRatio(r, Setting.IN_MEMORY, "get", codec));
      limited.put(codec, throughputRatio(r, Setting.MEMORY_LIMIT, "get", codec));
    }
    return List.of(
        new Target("disk", "disk use, compressed / none", "≤ 0.4x", true, DISK_TARGET, disk),
        new Target(
            "get_in_memory",
            "random GET in memory, compressed / none",
            "≥ 0.5x",
            false,
            IN_MEMORY_TARGET,
            inMemory),
        new Target(
            "get_memory_limit",
            "random GET, data 2x the memory limit, compressed / none",
            "≥ 1.5x",
            false,
            MEMORY_LIMIT_TARGET,
            limited));
  }

  private static String met(Target t, Compression codec) {
    if (Double.isNaN(t.measured().get(codec))) {
      return "not measured";
    }
    return t.met(codec) ? "yes" : "**no**";
  }

  private static String ratio(double r) {
    return Double.isNaN(r) ? "n/a" : String.format(Locale.ROOT, "%.2fx", r);
  }

  /** The {@code compressed_store} object of the run's JSON. */
  static Map<String, Object> json(Result r) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("documents", r.documents());
    out.put("seed", CompressedStoreRun.SEED);
    out.put("raw_bytes", r.rawBytes());
    out.put("key_format", "doc:<n>");
    out.put(
        "store",
        "embedded; fsync no, background compaction off, checkpoint interval 0; compact() until a"
            + " pass reclaims nothing, then checkpoint");
    out.put("segment_bytes", CompressedStores.segmentBytes(r.rawBytes()));
    out.put("gets_per_row", r.config().gets());
    out.put("step_seconds_max", r.config().stepSeconds());
    out.put("get_batch", EngineStore.GET_BATCH);
    out.put("rounds", r.config().rounds());
    out.put("child_jvm", r.childJvm());
    out.put("child_heap_mb", r.config().heapMb());
    out.put("cpu_clock", "reading thread, user + system (ThreadMXBean.getCurrentThreadCpuTime)");
    Map<String, Object> cgroup = new LinkedHashMap<>();
    cgroup.put("limit_bytes", r.config().limitBytes());
    cgroup.put("version", r.cgroup().version());
    cgroup.put("parent", r.cgroup().parent() == null ? null : r.cgroup().parent().toString());
    cgroup.put("available", r.cgroup().available());
    cgroup.put("unavailable", r.cgroup().unavailable());
    cgroup.put("read_ahead_kb", r.readAheadKb());
    out.put("memory_limit", cgroup);
    List<Object> disk = new ArrayList<>();
    for (Compression codec : CompressedStoreRun.CODECS) {
      CompressedStores.Built b = r.stores().get(codec);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("codec", codec.label());
      m.put("segment_bytes", b.segmentBytes());
      m.put("ratio_vs_none", round(diskRatio(r, codec), 1000));
      m.put("segments", b.segments());
      m.put("compressed_segments", b.compressedSegments());
      m.put("checkpoint_bytes", b.checkpointBytes());
      m.put("compaction_passes", b.compactionPasses());
      m.put("load_s", round(b.loadSeconds(), 100));
      m.put("compact_s", round(b.compactSeconds(), 100));
      disk.add(m);
    }
    out.put("disk", disk);
    out.put("rows", rows(r));
    List<Object> targets = new ArrayList<>();
    for (Target t : targets(r)) {
      for (Compression codec : COMPRESSED) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("target", t.id());
        m.put("codec", codec.label());
        m.put("required", (t.atMost() ? "<= " : ">= ") + t.bound());
        double measured = t.measured().get(codec);
        m.put("measured", Double.isNaN(measured) ? null : round(measured, 1000));
        m.put("met", Double.isNaN(measured) ? null : t.met(codec));
        targets.add(m);
      }
    }
    out.put("targets", targets);
    out.put("samples", samples(r));
    return out;
  }

  private static List<Object> rows(Result r) {
    List<Object> rows = new ArrayList<>();
    for (Setting setting : Setting.values()) {
      for (String op : OPS) {
        Reads none = reads(r, setting, op, Compression.NONE);
        if (none == null) {
          continue;
        }
        for (Compression codec : CompressedStoreRun.CODECS) {
          Reads c = reads(r, setting, op, codec);
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("setting", setting.id);
          m.put("op", "get".equals(op) ? "get" : "getAll");
          m.put("per", "get".equals(op) ? "GET" : "key");
          m.put("codec", codec.label());
          m.put("ops_per_s", round(c.opsPerSecond(), 1));
          m.put("cpu_ns_per_op", round(c.cpuNanosPerOp(), 10));
          m.put("major_faults_per_op", round(c.majorFaultsPerOp(), 10000));
          m.put("throughput_ratio_vs_none", round(c.opsPerSecond() / none.opsPerSecond(), 1000));
          m.put("cpu_ratio_vs_none", round(c.cpuNanosPerOp() / none.cpuNanosPerOp(), 1000));
          rows.add(m);
        }
      }
    }
    return rows;
  }

  private static List<Object> samples(Result r) {
    List<Object> out = new ArrayList<>();
    for (Sample s : r.samples()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("round", s.round());
      m.put("setting", s.setting().id);
      m.put("codec", s.codec().label());
      m.putAll(s.reader());
      if (!s.cgroup().isEmpty()) {
        m.put("cgroup", new LinkedHashMap<>(s.cgroup()));
      }
      out.add(m);
    }
    return out;
  }

  private static double round(double value, int scale) {
    return Math.round(value * scale) / (double) scale;
  }

  private static <T> double median(List<T> samples, ToDoubleFunction<T> value) {
    return BackupRun.median(samples.stream().map(value::applyAsDouble).toList());
  }
}
