package dev.cellar.bench.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * SET throughput by {@code redis-benchmark}, the same tool and workload for every target: a single
 * server, or a cluster with {@code --cluster} (which reads the slot map and sends each command to
 * its slot's primary). Random keys over a key space of 100,000, so that every slot is written.
 */
final class SetThroughput {
  private final Path redisBenchmark;
  private final int clients;
  private final int pipeline;
  private final int requests;
  private final int valueBytes;

  SetThroughput(Path redisBenchmark, int clients, int pipeline, int requests, int valueBytes) {
    this.redisBenchmark = redisBenchmark;
    this.clients = clients;
    this.pipeline = pipeline;
    this.requests = requests;
    this.valueBytes = valueBytes;
  }

  /** The SET requests a second redis-benchmark reported against the server on {@code port}. */
  double run(int port, boolean cluster) throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                redisBenchmark.toString(),
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(port),
                "-t",
                "set",
                "-c",
                Integer.toString(clients),
                "-P",
                Integer.toString(pipeline),
                "-n",
                Integer.toString(requests),
                "-d",
                Integer.toString(valueBytes),
                "-r",
                "100000",
                "--csv"));
    if (cluster) {
      command.add("--cluster");
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("redis-benchmark failed:\n" + output);
    }
    for (String line : output.split("\n")) {
      // "SET","123456.78","0.123",...: the test's name, then requests a second
      if (line.startsWith("\"SET\"")) {
        String[] fields = line.split(",");
        return Double.parseDouble(fields[1].replace("\"", ""));
      }
    }
    throw new IOException("redis-benchmark printed no SET row:\n" + output);
  }

  String describe() {
    return "redis-benchmark -t set -c "
        + clients
        + " -P "
        + pipeline
        + " -n "
        + requests
        + " -d "
        + valueBytes
        + " -r 100000";
  }
}
