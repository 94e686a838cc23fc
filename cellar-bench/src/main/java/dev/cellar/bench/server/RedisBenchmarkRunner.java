package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@code redis-benchmark} against one server, on the client's core when pinned, and returns
 * its summary line. Its stdout (the CSV) and stderr (warnings, such as "Could not fetch server
 * CONFIG" from servers without every CONFIG parameter) go to separate files in the work directory.
 */
final class RedisBenchmarkRunner {
  private final Tools tools;
  private final ChildProcesses children;
  private final Path workDir;

  RedisBenchmarkRunner(Tools tools, ChildProcesses children, Path workDir) {
    this.tools = tools;
    this.children = children;
    this.workDir = workDir;
  }

  RedisBenchmarkCsv.Row run(int port, Placement placement, Workload workload)
      throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                tools.redisBenchmark().toString(),
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(port)));
    command.addAll(workload.arguments());
    Path stdout = workDir.resolve("redis-benchmark.csv");
    Path stderr = workDir.resolve("redis-benchmark.err");
    Process process = children.startHelper(placement.onClientCpu(command), stdout, stderr);
    process.getOutputStream().close();
    int status = children.await(process, workload.timeoutSeconds());
    String csv = Files.readString(stdout);
    if (status != 0) {
      throw new IOException(
          "redis-benchmark "
              + String.join(" ", workload.arguments())
              + " exited with status "
              + status
              + (status == -1 ? " (timed out)" : "")
              + ":\n"
              + csv
              + Files.readString(stderr));
    }
    String expected = workload.csvName();
    for (RedisBenchmarkCsv.Row row : RedisBenchmarkCsv.parse(csv)) {
      // LRANGE_100 is printed "LRANGE_100 (first 100 elements)", after the LPUSH that fills it.
      if (row.test().equals(expected) || row.test().startsWith(expected + " (")) {
        return row;
      }
    }
    throw new IOException(
        "redis-benchmark printed no " + expected + " line:\n" + csv + Files.readString(stderr));
  }
}
