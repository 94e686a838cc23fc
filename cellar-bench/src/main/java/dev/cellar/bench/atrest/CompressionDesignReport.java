package dev.cellar.bench.atrest;

import dev.cellar.bench.atrest.CompressionDesignModel.Line;
import dev.cellar.bench.atrest.CompressionDesignModel.Modelled;
import dev.cellar.bench.atrest.CompressionDesignRun.Gcm;
import dev.cellar.bench.atrest.CompressionDesignRun.Result;
import dev.cellar.bench.atrest.CompressionDesignRun.Row;
import dev.cellar.bench.atrest.CompressionDesignRun.Timing;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The compression part's tables in Markdown and JSON: what was measured (sizes, CPU per document
 * compressed and per frame read, the dictionaries' training, AES-GCM), then, apart and labelled as
 * such, the model's verdict on the targets ({@link CompressionDesignModel}).
 */
final class CompressionDesignReport {
  private CompressionDesignReport() {}

  static String markdown(
      Result r, String command, String started, String loadStart, String loadEnd) {
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "`%s`, %s: %d JSON documents (seed %d), %.0f bytes on average; warm-up of at least %d"
                + " pass and %.1f CPU s a step, %d rounds, the median shown; CPU time of the"
                + " measuring thread (user + system); %d cores, load average %s at the start and %s"
                + " at the end.%n%n",
            command,
            started,
            r.documents(),
            CompressionDesignRun.SEED,
            (double) r.rawBytes() / r.documents(),
            CompressionDesignRun.WARMUP_PASSES,
            CompressionDesignRun.WARMUP_CPU_NANOS / 1e9,
            r.rounds(),
            Runtime.getRuntime().availableProcessors(),
            loadStart,
            loadEnd));
    measured(md, r);
    dictionaries(md, r);
    blockReads(md, r);
    gcm(md, r.gcm());
    model(md, r);
    return md.toString();
  }

  private static void measured(StringBuilder md, Result r) {
    md.append("Measured:\n\n");
    md.append(
        "| candidate | library | size ratio | held out | stored / raw | compress CPU ns / doc |"
            + " decompress CPU ns / frame read | docs / frame |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (Row row : r.rows()) {
      CompressionCandidate c = row.candidate();
      double heldOut = c.heldOutRatio();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.2fx | %s | %.3f | %,.0f | %,.0f | %.1f |%n",
              c.label(),
              c.codec().library(),
              c.ratio(),
              Double.isNaN(heldOut) ? "" : String.format(Locale.ROOT, "%.2fx", heldOut),
              1 / c.ratio(),
              row.compress().cpuNanosPerOperation(),
              row.decompress().cpuNanosPerOperation(),
              c.documentsPerFrame()));
    }
    md.append(
        "\nSize ratio: the documents' bytes over the bytes stored (each frame and a varint of its"
            + " length; blocks also hold a varint length before each document). Held out: the"
            + " same on the documents outside the dictionary's training sample. Decompress: one"
            + " frame (a record, or a whole block) in a random order of all frames.\n\n");
  }

  private static void dictionaries(StringBuilder md, Result r) {
    md.append("| dictionary | trained on | sample bytes | training CPU ms | training wall ms |\n");
    md.append("|---:|---|---:|---:|---:|\n");
    for (ZstdDictionary d : r.dictionaries()) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %,d bytes | %,d documents (1 in %d) | %,d | %,.0f | %,.0f |%n",
              d.bytes().length,
              d.sampleDocuments(),
              d.stride(),
              d.sampleBytes(),
              d.cpuNanos() / 1e6,
              d.wallNanos() / 1e6));
    }
    md.append('\n');
  }

  private static void blockReads(StringBuilder md, Result r) {
    md.append("Decompression per random GET of one document, by block-cache hit rate:\n\n");
    md.append("| candidate | per frame read | hit 0% | hit 50% | hit 90% |\n");
    md.append("|---|---:|---:|---:|---:|\n");
    for (Row row : r.rows()) {
      double d = row.decompress().cpuNanosPerOperation();
      boolean block = row.candidate().design().equals(CompressionCandidate.BLOCK);
      md.append(String.format(Locale.ROOT, "| %s | %,.0f |", row.candidate().label(), d));
      for (double hit : CompressionDesignModel.HIT_RATES) {
        md.append(String.format(Locale.ROOT, " %,.0f |", block ? (1 - hit) * d : d));
      }
      md.append('\n');
    }
    md.append("\n(Per record: every GET decompresses its record; there is no cache to hit.)\n\n");
  }

  private static void gcm(StringBuilder md, Gcm g) {
    md.append("AES-256-GCM (JDK), measured in the same run, and the line through it:\n\n");
    md.append(
        "| operation | per record (%.0f B) | per block (%.0f B) | per operation | per KiB |\n"
            .formatted(g.recordBytes(), g.blockBytes()));
    md.append("|---|---:|---:|---:|---:|\n");
    gcmRow(md, "encrypt", g.encryptRecord(), g.encryptBlock(), CompressionDesignModel.encrypt(g));
    gcmRow(md, "decrypt", g.decryptRecord(), g.decryptBlock(), CompressionDesignModel.decrypt(g));
    md.append('\n');
  }

  private static void gcmRow(StringBuilder md, String op, Timing record, Timing block, Line line) {
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %,.0f ns | %,.0f ns | %,.0f ns | %,.0f ns |%n",
            op,
            record.cpuNanosPerOperation(),
            block.cpuNanosPerOperation(),
            line.perOperation(),
            line.perByte() * 1024));
  }

  private static void model(StringBuilder md, Result r) {
    md.append(
        String.format(
            Locale.ROOT,
            "**Model, not an engine measurement**: a GET in memory = %.1f µs (the plain engine's,"
                + " uncompressed) + decompression (+ AES-GCM of the compressed record or block,"
                + " from the line above) at the hit rate; encrypted stores are compared with an"
                + " uncompressed encrypted one (%.1f µs + GCM of a %.0f-byte record). Disk with"
                + " encryption adds %d bytes (nonce, tag) a frame. Encryption / compression: GCM"
                + " over the candidate's compressed frame, per document, over its compression"
                + " per document.%n%n",
            CompressionDesignModel.BASE_GET_NS / 1000,
            CompressionDesignModel.BASE_GET_NS / 1000,
            r.gcm().recordBytes(),
            CompressionDesignModel.GCM_FRAME_BYTES));
    md.append(
        "| candidate | hit | disk (≤ 0.40) | disk encrypted | GET ns | GET vs uncompressed (≥"
            + " 0.5x) | encrypted GET ns | vs encrypted uncompressed (≥ 0.5x) | GCM / compress"
            + " CPU (≤ 0.10) |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Modelled m : CompressionDesignModel.lines(r)) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %,.0f | %s | %,.0f | %s | %s |%n",
              m.row().candidate().label(),
              Double.isNaN(m.hitRate())
                  ? ""
                  : String.format(Locale.ROOT, "%.0f%%", m.hitRate() * 100),
              verdict(m.disk(), m.disk() <= CompressionDesignModel.DISK_TARGET, "%.3f"),
              verdict(
                  m.encryptedDisk(),
                  m.encryptedDisk() <= CompressionDesignModel.DISK_TARGET,
                  "%.3f"),
              m.getNs(),
              verdict(m.getRatio(), m.getRatio() >= CompressionDesignModel.GET_TARGET, "%.2fx"),
              m.encryptedGetNs(),
              verdict(
                  m.encryptedGetRatio(),
                  m.encryptedGetRatio() >= CompressionDesignModel.GET_TARGET,
                  "%.2fx"),
              verdict(
                  m.encryptionOverCompression(),
                  m.encryptionOverCompression() <= CompressionDesignModel.ENCRYPTION_TARGET,
                  "%.3f")));
    }
    md.append(
        "\nBold: the target is not met. The GET when the uncompressed data is twice the memory"
            + " limit (≥ 1.5x) is not modelled: disk reads decide it.\n");
  }

  private static String verdict(double value, boolean met, String format) {
    String s = String.format(Locale.ROOT, format, value);
    return met ? s : "**" + s + "**";
  }

  /** The {@code compression} object of the run's JSON. */
  static Map<String, Object> json(Result r) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("documents", r.documents());
    out.put("seed", CompressionDesignRun.SEED);
    out.put("raw_bytes", r.rawBytes());
    out.put("rounds", r.rounds());
    out.put("warmup_min_passes", CompressionDesignRun.WARMUP_PASSES);
    out.put("warmup_min_cpu_s", CompressionDesignRun.WARMUP_CPU_NANOS / 1e9);
    out.put("cpu_clock", "measuring thread, user + system (ThreadMXBean.getCurrentThreadCpuTime)");
    List<Object> dictionaries = new ArrayList<>();
    for (ZstdDictionary d : r.dictionaries()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("bytes", d.bytes().length);
      m.put("sample_documents", d.sampleDocuments());
      m.put("sample_stride", d.stride());
      m.put("sample_bytes", d.sampleBytes());
      m.put("training_cpu_ms", round(d.cpuNanos() / 1e6, 10));
      m.put("training_wall_ms", round(d.wallNanos() / 1e6, 10));
      dictionaries.add(m);
    }
    out.put("dictionaries", dictionaries);
    List<Object> rows = new ArrayList<>();
    List<Object> samples = new ArrayList<>();
    for (Row row : r.rows()) {
      CompressionCandidate c = row.candidate();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("candidate", c.label());
      m.put("design", c.design());
      m.put("codec", c.codec().codec());
      m.put("library", c.codec().library());
      m.put("block_bytes", c.blockBytes());
      m.put("dictionary_bytes", c.dictionary() == null ? 0 : c.dictionary().bytes().length);
      m.put("frames", c.frames());
      m.put("raw_bytes", c.rawBytes());
      m.put("stored_bytes", c.storedBytes());
      m.put("size_ratio", round(c.ratio(), 1000));
      m.put(
          "held_out_size_ratio",
          Double.isNaN(c.heldOutRatio()) ? null : round(c.heldOutRatio(), 1000));
      m.put("compress_cpu_ns_per_doc", round(row.compress().cpuNanosPerOperation(), 10));
      m.put("decompress_cpu_ns_per_frame", round(row.decompress().cpuNanosPerOperation(), 10));
      m.put("docs_per_frame", round(c.documentsPerFrame(), 100));
      rows.add(m);
      samples(samples, row.compress());
      samples(samples, row.decompress());
    }
    out.put("rows", rows);
    out.put("gcm", gcmJson(r.gcm()));
    samples(samples, r.gcm().encryptRecord());
    samples(samples, r.gcm().decryptRecord());
    samples(samples, r.gcm().encryptBlock());
    samples(samples, r.gcm().decryptBlock());
    out.put("model", modelJson(r));
    out.put("samples", samples);
    return out;
  }

  private static Map<String, Object> gcmJson(Gcm g) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("record_bytes", round(g.recordBytes(), 10));
    m.put("block_bytes", round(g.blockBytes(), 10));
    m.put("encrypt_ns_per_record", round(g.encryptRecord().cpuNanosPerOperation(), 10));
    m.put("decrypt_ns_per_record", round(g.decryptRecord().cpuNanosPerOperation(), 10));
    m.put("encrypt_ns_per_block", round(g.encryptBlock().cpuNanosPerOperation(), 10));
    m.put("decrypt_ns_per_block", round(g.decryptBlock().cpuNanosPerOperation(), 10));
    Line e = CompressionDesignModel.encrypt(g);
    Line d = CompressionDesignModel.decrypt(g);
    m.put("encrypt_ns_per_op", round(e.perOperation(), 10));
    m.put("encrypt_ns_per_kib", round(e.perByte() * 1024, 10));
    m.put("decrypt_ns_per_op", round(d.perOperation(), 10));
    m.put("decrypt_ns_per_kib", round(d.perByte() * 1024, 10));
    return m;
  }

  private static Map<String, Object> modelJson(Result r) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(
        "note",
        "a model from the measured rows, not an engine measurement: GET = base + decompression"
            + " (+ AES-GCM of the compressed frame) at the cache miss rate");
    out.put("base_get_ns", CompressionDesignModel.BASE_GET_NS);
    Map<String, Object> targets = new LinkedHashMap<>();
    targets.put("disk_max", CompressionDesignModel.DISK_TARGET);
    targets.put("get_in_memory_min", CompressionDesignModel.GET_TARGET);
    targets.put("gcm_over_compress_max", CompressionDesignModel.ENCRYPTION_TARGET);
    out.put("targets", targets);
    List<Object> lines = new ArrayList<>();
    for (Modelled x : CompressionDesignModel.lines(r)) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("candidate", x.row().candidate().label());
      m.put("hit_rate", Double.isNaN(x.hitRate()) ? null : x.hitRate());
      m.put("disk", round(x.disk(), 1000));
      m.put("disk_encrypted", round(x.encryptedDisk(), 1000));
      m.put("get_ns", round(x.getNs(), 10));
      m.put("get_vs_uncompressed", round(x.getRatio(), 1000));
      m.put("encrypted_get_ns", round(x.encryptedGetNs(), 10));
      m.put("encrypted_get_vs_encrypted_uncompressed", round(x.encryptedGetRatio(), 1000));
      m.put("gcm_over_compress", round(x.encryptionOverCompression(), 1000));
      m.put("disk_met", x.disk() <= CompressionDesignModel.DISK_TARGET);
      m.put("get_met", x.getRatio() >= CompressionDesignModel.GET_TARGET);
      m.put("encrypted_get_met", x.encryptedGetRatio() >= CompressionDesignModel.GET_TARGET);
      m.put("gcm_met", x.encryptionOverCompression() <= CompressionDesignModel.ENCRYPTION_TARGET);
      lines.add(m);
    }
    out.put("lines", lines);
    return out;
  }

  private static void samples(List<Object> out, Timing t) {
    for (CodecCpuRun.Sample s : t.samples()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("step", t.what());
      m.put("operations", t.operations());
      m.put("round", s.round());
      m.put("cpu_ns", s.cpuNanos());
      m.put("wall_ns", s.wallNanos());
      out.add(m);
    }
  }

  private static double round(double value, double scale) {
    return Math.round(value * scale) / scale;
  }
}
