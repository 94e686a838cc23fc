package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Counts a server's syscalls with {@code strace -c -f -p PID} while a workload runs. With {@code
 * -p}, {@code -f} attaches to every existing thread of the process (a JVM has a dozen or more:
 * event loop, GC, compiler, flusher) and follows any it starts, so the count is the whole
 * process's, not one thread's.
 *
 * <p>strace stops every thread at every syscall, so the server runs far slower while traced: the
 * counts are comparable between servers, the speed is not, and no throughput is taken from a traced
 * run. strace runs on the client's core when pinned, so it does not share the server's.
 */
final class SyscallTracer {
  private static final long ATTACH_TIMEOUT_MS = 30_000;

  private final Tools tools;
  private final ChildProcesses children;
  private final Path workDir;

  SyscallTracer(Tools tools, ChildProcesses children, Path workDir) {
    this.tools = tools;
    this.children = children;
    this.workDir = workDir;
  }

  /** A body of work to trace: typically a redis-benchmark run. */
  interface Traced {
    void run() throws IOException, InterruptedException;
  }

  /**
   * Attaches to the server, runs {@code work}, detaches, and returns the syscalls counted
   * meanwhile.
   */
  StraceSummary trace(ServerProcess server, Placement placement, Traced work)
      throws IOException, InterruptedException {
    Path summary = workDir.resolve("strace-summary.txt");
    Path messages = workDir.resolve("strace-messages.txt");
    Files.deleteIfExists(summary);
    List<String> command =
        new ArrayList<>(
            List.of(
                tools.strace().orElseThrow().toString(),
                "-c",
                "-f",
                "-p",
                Long.toString(server.pid()),
                "-o",
                summary.toString()));
    Process strace =
        children.startHelper(
            placement.onClientCpu(command), workDir.resolve("strace.out"), messages);
    strace.getOutputStream().close();
    try {
      awaitAttached(strace, messages);
      work.run();
    } finally {
      strace.destroy(); // SIGTERM: strace detaches and writes the summary
      if (!strace.waitFor(60, TimeUnit.SECONDS)) {
        strace.destroyForcibly();
      }
      children.finished(strace);
    }
    return StraceSummary.parse(Files.readString(summary));
  }

  /** strace prints "Process N attached with T threads" once it holds every thread. */
  private static void awaitAttached(Process strace, Path messages)
      throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + ATTACH_TIMEOUT_MS;
    while (!Files.readString(messages).contains("attached")) {
      if (!strace.isAlive() || System.currentTimeMillis() > deadline) {
        throw new IOException(
            "strace did not attach (is ptrace allowed? see /proc/sys/kernel/yama/ptrace_scope):\n"
                + Files.readString(messages));
      }
      Thread.sleep(20);
    }
  }
}
