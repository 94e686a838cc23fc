package dev.cellar.cli.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code cellar server ...} in a JVM of its own, as the launcher runs it, with its standard output
 * and error kept in files: what a person starting it would see, and what a signal does to it.
 */
final class ServerProcess implements AutoCloseable {
  /** The launcher's JVM options for the server (see the {@code cellar} script). */
  static final List<String> LAUNCHER_OPTIONS =
      List.of(
          "--enable-native-access=ALL-UNNAMED",
          "-XX:+UseSerialGC",
          "-Xms8m",
          "-Xmx1g",
          "-XX:-ShrinkHeapInSteps",
          "-Xss512k",
          "-Dio.netty.jfr.enabled=false",
          "-Dio.netty.leakDetection.level=disabled");

  /** The one format of a log line: timestamp, level, component, message. */
  static final Pattern LOG_LINE =
      Pattern.compile(
          "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z (TRACE|DEBUG|INFO|WARNING|ERROR) +\\[[a-z.]+\\] .+");

  private static final Pattern LISTENING = Pattern.compile("RESP on 127\\.0\\.0\\.1:(\\d+)");

  private final Process process;
  private final Path stdout;
  private final Path stderr;

  private ServerProcess(Process process, Path stdout, Path stderr) {
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  /** Runs {@code cellar server args...}; output goes to files in {@code outputDir}. */
  static ServerProcess run(Path outputDir, String... args) throws IOException {
    return run(outputDir, List.of(), args);
  }

  /** Runs {@code cellar server args...} with {@code jvmOptions} after the launcher's. */
  static ServerProcess run(Path outputDir, List<String> jvmOptions, String... args)
      throws IOException {
    return run(outputDir, java.util.Map.of(), jvmOptions, args);
  }

  /** As {@link #run(Path, List, String...)}, with {@code environment} added to the process's. */
  static ServerProcess run(
      Path outputDir,
      java.util.Map<String, String> environment,
      List<String> jvmOptions,
      String... args)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(LAUNCHER_OPTIONS);
    cmd.addAll(jvmOptions);
    cmd.addAll(
        List.of("-cp", System.getProperty("java.class.path"), "dev.cellar.cli.Main", "server"));
    cmd.addAll(List.of(args));
    Files.createDirectories(outputDir);
    Path out = Files.createTempFile(outputDir, "stdout", ".txt");
    Path err = Files.createTempFile(outputDir, "stderr", ".txt");
    ProcessBuilder builder = new ProcessBuilder(cmd);
    builder.environment().putAll(environment);
    Process p = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    return new ServerProcess(p, out, err);
  }

  /**
   * Waits for the line saying where RESP listens, in {@code log} (standard output or a log file);
   * returns the port.
   */
  int awaitPort(Path log) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Files.exists(log)) {
        Matcher m = LISTENING.matcher(Files.readString(log, StandardCharsets.UTF_8));
        if (m.find()) {
          return Integer.parseInt(m.group(1));
        }
      }
      if (!process.isAlive()) {
        break;
      }
      Thread.sleep(20);
    }
    throw new IOException("the server did not start listening; " + this);
  }

  int awaitPort() throws IOException, InterruptedException {
    return awaitPort(stdout);
  }

  /** Waits up to 60 s for the process to exit; returns its exit code. */
  int awaitExit() throws InterruptedException, IOException {
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new IOException("the server did not exit; " + this);
    }
    return process.exitValue();
  }

  /** {@code kill -<name>} (TERM, INT: what Ctrl-C sends), and the exit code. */
  int signal(String name) throws InterruptedException, IOException {
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + name + " failed");
    }
    return awaitExit();
  }

  /** SIGTERM, and its exit code. */
  int terminate() throws InterruptedException, IOException {
    process.destroy();
    return awaitExit();
  }

  String stdout() throws IOException {
    return Files.readString(stdout, StandardCharsets.UTF_8);
  }

  String stderr() throws IOException {
    return Files.readString(stderr, StandardCharsets.UTF_8);
  }

  /** One RESP command over a connection of its own; returns the reply's first line. */
  static String command(int port, String... args) throws IOException {
    StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
    for (String a : args) {
      b.append('$')
          .append(a.getBytes(StandardCharsets.UTF_8).length)
          .append("\r\n")
          .append(a)
          .append("\r\n");
    }
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(b.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = s.getInputStream();
      StringBuilder line = new StringBuilder();
      int c;
      while ((c = in.read()) >= 0 && c != '\n') {
        if (c != '\r') {
          line.append((char) c);
        }
      }
      return line.toString();
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public String toString() {
    try {
      return "exit "
          + (process.isAlive() ? "(running)" : process.exitValue())
          + "\n--- stdout\n"
          + stdout()
          + "--- stderr\n"
          + stderr();
    } catch (IOException e) {
      return e.toString();
    }
  }
}
