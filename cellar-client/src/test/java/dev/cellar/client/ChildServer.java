package dev.cellar.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link ChildServerMain} in a child JVM with the launcher's essential options; {@link #kill()}
 * sends SIGKILL, and {@link #restart()} starts a new one on the same directory and port.
 */
final class ChildServer implements AutoCloseable {
  private final Path dir;
  private final String[] settings;
  private Process process;
  private Path output;
  private int port;
  private int starts;

  private ChildServer(Path dir, String[] settings) {
    this.dir = dir;
    this.settings = settings;
  }

  static ChildServer start(Path dir, String... settings) throws IOException, InterruptedException {
    ChildServer server = new ChildServer(dir, settings);
    server.launch(0);
    return server;
  }

  int port() {
    return port;
  }

  String uri() {
    return "cellar://127.0.0.1:" + port;
  }

  /** SIGKILL, and waits for the process to be gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
  }

  /** A new server on the same directory and port. */
  void restart() throws IOException, InterruptedException {
    launch(port);
  }

  private void launch(int wantedPort) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(
        List.of(
            "--enable-native-access=ALL-UNNAMED",
            "-XX:+UseSerialGC",
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            ChildServerMain.class.getName(),
            dir.resolve("data").toString(),
            Integer.toString(wantedPort)));
    cmd.addAll(List.of(settings));
    output = dir.resolve("server-" + ++starts + ".txt");
    process =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
        if (line.startsWith("PORT ")) {
          port = Integer.parseInt(line.substring(5).trim());
          return;
        }
      }
      if (!process.isAlive()) {
        break;
      }
      Thread.sleep(20);
    }
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    throw new IOException("the server did not start; its output:\n" + Files.readString(output));
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
