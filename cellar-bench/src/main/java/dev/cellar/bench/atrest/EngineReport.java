package dev.cellar.bench.atrest;

import dev.cellar.bench.atrest.EngineRun.GcmSample;
import dev.cellar.bench.atrest.EngineRun.Kind;
import dev.cellar.bench.atrest.EngineRun.Result;
import dev.cellar.bench.atrest.EngineRun.Sample;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The engine part's table and JSON: for each row, each store's throughput and CPU per operation
 * (medians over the rounds, each taken separately), the encrypted store's over the plain one's, the
 * overhead per operation in nanoseconds, and beside it the AES-GCM work the operation implies, as
 * the codec part measures it.
 */
final class EngineReport {
  private EngineReport() {}

  /** One store's medians in one row. */
  record Side(
      double opsPerSecond, double cpuNanosPerOp, double wallMillis, double cpuMillis, double ops) {
    static Side of(EngineRow row, List<Sample> samples) {
      return new Side(
          median(samples, s -> s.ops() / (s.wallNanos() / 1e9)),
          median(samples, s -> (double) s.cpuNanos(row) / s.ops()),
          median(samples, s -> s.wallNanos() / 1e6),
          median(samples, s -> s.cpuNanos(row) / 1e6),
          median(samples, s -> (double) s.ops()));
    }
  }

  /** A row of the table. */
  record Row(EngineRow row, Side plain, Side encrypted, double gcmNanos) {
    double throughputRatio() {
      return encrypted.opsPerSecond() / plain.opsPerSecond();
    }

    double cpuRatio() {
      return encrypted.cpuNanosPerOp() / plain.cpuNanosPerOp();
    }

    /** Encrypted CPU per operation minus plain. */
    double overheadNanos() {
      return encrypted.cpuNanosPerOp() - plain.cpuNanosPerOp();
    }
  }

  static List<Row> rows(Result r) {
    double encrypt = median(r.gcm(), GcmSample::encryptNanos);
    double decrypt = median(r.gcm(), GcmSample::decryptNanos);
    List<Row> rows = new ArrayList<>();
    for (EngineRow row : EngineRow.values()) {
      Map<Kind, List<Sample>> samples = r.samples().get(row);
      rows.add(
          new Row(
              row,
              Side.of(row, samples.get(Kind.PLAIN)),
              Side.of(row, samples.get(Kind.ENCRYPTED)),
              row.encryptions * encrypt + row.decryptions * decrypt));
    }
    return rows;
  }

  static String markdown(
      Result r, String command, String started, String loadStart, String loadEnd) {
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "`%s`, %s: %d JSON documents (seed %d, %.0f bytes on average) under `doc:<n>`, in a"
                + " plain and an encrypted embedded store (fsync no, no background compaction, no"
                + " periodic checkpoint, segments of %.1f MiB); a warm-up round, then %d rounds, each"
                + " step on both stores in turn, the first alternating; the median shown. CPU: the"
                + " measuring thread's (the process's for recovery); %d cores, load average %s at"
                + " the start and %s at the end.%n%n",
            command,
            started,
            r.documents(),
            EngineRun.SEED,
            (double) r.rawBytes() / r.documents(),
            r.segmentBytes() / (double) (1 << 20),
            r.rounds(),
            Runtime.getRuntime().availableProcessors(),
            loadStart,
            loadEnd));
    md.append(
        "| row | per | plain ops/s | encrypted ops/s | enc / plain | plain CPU ns/op | encrypted"
            + " CPU ns/op | enc / plain | overhead ns/op | AES-GCM per record | ns |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
    List<Row> rows = rows(r);
    for (Row row : rows) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %,.0f | %,.0f | %.2fx | %,.0f | %,.0f | %.2fx | %,.0f | %s | %,.0f |%n",
              row.row().id,
              row.row().unit,
              row.plain().opsPerSecond(),
              row.encrypted().opsPerSecond(),
              row.throughputRatio(),
              row.plain().cpuNanosPerOp(),
              row.encrypted().cpuNanosPerOp(),
              row.cpuRatio(),
              row.overheadNanos(),
              row.row().gcmWork(),
              row.gcmNanos()));
    }
    md.append(
        String.format(
            Locale.ROOT,
            "%nAES-GCM per record: the codec part's measure (JDK `Cipher`, one operation per"
                + " document) over the first %d documents, once a round, the median; the work one"
                + " operation of the row needs in the encrypted store.%n%n",
            r.gcmDocuments()));
    md.append(
        "| pass | plain wall ms | encrypted wall ms | plain CPU ms | encrypted CPU ms | records"
            + " (plain / encrypted) |\n");
    md.append("|---|---:|---:|---:|---:|---|\n");
    for (Row row : rows) {
      if (row.row() == EngineRow.RECOVERY || row.row() == EngineRow.COMPACTION) {
        boolean recovery = row.row() == EngineRow.RECOVERY;
        double per = recovery ? EngineRun.REOPENS : 1;
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %,.1f | %,.1f | %,.1f | %,.1f | %,.0f / %,.0f |%n",
                recovery ? "recovery (one reopen)" : row.row().id,
                row.plain().wallMillis() / per,
                row.encrypted().wallMillis() / per,
                row.plain().cpuMillis() / per,
                row.encrypted().cpuMillis() / per,
                row.plain().ops() / per,
                row.encrypted().ops() / per));
      }
    }
    EngineStore.Compaction plain = r.compactions().get(Kind.PLAIN).getLast();
    EngineStore.Compaction encrypted = r.compactions().get(Kind.ENCRYPTED).getLast();
    md.append(
        String.format(
            Locale.ROOT,
            "%nCompaction: `compact()` until a pass reclaims nothing (%d passes plain, %d encrypted"
                + " in the last round, %.1f and %.1f MiB reclaimed); its records are the bytes its"
                + " outputs hold over the mean record length of the load. Recovery: %d reopens a"
                + " round, summed; its records are those replayed, the overwritten ones compaction"
                + " left included.%n",
            plain.passes(),
            encrypted.passes(),
            plain.reclaimedBytes() / (double) (1 << 20),
            encrypted.reclaimedBytes() / (double) (1 << 20),
            EngineRun.REOPENS));
    return md.toString();
  }

  /** The {@code engine} object of the run's JSON. */
  static Map<String, Object> json(Result r) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("documents", r.documents());
    out.put("seed", EngineRun.SEED);
    out.put("raw_bytes", r.rawBytes());
    out.put("key_format", "doc:<n>");
    out.put(
        "store",
        "embedded; fsync no, background compaction off, checkpoint interval 0, compaction garbage"
            + " ratio "
            + EngineRun.GARBAGE_RATIO);
    out.put("segment_bytes", r.segmentBytes());
    out.put("put_batch", EngineStore.PUT_BATCH);
    out.put("get_batch", EngineStore.GET_BATCH);
    out.put("warmup_rounds", 1);
    out.put("rounds", r.rounds());
    out.put(
        "cpu_clock",
        "measuring thread, user + system (ThreadMXBean.getCurrentThreadCpuTime); recovery: the"
            + " process ("
            + ProcessCpuClock.source()
            + ")");
    out.put("reopens_per_round", EngineRun.REOPENS);
    List<Object> rows = new ArrayList<>();
    for (Row row : rows(r)) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("row", row.row().id);
      m.put("what", row.row().description);
      m.put("per", row.row().unit);
      m.put("cpu", row.row().processCpu ? "process" : "thread");
      m.put("plain", side(row.plain()));
      m.put("encrypted", side(row.encrypted()));
      m.put("throughput_ratio", round(row.throughputRatio(), 1000));
      m.put("cpu_ratio", round(row.cpuRatio(), 1000));
      m.put("overhead_cpu_ns_per_op", round(row.overheadNanos(), 10));
      m.put("aes_gcm_work", row.row().gcmWork());
      m.put("aes_gcm_ns_per_op", round(row.gcmNanos(), 10));
      rows.add(m);
    }
    out.put("rows", rows);
    Map<String, Object> gcm = new LinkedHashMap<>();
    gcm.put("documents", r.gcmDocuments());
    gcm.put("encrypt_ns_per_record", round(median(r.gcm(), GcmSample::encryptNanos), 10));
    gcm.put("decrypt_ns_per_record", round(median(r.gcm(), GcmSample::decryptNanos), 10));
    out.put("aes_gcm_per_record", gcm);
    out.put("compactions", compactions(r));
    out.put("samples", samples(r));
    return out;
  }

  private static List<Object> compactions(Result r) {
    List<Object> out = new ArrayList<>();
    for (Kind k : Kind.values()) {
      List<EngineStore.Compaction> passes = r.compactions().get(k);
      for (int i = 0; i < passes.size(); i++) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("store", k.id());
        m.put("round", i + 1);
        m.put("passes", passes.get(i).passes());
        m.put("reclaimed_bytes", passes.get(i).reclaimedBytes());
        m.put("written_bytes", passes.get(i).writtenBytes());
        m.put("records_copied", Math.round(passes.get(i).recordsCopied()));
        out.add(m);
      }
    }
    return out;
  }

  private static List<Object> samples(Result r) {
    List<Object> out = new ArrayList<>();
    r.samples()
        .forEach(
            (row, byKind) ->
                byKind.forEach(
                    (k, list) -> {
                      for (Sample s : list) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("row", row.id);
                        m.put("store", k.id());
                        m.put("round", s.round());
                        m.put("ops", s.ops());
                        m.put("wall_ns", s.wallNanos());
                        m.put("thread_cpu_ns", s.threadCpuNanos());
                        m.put("process_cpu_ns", s.processCpuNanos());
                        out.add(m);
                      }
                    }));
    for (GcmSample g : r.gcm()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("row", "aes-gcm per record");
      m.put("round", g.round());
      m.put("encrypt_ns", round(g.encryptNanos(), 10));
      m.put("decrypt_ns", round(g.decryptNanos(), 10));
      out.add(m);
    }
    return out;
  }

  private static Map<String, Object> side(Side s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ops_per_s", round(s.opsPerSecond(), 1));
    m.put("cpu_ns_per_op", round(s.cpuNanosPerOp(), 10));
    m.put("wall_ms", round(s.wallMillis(), 100));
    m.put("cpu_ms", round(s.cpuMillis(), 100));
    m.put("ops", Math.round(s.ops()));
    return m;
  }

  private static double round(double value, int scale) {
    return Math.round(value * scale) / (double) scale;
  }

  private static <T> double median(List<T> samples, ToDoubleFunction<T> value) {
    return BackupRun.median(samples.stream().map(value::applyAsDouble).toList());
  }
}
