package dev.cellar.server.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A server in a JVM of its own, started with exactly the launcher's JVM options ({@link
 * ServerJvmTest#LAUNCHER_OPTIONS}: serial GC, a 1 GiB heap, 512 KiB thread stacks), so that what a
 * load test does to memory happens as it would in production: an OutOfMemoryError shows in the
 * child's output (which this keeps in a file, both streams) and kills or cripples it, instead of
 * hiding in the test JVM's much larger heap.
 */
final class ServerJvm implements AutoCloseable {
  private final Process process;
  private final Path output;
  private final int port;

  private ServerJvm(Process process, Path output, int port) {
    this.process = process;
    this.output = output;
    this.port = port;
  }

  /**
   * Starts {@link ChildServerMain} on {@code dir} with HTTP off and the given settings, and waits
   * until it listens.
   */
  static ServerJvm start(Path dir, String... settings) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(ServerJvmTest.LAUNCHER_OPTIONS);
    cmd.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            ChildServerMain.class.getName(),
            dir.resolve("data").toString(),
            "0"));
    cmd.addAll(List.of(settings));
    Path output = dir.resolve("server-output.txt");
    Process process =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
        if (line.startsWith("PORT ")) {
          return new ServerJvm(process, output, Integer.parseInt(line.substring(5).trim()));
        }
      }
      if (!process.isAlive()) {
        break;
      }
      Thread.sleep(20);
    }
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    throw new IOException(
        "the server JVM did not start listening; its output:\n" + Files.readString(output));
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Both output streams of the child so far. */
  String output() throws IOException {
    return Files.readString(output, StandardCharsets.UTF_8);
  }

  /** {@code VmRSS} of the child, from {@code /proc/<pid>/status}, in bytes. */
  long residentBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
      }
    }
    throw new IOException("no VmRSS line for pid " + pid());
  }

  /** The soft limit on open files of the child, from {@code /proc/<pid>/limits}. */
  long openFilesLimit() throws IOException {
    return OpenFiles.softLimit(Path.of("/proc", Long.toString(pid()), "limits"));
  }

  /** The fields of {@code INFO section}, over a connection of its own. */
  Map<String, String> info(String section) throws IOException {
    try (RawClient c = new RawClient(port)) {
      String header = c.send("INFO", section).readLine();
      if (!header.startsWith("$")) {
        throw new IOException("INFO " + section + " replied " + header);
      }
      String body = c.read(Integer.parseInt(header.substring(1).trim()) + 2);
      Map<String, String> fields = new HashMap<>();
      for (String line : body.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && !line.startsWith("#")) {
          fields.put(line.substring(0, colon), line.substring(colon + 1));
        }
      }
      return fields;
    }
  }

  long infoNumber(String section, String field) throws IOException {
    String value = info(section).get(field);
    if (value == null) {
      throw new IOException("INFO " + section + " has no field " + field);
    }
    return Long.parseLong(value);
  }

  /** SIGTERM, then SIGKILL if it has not exited within 30 s. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** The soft {@code Max open files} limit in a {@code /proc/<pid>/limits} file. */
  static final class OpenFiles {
    private OpenFiles() {}

    static long softLimit(Path limits) throws IOException {
      for (String line : Files.readAllLines(limits)) {
        if (line.startsWith("Max open files")) {
          String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
          return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
        }
      }
      throw new IOException("no 'Max open files' line in " + limits);
    }
  }
}
