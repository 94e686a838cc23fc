package dev.cellar.bench.ipc;

import dev.cellar.bench.server.JsonReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The machine-readable record. Its shape is a contract other tooling reads:
 *
 * <pre>{@code
 * {"machine": {"cores": 2, ..., "settings": {...}, "command": "./cellar bench ipc ..."},
 *  "results": [{"transport": "shm", "batch": 1, "op": "get", "mode": "copy",
 *               "metric": "rtt_p50_ns", "value": 1234.0}, ...],
 *  "redis_results": [{"server": "redis", "client": "jedis", "transport": "tcp", "batch": 1,
 *                     "op": "get", "mode": "copy", "metric": "ops_per_s", "value": ..}, ...],
 *  "targets": [{"target": "..", "required": "..", "measured": "..", "met": false}, ...]}
 * }</pre>
 *
 * {@code mode} is {@code copy} (values handed over as new arrays; every SET, and Jedis) or {@code
 * zero-copy} (Cellar's GETs read in place). {@code results} holds Cellar's client only, one row per
 * metric, so a reader keyed on transport, batch, op and metric never mixes in Redis's rows, which
 * have an array of their own.
 */
final class IpcJson {
  private IpcJson() {}

  static String render(
      Map<String, Object> machine, IpcResults results, List<IpcTargets.Verdict> verdicts) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("machine", machine);
    root.put("results", rows(results.cellar(), false));
    root.put("redis_results", rows(results.redis(), true));
    List<Object> targets = new ArrayList<>();
    for (IpcTargets.Verdict v : verdicts) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("target", v.target());
      m.put("required", v.required());
      m.put("measured", v.measured());
      m.put("met", v.met());
      targets.add(m);
    }
    root.put("targets", targets);
    return JsonReport.render(root);
  }

  private static List<Object> rows(List<CellResult> cells, boolean named) {
    List<Object> rows = new ArrayList<>();
    for (CellResult c : cells) {
      c.metrics()
          .forEach(
              (metric, value) -> {
                Map<String, Object> row = new LinkedHashMap<>();
                if (named) {
                  row.put("server", c.server());
                  row.put("client", "jedis");
                }
                row.put("transport", c.transport());
                row.put("batch", c.batch());
                row.put("op", c.op().id());
                row.put("mode", c.mode().id());
                row.put("metric", metric);
                row.put("value", value);
                rows.add(row);
              });
    }
    return rows;
  }
}
