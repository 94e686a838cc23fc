package dev.cellar.bench.server;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The machine-readable record of a run ({@code docs/benchmarks/server-<date>.json}):
 *
 * <pre>{@code
 * {"machine": {"cores": 2, ...}, "config": {"keyspace": 1000000, ...},
 *  "runs": [{"placement": "pinned", "durability": "no", "server": "redis", "round": 1, "test": "set",
 *            "pipeline": 1, "requests": 200000, "ops_per_s": 81234.5, "avg_ms": .., "min_ms": ..,
 *            "p50_ms": .., "p95_ms": .., "p99_ms": .., "max_ms": .., "server_cpu_share": 0.99,
 *            "jit_cpu_share": 0.01}, ...],
 *  "cold": [{"placement": "pinned", "durability": "no", "server": "cellar", "round": 1, "ready_s": 0.9,
 *            "test": "set", "pipeline": 1, "requests": 100000, "ops_per_s": .., "p50_ms": .., "p99_ms": ..,
 *            "jit_cpu_share": 0.4}, ...],
 *  "sustained": [{"placement": "pinned", "durability": "no", "server": "cellar", "round": 1,
 *                 "test": "set", "pipeline": 16, "requests": 10000000,
 *                 "ops_per_s": .., "p50_ms": .., "p99_ms": .., "wall_s": .., "server_cpu_s": ..,
 *                 "server_cpu_us_per_request": 2.29, "server_cpu_share": 0.99, "jit_cpu_share": 0.01,
 *                 "cpu_us_per_request_by_thread": {"event_loop": 1.6, "compaction": 0.5, ..},
 *                 "write_bytes": .., "cancelled_write_bytes": .., "acknowledged_bytes": ..,
 *                 "write_amplification": 2.1, "data_bytes_end": ..}, ...],
 *  "syscalls": [{"server": "cellar", "test": "set", "pipeline": 1, "requests": 100000,
 *                "total": 200345, "per_op": 2.003, "calls": {"sendto": 100001, ...}}, ...],
 *  "memory": [{"server": "redis", "round": 1, "vm_rss_bytes": .., "rss_anon_bytes": ..,
 *              "rss_file_bytes": .., "rss_shmem_bytes": .., "used_memory_rss_bytes": ..,
 *              "used_memory_bytes": ..}, ...],
 *  "targets": [{"target": "SET no P1, pinned", "required": "≥ 1.0x Redis ops/s",
 *               "measured": "..", "met": true}, ...],
 *  "failures": ["..."]}
 * }</pre>
 *
 * Every run is kept, not only the medians, so a later reader can judge the spread. Written by hand:
 * the module needs no JSON library for a shape this small.
 */
public final class JsonReport {
  private JsonReport() {}

  static String render(
      Map<String, Object> machine,
      Map<String, Object> config,
      Results results,
      List<Target.Verdict> verdicts) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("machine", machine);
    root.put("config", config);
    root.put("warmups", results.warmupRuns().stream().map(JsonReport::warmup).toList());
    root.put("runs", results.runs().stream().map(JsonReport::run).toList());
    root.put("cold", results.coldRuns().stream().map(JsonReport::cold).toList());
    root.put("sustained", results.sustainedRuns().stream().map(JsonReport::sustained).toList());
    root.put("syscalls", results.syscallRuns().stream().map(JsonReport::syscalls).toList());
    root.put("memory", results.memoryRuns().stream().map(JsonReport::memory).toList());
    root.put("targets", verdicts.stream().map(JsonReport::verdict).toList());
    root.put("failures", results.failures());
    StringBuilder json = new StringBuilder();
    append(json, root, "");
    return json.append('\n').toString();
  }

  /**
   * Any tree of maps, lists, numbers, booleans and strings in the same layout: for other
   * benchmarks' records.
   */
  public static String render(Map<String, Object> root) {
    StringBuilder json = new StringBuilder();
    append(json, root, "");
    return json.append('\n').toString();
  }

  /**
   * The fields that name a session: where it ran, at which durability, which server, which round.
   */
  private static Map<String, Object> session(
      String placement, Durability durability, ServerKind server, int round) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("placement", placement);
    m.put("durability", durability.id());
    m.put("server", server.id());
    m.put("round", round);
    return m;
  }

  /** A share of CPU time, to three decimals. */
  private static double share(double fraction) {
    return Math.round(fraction * 1000) / 1000.0;
  }

  private static Map<String, Object> run(Results.Run r) {
    Map<String, Object> m = session(r.placement(), r.durability(), r.server(), r.round());
    m.put("test", r.workload().test());
    m.put("pipeline", r.workload().pipeline());
    m.put("requests", r.workload().requests());
    m.put("ops_per_s", r.row().opsPerSecond());
    m.put("avg_ms", r.row().avgMs());
    m.put("min_ms", r.row().minMs());
    m.put("p50_ms", r.row().p50Ms());
    m.put("p95_ms", r.row().p95Ms());
    m.put("p99_ms", r.row().p99Ms());
    m.put("max_ms", r.row().maxMs());
    m.put("server_cpu_share", share(r.serverCpuShare()));
    m.put("jit_cpu_share", share(r.compilerCpuShare()));
    return m;
  }

  private static Map<String, Object> cold(Results.ColdRun c) {
    Map<String, Object> m = session(c.placement(), c.durability(), c.server(), c.round());
    m.put("ready_s", Math.round(c.readySeconds() * 1000) / 1000.0);
    m.put("test", c.workload().test());
    m.put("pipeline", c.workload().pipeline());
    m.put("requests", c.workload().requests());
    m.put("ops_per_s", c.row().opsPerSecond());
    m.put("p50_ms", c.row().p50Ms());
    m.put("p99_ms", c.row().p99Ms());
    m.put("jit_cpu_share", share(c.compilerCpuShare()));
    return m;
  }

  private static Map<String, Object> sustained(Results.SustainedRun r) {
    Map<String, Object> m = session("pinned", r.durability(), r.server(), r.round());
    m.put("test", r.workload().test());
    m.put("pipeline", r.workload().pipeline());
    m.put("requests", r.workload().requests());
    m.put("ops_per_s", r.row().opsPerSecond());
    m.put("p50_ms", r.row().p50Ms());
    m.put("p99_ms", r.row().p99Ms());
    m.put("wall_s", Math.round(r.wallSeconds() * 1000) / 1000.0);
    m.put("server_cpu_s", r.cost().cpuSeconds());
    m.put("server_cpu_us_per_request", micros(r.cpuMicrosPerRequest()));
    m.put("server_cpu_share", share(r.serverCpuShare()));
    m.put("jit_cpu_share", share(r.compilerCpuShare()));
    Map<String, Object> byThread = new LinkedHashMap<>();
    ProcessAccounting.ordered(r.cost().roleTicks())
        .keySet()
        .forEach(role -> byThread.put(role, micros(r.cpuMicrosPerRequest(role))));
    m.put("cpu_us_per_request_by_thread", byThread);
    m.put("write_bytes", r.cost().writeBytes());
    m.put("cancelled_write_bytes", r.cost().cancelledWriteBytes());
    m.put("acknowledged_bytes", r.acknowledgedBytes());
    m.put("write_amplification", Math.round(r.writeAmplification() * 1000) / 1000.0);
    m.put("data_bytes_end", r.dataBytes());
    return m;
  }

  /** Microseconds, to three decimals. */
  private static double micros(double us) {
    return Math.round(us * 1000) / 1000.0;
  }

  private static Map<String, Object> warmup(Results.WarmupRun w) {
    Map<String, Object> m = session(w.placement(), w.durability(), w.server(), w.round());
    m.put("warmup_rounds", w.rounds());
    m.put("last_round_jit_cpu_share", share(w.lastCompilerShare()));
    return m;
  }

  private static Map<String, Object> syscalls(Results.SyscallRun s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("server", s.server().id());
    m.put("test", s.workload().test());
    m.put("pipeline", s.workload().pipeline());
    m.put("requests", s.workload().requests());
    m.put("total", s.summary().totalCalls());
    m.put("per_op", Math.round(s.perOperation() * 10_000) / 10_000.0);
    m.put("calls", new LinkedHashMap<String, Object>(s.summary().calls()));
    return m;
  }

  private static Map<String, Object> memory(Results.MemoryRun r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("server", r.server().id());
    m.put("round", r.round());
    m.put("vm_rss_bytes", r.resident().vmRss());
    m.put("rss_anon_bytes", r.resident().rssAnon());
    m.put("rss_file_bytes", r.resident().rssFile());
    m.put("rss_shmem_bytes", r.resident().rssShmem());
    m.put("used_memory_rss_bytes", r.usedMemoryRss());
    m.put("used_memory_bytes", r.usedMemory());
    return m;
  }

  private static Map<String, Object> verdict(Target.Verdict v) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("target", v.target());
    m.put("required", v.required());
    m.put("measured", v.measured());
    m.put("met", v.met());
    return m;
  }

  /**
   * Lists of objects one object per line, and objects holding such lists one field per line; the
   * rest inline.
   */
  private static void append(StringBuilder json, Object value, String indent) {
    switch (value) {
      case null -> json.append("null");
      case Double d when d.isNaN() || d.isInfinite() -> json.append("null");
      case Number n -> json.append(n);
      case Boolean b -> json.append(b);
      case Map<?, ?> map -> appendObject(json, map, indent);
      case List<?> list -> appendList(json, list, indent);
      default -> appendString(json, value.toString());
    }
  }

  private static void appendObject(StringBuilder json, Map<?, ?> map, String indent) {
    boolean nested = map.values().stream().anyMatch(JsonReport::isListOfObjects);
    String inner = indent + "  ";
    json.append('{');
    Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<?, ?> e = it.next();
      json.append(nested ? "\n" + inner : "");
      appendString(json, e.getKey().toString());
      json.append(": ");
      append(json, e.getValue(), inner);
      json.append(it.hasNext() ? (nested ? "," : ", ") : "");
    }
    json.append(nested ? "\n" + indent + "}" : "}");
  }

  private static void appendList(StringBuilder json, List<?> list, String indent) {
    boolean objects = isListOfObjects(list);
    String inner = indent + "  ";
    json.append('[');
    for (int i = 0; i < list.size(); i++) {
      json.append(objects ? "\n" + inner : "");
      append(json, list.get(i), inner);
      json.append(i + 1 < list.size() ? (objects ? "," : ", ") : "");
    }
    json.append(objects ? "\n" + indent + "]" : "]");
  }

  private static boolean isListOfObjects(Object value) {
    return value instanceof List<?> list && !list.isEmpty() && list.getFirst() instanceof Map<?, ?>;
  }

  static void appendString(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }
}
