package dev.cellar.bench.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local Cellar cluster started as a user starts one, {@code cellar cluster start}, whose nodes
 * this run kills with SIGKILL and starts again with {@code cellar cluster restart-node}.
 */
final class LocalClusterRun implements AutoCloseable {
  private static final Pattern NODE = Pattern.compile("node (\\S+) pid (\\d+) port (\\d+)");

  private final Path launcher;
  private final Path dir;
  private final Process start;

  /** Node id to its pid and port, in the order the command printed them. */
  private final Map<String, long[]> nodes = new LinkedHashMap<>();

  LocalClusterRun(Path launcher, Path dir, int count, int basePort)
      throws IOException, InterruptedException {
    this.launcher = launcher;
    this.dir = dir;
    this.start =
        new ProcessBuilder(
                launcher.toString(),
                "cluster",
                "start",
                "--nodes",
                Integer.toString(count),
                "--dir",
                dir.toString(),
                "--base-port",
                Integer.toString(basePort))
            .redirectErrorStream(true)
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(start.getInputStream(), StandardCharsets.UTF_8));
    StringBuilder seen = new StringBuilder();
    while (nodes.size() < count) {
      String line = out.readLine();
      if (line == null) {
        throw new IOException("cellar cluster start ended early:\n" + seen);
      }
      seen.append(line).append('\n');
      Matcher m = NODE.matcher(line);
      if (m.find()) {
        nodes.put(m.group(1), new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
      }
    }
    // The command prints nothing more that matters; drain it so that it never blocks on a pipe.
    Thread drain =
        new Thread(
            () -> {
              try {
                while (out.readLine() != null) {
                  // discarded
                }
              } catch (IOException ignored) {
                // the command ended
              }
            },
            "cluster-start-output");
    drain.setDaemon(true);
    drain.start();
  }

  List<String> ids() {
    return new ArrayList<>(nodes.keySet());
  }

  int port(String id) {
    return (int) nodes.get(id)[1];
  }

  List<Integer> ports() {
    return nodes.values().stream().map(v -> (int) v[1]).toList();
  }

  /** The node listening on {@code port}, or null. */
  String nodeOnPort(int port) {
    for (var e : nodes.entrySet()) {
      if (e.getValue()[1] == port) {
        return e.getKey();
      }
    }
    return null;
  }

  /** SIGKILLs node {@code id} and waits until it has gone. */
  void kill(String id) throws InterruptedException {
    ProcessHandle handle = ProcessHandle.of(nodes.get(id)[0]).orElse(null);
    if (handle != null) {
      handle.destroyForcibly(); // SIGKILL
      handle.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> null).join();
    }
  }

  /** Starts node {@code id} again through the launcher, and records its new pid. */
  void restart(String id) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                launcher.toString(),
                "cluster",
                "restart-node",
                "--dir",
                dir.toString(),
                "--node",
                id)
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("restart-node " + id + " failed:\n" + output);
    }
    Matcher m = NODE.matcher(output);
    if (!m.find()) {
      throw new IOException("restart-node " + id + " printed no node line:\n" + output);
    }
    nodes.put(id, new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
  }

  /** SIGTERM to the start command, which stops every node; then waits for them. */
  @Override
  public void close() throws InterruptedException {
    start.destroy();
    if (!start.waitFor(60, TimeUnit.SECONDS)) {
      start.destroyForcibly();
    }
    for (long[] node : nodes.values()) {
      ProcessHandle.of(node[0]).ifPresent(ProcessHandle::destroyForcibly);
    }
  }
}
