package dev.cellar.bench.atrest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One timed step: its wall time, and the CPU time the client (its JVM, every thread) and the
 * endpoint (s3proxy's JVM) spent meanwhile, from {@code /proc/<pid>/stat} (utime + stime, in 10 ms
 * ticks): where a transfer's time goes, and which side is the bottleneck.
 */
record Measured(double seconds, double clientCpu, double serverCpu) {
  interface Step {
    void run() throws Exception;
  }

  /** {@code step}, run by the client process {@code clientPid} against {@code serverPid}. */
  static Measured of(long clientPid, long serverPid, Step step) throws IOException {
    long client0 = ticks(clientPid);
    long server0 = serverPid > 0 ? ticks(serverPid) : 0;
    long begin = System.nanoTime();
    try {
      step.run();
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
    double seconds = (System.nanoTime() - begin) / 1e9;
    double client = (ticks(clientPid) - client0) / 100.0;
    double server = serverPid > 0 ? (ticks(serverPid) - server0) / 100.0 : 0;
    return new Measured(seconds, client, server);
  }

  /** utime + stime of {@code pid}, in clock ticks. */
  static long ticks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // After the command: state is field 3, utime 14, stime 15 (1-based over the whole line).
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }
}
