package dev.cellar.bench.ipc;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one {@code cellar bench ipc} run measures, checked once before anything starts.
 *
 * @param keys keys loaded before measuring, and drawn from at random
 * @param valueSize bytes of every value
 * @param timed the timed part of each cell
 * @param warmup the untimed part before it
 * @param pinned whether the server runs on {@code serverCpu} and this JVM on {@code clientCpu}
 * @param ringBytes each shared-memory ring's size, or 0 for the client's default
 * @param seed the random keys' seed
 */
record IpcSettings(
    int keys,
    int valueSize,
    Duration timed,
    Duration warmup,
    List<Integer> batches,
    List<IpcTransport> transports,
    List<Op> ops,
    List<Mode> modes,
    boolean redis,
    boolean pinned,
    int serverCpu,
    int clientCpu,
    int ringBytes,
    long seed) {

  /** Commands per pipeline while loading the keys. */
  static final int LOAD_BATCH = 1000;

  IpcSettings {
    batches = List.copyOf(batches);
    transports = List.copyOf(transports);
    ops = List.copyOf(ops);
    modes = List.copyOf(modes);
    if (keys < 1) {
      throw new IllegalArgumentException("--keys must be positive, got " + keys);
    }
    if (valueSize < 1) {
      throw new IllegalArgumentException("--value-size must be positive, got " + valueSize);
    }
    if (timed.isNegative() || timed.isZero()) {
      throw new IllegalArgumentException("--seconds must be positive, got " + timed);
    }
    if (warmup.isNegative()) {
      throw new IllegalArgumentException("--warmup-seconds must not be negative, got " + warmup);
    }
    for (int batch : batches) {
      if (batch < 1 || batch > 100_000) {
        throw new IllegalArgumentException("a batch must be 1 to 100000 commands, got " + batch);
      }
    }
    if (batches.isEmpty() || ops.isEmpty() || modes.isEmpty() || (transports.isEmpty() && !redis)) {
      throw new IllegalArgumentException(
          "nothing to measure: --batches "
              + batches
              + ", --ops "
              + ops
              + ", --modes "
              + modes
              + ", --transports "
              + transports
              + ", Redis "
              + (redis ? "on" : "off"));
    }
    if (pinned && serverCpu == clientCpu) {
      throw new IllegalArgumentException(
          "pinning needs two distinct cores, got --server-cpu "
              + serverCpu
              + " and --client-cpu "
              + clientCpu
              + " (or pass --no-pin)");
    }
  }

  /** For the JSON record. */
  Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("keys", keys);
    m.put("value_bytes", valueSize);
    m.put("seconds_per_cell", timed.toMillis() / 1000.0);
    m.put("warmup_seconds_per_cell", warmup.toMillis() / 1000.0);
    m.put("batches", batches);
    m.put("transports", transports.stream().map(IpcTransport::id).toList());
    m.put("ops", ops.stream().map(Op::id).toList());
    m.put("modes", modes.stream().map(Mode::id).toList());
    m.put("redis", redis);
    m.put("pinned", pinned);
    if (pinned) {
      m.put("server_cpu", serverCpu);
      m.put("client_cpu", clientCpu);
    }
    m.put("ring_bytes", ringBytes == 0 ? "client default" : ringBytes);
    m.put("seed", seed);
    m.put("client_threads", 1);
    m.put("cellar_io_threads", 1);
    m.put("cellar_ipc_agents", 1);
    m.put("durability", "no");
    return m;
  }
}
