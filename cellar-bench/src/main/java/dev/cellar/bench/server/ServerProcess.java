package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One running server under test: started in the foreground, ready once it answers PING, stopped by
 * {@link #close()} the way its kind is told to stop (and killed if it does not within {@link
 * #STOP_TIMEOUT}).
 *
 * <p>Owned by the benchmark's main thread; {@link #close()} may also run on the shutdown hook's
 * thread, hence synchronized.
 */
public final class ServerProcess implements AutoCloseable {
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  private final ServerKind kind;
  private final Process process;
  private final int port;
  private final Path log;
  private final ChildProcesses children;

  /**
   * The server's requirepass, with which the harness's own connections authenticate; null for none.
   */
  private volatile String password;

  private boolean closed;

  private ServerProcess(
      ServerKind kind, Process process, int port, Path log, ChildProcesses children) {
    this.kind = kind;
    this.process = process;
    this.port = port;
    this.log = log;
    this.children = children;
  }

  /**
   * Starts the server with its output in {@code log} and returns once it answers PING.
   *
   * @throws IOException if it exits first, does not answer within {@code readyTimeout}, or is not
   *     the program its kind expects (a launcher that forks instead of exec-ing)
   */
  public static ServerProcess start(
      ServerKind kind,
      Tools tools,
      List<String> command,
      int port,
      Path log,
      ChildProcesses children,
      Duration readyTimeout)
      throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    ServerProcess server = new ServerProcess(kind, process, port, log, children);
    try {
      children.add(server);
      server.awaitPong(readyTimeout);
      server.checkProgram(tools);
      return server;
    } catch (IOException | InterruptedException | RuntimeException e) {
      server.close();
      throw e;
    }
  }

  /**
   * Starts Cellar's server through the {@code cellar} launcher, exactly as a user does: {@code
   * cellarScript server ARGUMENTS...}, and returns once it answers PING on {@code port}.
   */
  public static ServerProcess startCellar(
      Path cellarScript,
      List<String> arguments,
      int port,
      Path log,
      ChildProcesses children,
      Duration readyTimeout)
      throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of(cellarScript.toString(), "server"));
    command.addAll(arguments);
    return startCellar(command, port, log, children, readyTimeout);
  }

  /**
   * Starts Cellar's server from {@code command} (the {@code cellar} launcher, or the java command
   * line it execs) and returns once it answers PING. Cellar's check that the pid runs java needs
   * none of the benchmark's other tools, hence no {@link Tools}.
   */
  public static ServerProcess startCellar(
      List<String> command, int port, Path log, ChildProcesses children, Duration readyTimeout)
      throws IOException, InterruptedException {
    return start(ServerKind.CELLAR, null, command, port, log, children, readyTimeout);
  }

  /**
   * Starts Cellar's server from {@code command}, which sets {@code requirepass} to {@code
   * password}, and returns once it answers PING to an authenticated connection; {@link #connect()}
   * then authenticates too.
   */
  public static ServerProcess startCellar(
      List<String> command,
      int port,
      String password,
      Path log,
      ChildProcesses children,
      Duration readyTimeout)
      throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    ServerProcess server = new ServerProcess(ServerKind.CELLAR, process, port, log, children);
    server.password = password;
    try {
      children.add(server);
      server.awaitPong(readyTimeout);
      server.checkProgram(null);
      return server;
    } catch (IOException | InterruptedException | RuntimeException e) {
      server.close();
      throw e;
    }
  }

  private void awaitPong(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IOException(
            kind.id()
                + " exited with status "
                + process.exitValue()
                + " before answering PING; its output:\n"
                + logTail());
      }
      try (RespClient client = RespClient.connect(port, Duration.ofSeconds(2), password)) {
        if ("PONG".equals(client.call("PING"))) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet, or still loading
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            kind.id()
                + " did not answer PING on port "
                + port
                + " within "
                + timeout.toSeconds()
                + " s; its output:\n"
                + logTail());
      }
      Thread.sleep(10); // the cold row times the start to the first PONG: to within 10 ms
    }
  }

  private void checkProgram(Tools tools) throws IOException {
    String running = process.info().command().orElse("");
    if (!running.isEmpty() && !kind.isServerProgram(Path.of(running), tools)) {
      throw new IOException(
          "expected pid "
              + pid()
              + " to run "
              + kind.id()
              + " but it runs "
              + running
              + ": the launcher must exec the server, or strace and /proc readings measure the wrong process");
    }
  }

  ServerKind kind() {
    return kind;
  }

  public Process process() {
    return process;
  }

  public long pid() {
    return process.pid();
  }

  public int port() {
    return port;
  }

  public RespClient connect() throws IOException {
    return RespClient.connect(port, CALL_TIMEOUT, password);
  }

  /** Resident memory now, from {@code /proc/<pid>/status}. */
  public ResidentMemory residentMemory() throws IOException {
    return ResidentMemory.parse(Files.readString(Path.of("/proc", Long.toString(pid()), "status")));
  }

  /** User plus system CPU time of all the server's threads so far. */
  public Duration cpuTime() {
    return process.info().totalCpuDuration().orElse(Duration.ZERO);
  }

  /** CPU time the server's JIT compiler threads have used so far; zero for a native server. */
  public Duration compilerCpuTime() throws IOException {
    return CompilerThreads.cpuTime(pid());
  }

  /** The end of the server's output, for error messages. */
  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }

  /**
   * Kills the server with SIGKILL, as a crash would (nothing runs on the way out), and waits for it
   * to be gone; returns its exit status (137). The process is then no longer tracked.
   */
  public synchronized int kill() throws InterruptedException {
    try {
      process.destroyForcibly(); // SIGKILL on Linux
      return process.waitFor();
    } finally {
      closed = true;
      children.finished(this);
    }
  }

  /** Stops the server: politely, then by SIGKILL after {@link #STOP_TIMEOUT}. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (process.isAlive()) {
        kind.requestStop(this);
        if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      children.finished(this);
    }
  }
}
