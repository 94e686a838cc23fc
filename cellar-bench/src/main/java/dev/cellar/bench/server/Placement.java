package dev.cellar.bench.server;

import java.util.ArrayList;
import java.util.List;

/**
 * Where the processes run and how many threads the servers use.
 *
 * <p>Pinned: each server on one core, the load generator on another, Cellar with one event loop
 * against single-threaded Redis, so neither server can borrow the client's core. Unpinned: every
 * process may run on every core the benchmark was given, and the scheduler places them; Cellar gets
 * its default number of event loops and Redis two I/O threads.
 *
 * <p>Every command is started under {@code taskset -c}, unpinned ones too: the harness pins itself
 * to the client's core, and children inherit their parent's affinity, so "unpinned" has to be said
 * explicitly.
 *
 * @param serverCpus {@code taskset -c} list for the servers
 * @param clientCpus {@code taskset -c} list for redis-benchmark, redis-cli and strace
 * @param cellarThreads Cellar's {@code --threads}, or {@code null} for its default (one per core)
 * @param redisIoThreads Redis's {@code --io-threads}, or {@code null} for its default (1)
 */
public record Placement(
    String id,
    boolean isPinned,
    String serverCpus,
    String clientCpus,
    Integer cellarThreads,
    Integer redisIoThreads) {

  static Placement pinned(int serverCpu, int clientCpu) {
    return new Placement(
        "pinned", true, Integer.toString(serverCpu), Integer.toString(clientCpu), 1, null);
  }

  /**
   * @param allCpus the cores the benchmark may use, as a {@code taskset -c} list
   */
  static Placement unpinned(String allCpus) {
    return new Placement("unpinned", false, allCpus, allCpus, null, 2);
  }

  /** The command, run on the server's cores. */
  public List<String> onServerCpu(List<String> command) {
    return onCpus(serverCpus, command);
  }

  /** The command, run on the client's cores. */
  List<String> onClientCpu(List<String> command) {
    return onCpus(clientCpus, command);
  }

  private static List<String> onCpus(String cpus, List<String> command) {
    List<String> pinned = new ArrayList<>(List.of("taskset", "-c", cpus));
    pinned.addAll(command);
    return pinned;
  }

  /** For the report: what ran where. */
  public String describe() {
    if (!isPinned) {
      return "all processes on cores "
          + serverCpus
          + ", placed by the scheduler; Cellar's default --threads, Redis --io-threads "
          + redisIoThreads;
    }
    return "servers on core "
        + serverCpus
        + " (Cellar --threads "
        + cellarThreads
        + ", Redis single-threaded), redis-benchmark on core "
        + clientCpus;
  }
}
