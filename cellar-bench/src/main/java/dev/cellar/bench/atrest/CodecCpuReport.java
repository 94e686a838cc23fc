package dev.cellar.bench.atrest;

import dev.cellar.bench.atrest.CodecCpuRun.Measurement;
import dev.cellar.bench.atrest.CodecCpuRun.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The codec part's table, ratios and target in Markdown and JSON. The target (the issue's):
 * encrypting a document costs at most {@link #TARGET} of the CPU that compressing it with zstd
 * costs. It is judged against each zstd compress row, per record and per 64 KiB block, from both
 * libraries, since the cheaper zstd is the stricter yardstick.
 */
final class CodecCpuReport {
  static final double TARGET = 0.10;

  /** One CPU ratio: {@code numerator}'s cost per document over {@code denominator}'s. */
  record Ratio(Measurement numerator, Measurement denominator, boolean target) {
    double value() {
      return numerator.cpuNanosPerDocument() / denominator.cpuNanosPerDocument();
    }

    String label() {
      return numerator.step().codec()
          + " "
          + numerator.step().op()
          + " per "
          + numerator.step().unit()
          + " / "
          + denominator.step().label();
    }
  }

  private CodecCpuReport() {}

  /**
   * Encryption per record against every zstd compression row (the target), then each other
   * compression row against the AES-GCM row of the same direction and unit, and zstd-jni's
   * compression against encrypting what it produced (compress, then encrypt).
   */
  static List<Ratio> ratios(Result r) {
    Measurement encrypt = aes(r, "encrypt", "record");
    List<Ratio> ratios = new ArrayList<>();
    for (Measurement m : r.rows()) {
      if (zstdCompress(m)) {
        ratios.add(new Ratio(encrypt, m, true));
      }
    }
    for (Measurement m : r.rows()) {
      CodecStep s = m.step();
      boolean compress = s.op().equals("compress");
      if (s.codec().startsWith("aes")) {
        continue;
      }
      Measurement cipher = aes(r, compress ? "encrypt" : "decrypt", s.unit());
      if (!(zstdCompress(m) && cipher == encrypt)) {
        ratios.add(new Ratio(cipher, m, false));
      }
      if (zstdCompress(m) && s.library().startsWith("zstd-jni")) {
        String compressed =
            s.unit().equals("record") ? CodecCpuRun.ZSTD_RECORD : CodecCpuRun.ZSTD_BLOCK;
        ratios.add(new Ratio(aes(r, "encrypt", compressed), m, false));
      }
    }
    return ratios;
  }

  static String markdown(
      Result r, String command, String started, String loadStart, String loadEnd) {
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "`%s`, %s: %d JSON documents (seed %d), %.0f bytes on average, %d blocks of up to %d"
                + " KiB (%.1f documents a block); warm-up of at least %d passes and %.1f CPU s a row, %d"
                + " rounds, the median shown;"
                + " CPU time of the measuring thread (user + system); %d cores, load average %s at"
                + " the start and %s at the end.%n%n",
            command,
            started,
            r.documents(),
            CodecCpuRun.SEED,
            (double) r.rawBytes() / r.documents(),
            r.blocks(),
            CompressionSteps.BLOCK_BYTES >> 10,
            (double) r.documents() / r.blocks(),
            CodecCpuRun.WARMUP_PASSES,
            CodecCpuRun.WARMUP_CPU_NANOS / 1e9,
            r.rows().getFirst().samples().size(),
            Runtime.getRuntime().availableProcessors(),
            loadStart,
            loadEnd));
    md.append("| codec | operation | per | library | CPU ns / document | MB / CPU s | size |\n");
    md.append("|---|---|---|---|---:|---:|---:|\n");
    for (Measurement m : r.rows()) {
      CodecStep s = m.step();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %,.0f | %,.0f | %.2fx |%n",
              s.codec(),
              s.op(),
              s.unit(),
              s.library(),
              m.cpuNanosPerDocument(),
              m.mbPerCpuSecond(),
              s.sizeRatio()));
    }
    md.append(
        "\nSize: the documents' bytes over the bytes stored (frames; ciphertext, tag and nonce)."
            + " MB / CPU s: the documents' bytes, uncompressed and in the clear, per CPU second."
            + " Per zstd record / block: AES-GCM over zstd-jni's frames, as a writer that"
            + " compresses, then encrypts.\n\n");
    md.append("| CPU ratio | required | measured | met |\n|---|---|---:|---|\n");
    for (Ratio ratio : ratios(r)) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.3f | %s |%n",
              ratio.label(),
              ratio.target() ? String.format(Locale.ROOT, "≤ %.2f", TARGET) : "",
              ratio.value(),
              ratio.target() ? (ratio.value() <= TARGET ? "yes" : "**no**") : ""));
    }
    return md.toString();
  }

  /** The {@code codecs} object of the run's JSON. */
  static Map<String, Object> json(Result r) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("documents", r.documents());
    out.put("seed", CodecCpuRun.SEED);
    out.put("raw_bytes", r.rawBytes());
    out.put("block_bytes", CompressionSteps.BLOCK_BYTES);
    out.put("blocks", r.blocks());
    out.put("warmup_min_passes", CodecCpuRun.WARMUP_PASSES);
    out.put("warmup_min_cpu_s", CodecCpuRun.WARMUP_CPU_NANOS / 1e9);
    out.put("rounds", r.rows().getFirst().samples().size());
    out.put("cpu_clock", "measuring thread, user + system (ThreadMXBean.getCurrentThreadCpuTime)");
    List<Object> rows = new ArrayList<>();
    List<Object> samples = new ArrayList<>();
    for (Measurement m : r.rows()) {
      Map<String, Object> row = id(m);
      row.put("cpu_ns_per_doc", Math.round(m.cpuNanosPerDocument() * 10) / 10.0);
      row.put("mb_per_cpu_s", Math.round(m.mbPerCpuSecond() * 10) / 10.0);
      row.put("raw_bytes", m.step().rawBytes());
      row.put("stored_bytes", m.step().storedBytes());
      row.put("size_ratio", Math.round(m.step().sizeRatio() * 1000) / 1000.0);
      rows.add(row);
      for (CodecCpuRun.Sample s : m.samples()) {
        Map<String, Object> sample = id(m);
        sample.put("round", s.round());
        sample.put("cpu_ns", s.cpuNanos());
        sample.put("wall_ns", s.wallNanos());
        samples.add(sample);
      }
    }
    out.put("rows", rows);
    List<Object> ratios = new ArrayList<>();
    List<Object> targets = new ArrayList<>();
    for (Ratio ratio : ratios(r)) {
      double value = Math.round(ratio.value() * 10_000) / 10_000.0;
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("ratio", ratio.label());
      m.put("numerator", id(ratio.numerator()));
      m.put("denominator", id(ratio.denominator()));
      m.put("value", value);
      ratios.add(m);
      if (ratio.target()) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("target", ratio.label());
        t.put("required", String.format(Locale.ROOT, "<= %.2f", TARGET));
        t.put("measured", value);
        t.put("met", ratio.value() <= TARGET);
        targets.add(t);
      }
    }
    out.put("cpu_ratios", ratios);
    out.put("targets", targets);
    out.put("samples", samples);
    return out;
  }

  private static Map<String, Object> id(Measurement m) {
    Map<String, Object> id = new LinkedHashMap<>();
    id.put("codec", m.step().codec());
    id.put("op", m.step().op());
    id.put("unit", m.step().unit());
    id.put("library", m.step().library());
    return id;
  }

  private static boolean zstdCompress(Measurement m) {
    return m.step().op().equals("compress") && m.step().codec().startsWith("zstd");
  }

  private static Measurement aes(Result r, String op, String unit) {
    return r.rows().stream()
        .filter(m -> m.step().codec().startsWith("aes"))
        .filter(m -> m.step().op().equals(op) && m.step().unit().equals(unit))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no AES-GCM " + op + " row per " + unit));
  }
}
