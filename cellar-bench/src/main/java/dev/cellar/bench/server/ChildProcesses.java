package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Every process the benchmark starts, until it has ended, so that nothing outlives the benchmark:
 * not a failure, not Ctrl-C. Servers are stopped the way each one is told to stop (see {@link
 * ServerProcess#close()}); helpers (redis-benchmark, redis-cli, strace) get SIGTERM; the scratch
 * directory of data and logs is removed.
 *
 * <p>Concurrency: the main thread adds and removes; the shutdown hook thread drains what is left.
 * Once the hook has begun, nothing new may start: the main thread keeps running during JVM shutdown
 * and would otherwise start the next session's server after the hook's sweep.
 */
public final class ChildProcesses {
  private final Set<ServerProcess> servers = ConcurrentHashMap.newKeySet();
  private final Set<Process> helpers = ConcurrentHashMap.newKeySet();
  private volatile Path scratch;
  private volatile boolean stopping;

  public ChildProcesses() {}

  /** Stops whatever is still running when the JVM exits, normally or by a signal. */
  public ChildProcesses installShutdownHook() {
    Runtime.getRuntime().addShutdownHook(new Thread(this::stopAll, "server-bench-cleanup"));
    return this;
  }

  /**
   * Starts a helper with its output in files and tracks it until {@link #await} or {@link
   * #finished}. Its stdin is a pipe the caller may write to (or must close).
   */
  Process startHelper(List<String> command, Path stdout, Path stderr) throws IOException {
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .start();
    helpers.add(process);
    if (stopping) {
      process.destroy();
      throw new IOException("the benchmark is shutting down");
    }
    return process;
  }

  /** A directory to delete at exit, after the servers writing into it have stopped (null: none). */
  public void deleteAtExit(Path directory) {
    scratch = directory;
  }

  /**
   * Tracks a started server.
   *
   * @throws IOException if the benchmark is shutting down: the caller must stop the server, since
   *     the shutdown hook may already have passed it by
   */
  void add(ServerProcess server) throws IOException {
    servers.add(server);
    if (stopping) {
      throw new IOException("the benchmark is shutting down");
    }
  }

  void finished(ServerProcess server) {
    servers.remove(server);
  }

  void finished(Process helper) {
    helpers.remove(helper);
  }

  /**
   * Waits for a helper, SIGTERMs it after {@code timeoutSeconds}, and returns its exit status
   * ({@code -1} if it had to be stopped).
   */
  int await(Process helper, long timeoutSeconds) throws InterruptedException {
    try {
      if (helper.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        return helper.exitValue();
      }
      helper.destroy();
      if (!helper.waitFor(10, TimeUnit.SECONDS)) {
        helper.destroyForcibly().waitFor();
      }
      return -1;
    } finally {
      helpers.remove(helper);
    }
  }

  private void stopAll() {
    stopping = true;
    for (Process helper : new ArrayList<>(helpers)) {
      helper.destroy();
    }
    for (ServerProcess server : new ArrayList<>(servers)) {
      server.close();
    }
    Path directory = scratch;
    if (directory != null) {
      try {
        ScratchDirectory.delete(directory);
      } catch (IOException e) {
        System.err.println("could not remove " + directory + ": " + e);
      }
    }
  }
}
