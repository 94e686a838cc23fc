package dev.cellar.bench.ipc;

import dev.cellar.bench.server.Format;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * The Markdown report: for each batch and command the two transports side by side with their ratio
 * (throughput shm/tcp, round trip tcp/shm, server CPU per command shm/tcp), the targets judged on
 * these same cells, then Redis with Jedis next to Cellar's client. Latencies in microseconds, CPU
 * in nanoseconds per command.
 */
final class IpcReport {
  private IpcReport() {}

  static String render(
      String heading, IpcSettings settings, IpcResults results, List<IpcTargets.Verdict> verdicts) {
    StringBuilder md = new StringBuilder();
    md.append(heading).append("\n\n");
    if (!results.cellar().isEmpty()) {
      transports(md, settings, results);
      cpu(md, settings, results);
      targets(md, verdicts);
    }
    if (!results.redis().isEmpty()) {
      redis(md, settings, results);
    }
    md.append(
        "Mode `copy`: the client hands each GET's value over as a new array (`Pipeline.get`)."
            + " `zero-copy`: it lends a view of the value where it arrived (`Pipeline.read`): in"
            + " the response ring over shared memory, in its receive buffer over TCP; the"
            + " benchmark reads the value's length and first word there. SET copies the caller's"
            + " array once in both, so it has the one mode.\n");
    return md.toString();
  }

  private static void transports(StringBuilder md, IpcSettings settings, IpcResults results) {
    md.append(
        "| batch | op | mode | ops/s shm | ops/s tcp | shm/tcp | RTT p50 shm | RTT p50 tcp"
            + " | tcp/shm | RTT p99 shm | RTT p99 tcp | RTT p99.9 shm | RTT p99.9 tcp |\n");
    md.append("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Cell cell : cells(settings)) {
      Optional<CellResult> shm = results.cellar("shm", cell.batch, cell.op, cell.mode);
      Optional<CellResult> tcp = results.cellar("tcp", cell.batch, cell.op, cell.mode);
      md.append(
          row(
              Integer.toString(cell.batch),
              cell.op.id().toUpperCase(Locale.ROOT),
              cell.mode.id(),
              rate(shm),
              rate(tcp),
              ratio(shm, tcp, CellResult::opsPerSecond),
              micros(shm, c -> (double) c.rttP50()),
              micros(tcp, c -> (double) c.rttP50()),
              ratio(tcp, shm, c -> (double) c.rttP50()),
              micros(shm, c -> (double) c.rttP99()),
              micros(tcp, c -> (double) c.rttP99()),
              micros(shm, c -> (double) c.rttP999()),
              micros(tcp, c -> (double) c.rttP999())));
    }
    md.append(
        "\nRound trips (RTT) in µs: one batch, from its first command queued to its last reply"
            + " read.\n\n");
  }

  private static void cpu(StringBuilder md, IpcSettings settings, IpcResults results) {
    md.append(
        "| batch | op | mode | server CPU ns/op shm | tcp | shm/tcp | without JIT shm"
            + " | without JIT tcp | client CPU ns/op shm | tcp |\n");
    md.append("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Cell cell : cells(settings)) {
      Optional<CellResult> shm = results.cellar("shm", cell.batch, cell.op, cell.mode);
      Optional<CellResult> tcp = results.cellar("tcp", cell.batch, cell.op, cell.mode);
      md.append(
          row(
              Integer.toString(cell.batch),
              cell.op.id().toUpperCase(Locale.ROOT),
              cell.mode.id(),
              nanos(shm, CellResult::serverCpuPerOp),
              nanos(tcp, CellResult::serverCpuPerOp),
              ratio(shm, tcp, CellResult::serverCpuPerOp),
              nanos(shm, IpcReport::serverCpuWithoutJit),
              nanos(tcp, IpcReport::serverCpuWithoutJit),
              nanos(shm, IpcReport::clientCpu),
              nanos(tcp, IpcReport::clientCpu)));
    }
    md.append(
        "\nServer CPU: the server process's utime + stime (`/proc/<pid>/stat`, 10 ms ticks) over"
            + " the timed part, per command; \"without JIT\" leaves out its C1/C2 compiler threads"
            + " (`/proc/<pid>/task/*/stat`). Client CPU: the benchmark JVM's, the same way.\n\n");
  }

  private static void targets(StringBuilder md, List<IpcTargets.Verdict> verdicts) {
    md.append("| target | required | measured (same run) | met |\n|---|---|---|---|\n");
    for (IpcTargets.Verdict v : verdicts) {
      md.append(
          row(
              v.target(),
              v.required(),
              v.measured(),
              v.met() == null ? "-" : v.met() ? "yes" : "**no**"));
    }
    md.append('\n');
  }

  private static void redis(StringBuilder md, IpcSettings settings, IpcResults results) {
    md.append(
        "Redis with Jedis over loopback TCP, the same keys, values and batches, next to Cellar's"
            + " client:\n\n");
    md.append(
        "| batch | op | ops/s redis+jedis | ops/s cellar tcp | ops/s cellar shm | RTT p50 redis"
            + " | RTT p99 redis | RTT p99.9 redis | server CPU ns/op redis | cellar tcp"
            + " | cellar shm |\n");
    md.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int batch : settings.batches()) {
      for (Op op : settings.ops()) {
        Optional<CellResult> redis = results.redis(batch, op);
        Optional<CellResult> shm = results.cellar("shm", batch, op);
        Optional<CellResult> tcp = results.cellar("tcp", batch, op);
        md.append(
            row(
                Integer.toString(batch),
                op.id().toUpperCase(Locale.ROOT),
                rate(redis),
                rate(tcp),
                rate(shm),
                micros(redis, c -> (double) c.rttP50()),
                micros(redis, c -> (double) c.rttP99()),
                micros(redis, c -> (double) c.rttP999()),
                nanos(redis, CellResult::serverCpuPerOp),
                nanos(tcp, CellResult::serverCpuPerOp),
                nanos(shm, CellResult::serverCpuPerOp)));
      }
    }
    md.append('\n');
  }

  /** One row of Cellar's tables: a batch, a command and a mode the run measured it in. */
  private record Cell(int batch, Op op, Mode mode) {}

  private static List<Cell> cells(IpcSettings settings) {
    List<Cell> cells = new java.util.ArrayList<>();
    for (int batch : settings.batches()) {
      for (Op op : settings.ops()) {
        for (Mode mode : settings.modes()) {
          if (mode.appliesTo(op)) {
            cells.add(new Cell(batch, op, mode));
          }
        }
      }
    }
    return cells;
  }

  private static double serverCpuWithoutJit(CellResult c) {
    return (double) (c.serverCpuNanos() - c.serverJitNanos()) / c.operations();
  }

  private static double clientCpu(CellResult c) {
    return (double) c.clientCpuNanos() / c.operations();
  }

  private static String rate(Optional<CellResult> cell) {
    return cell.map(c -> Format.rate(c.opsPerSecond())).orElse("-");
  }

  private static String micros(Optional<CellResult> cell, Function<CellResult, Double> nanos) {
    return cell.map(c -> String.format(Locale.ROOT, "%.2f", nanos.apply(c) / 1000)).orElse("-");
  }

  private static String nanos(Optional<CellResult> cell, Function<CellResult, Double> nanos) {
    return cell.map(c -> String.format(Locale.ROOT, "%,.0f", nanos.apply(c))).orElse("-");
  }

  /** {@code metric(a) / metric(b)}, or "-" when either is missing or the divisor is zero. */
  private static String ratio(
      Optional<CellResult> a, Optional<CellResult> b, Function<CellResult, Double> metric) {
    if (a.isEmpty() || b.isEmpty() || metric.apply(b.get()) == 0) {
      return "-";
    }
    return Format.ratio(metric.apply(a.get()) / metric.apply(b.get()));
  }

  private static String row(String... cells) {
    return "| " + String.join(" | ", cells) + " |\n";
  }
}
