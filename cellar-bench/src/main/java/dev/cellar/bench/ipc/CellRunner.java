package dev.cellar.bench.ipc;

import dev.cellar.bench.server.ServerProcess;
import dev.cellar.bench.workload.KeySpace;
import java.io.IOException;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Runs one cell: warm-up, then the timed part, one batch after another from one thread, each batch
 * a pipeline of {@code batch} commands on random loaded keys and its replies.
 *
 * <p>A round trip is timed from the first command queued to the last reply read: what the
 * application waits for, encoding and decoding included. Keys are drawn and encoded before that
 * clock starts. The random keys come from a generator seeded by the run's seed, the batch size and
 * the command, so both transports and Redis are sent the same keys in the same order.
 *
 * <p>Server CPU is read from {@code /proc/<pid>/stat} (utime + stime, through {@link
 * ServerProcess#cpuTime()}) and its compiler threads' from {@code /proc/<pid>/task/*}/stat just
 * before and just after the timed part; both are in clock ticks (10 ms), so a cell must last long
 * enough for that to be small.
 */
final class CellRunner {
  private final KeySpace keys;
  private final byte[] value;
  private final long seed;
  private final Duration warmup;
  private final Duration timed;

  CellRunner(KeySpace keys, byte[] value, long seed, Duration warmup, Duration timed) {
    this.keys = keys;
    this.value = value;
    this.seed = seed;
    this.warmup = warmup;
    this.timed = timed;
  }

  CellResult run(
      String serverName,
      String transport,
      BatchClient client,
      ServerProcess server,
      Op op,
      Mode mode,
      int batch)
      throws IOException {
    SplittableRandom random = new SplittableRandom(seed * 1_000_003L + batch * 2L + op.ordinal());
    byte[][] batchKeys = new byte[batch][];
    drive(client, op, mode, batchKeys, random, warmup.toNanos(), null);

    LatencySamples samples = new LatencySamples();
    long serverCpu0 = server.cpuTime().toNanos();
    long serverJit0 = server.compilerCpuTime().toNanos();
    long clientCpu0 = clientCpuNanos();
    long start = System.nanoTime();
    long operations = drive(client, op, mode, batchKeys, random, timed.toNanos(), samples);
    long end = System.nanoTime();
    long clientCpu = clientCpuNanos() - clientCpu0;
    long serverCpu = server.cpuTime().toNanos() - serverCpu0;
    long serverJit = server.compilerCpuTime().toNanos() - serverJit0;

    return new CellResult(
        serverName,
        transport,
        batch,
        op,
        mode,
        operations,
        (end - start) / 1e9,
        samples.percentile(50),
        samples.percentile(99),
        samples.percentile(99.9),
        samples.percentile(100),
        samples.mean(),
        serverCpu,
        serverJit,
        clientCpu);
  }

  /** Batches until {@code nanos} have passed; returns the commands sent. */
  private long drive(
      BatchClient client,
      Op op,
      Mode mode,
      byte[][] batchKeys,
      SplittableRandom random,
      long nanos,
      LatencySamples samples) {
    long deadline = System.nanoTime() + nanos;
    long operations = 0;
    long done;
    do {
      for (int i = 0; i < batchKeys.length; i++) {
        batchKeys[i] = keys.key(random.nextLong(keys.keys()));
      }
      long sent = System.nanoTime();
      client.run(op, mode, batchKeys, value);
      done = System.nanoTime();
      if (samples != null) {
        samples.add(done - sent);
      }
      operations += batchKeys.length;
    } while (done < deadline);
    return operations;
  }

  private static long clientCpuNanos() {
    return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO).toNanos();
  }
}
