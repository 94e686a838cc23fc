package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The two servers compared: how each is started at a durability level and how each is stopped. */
public enum ServerKind {
  REDIS("redis") {
    @Override
    public List<String> command(
        Tools tools, Durability durability, Placement placement, int port, Path dir) {
      List<String> command =
          new ArrayList<>(
              List.of(
                  tools.redisServer().toString(),
                  "--port",
                  Integer.toString(port),
                  "--bind",
                  "127.0.0.1",
                  "--dir",
                  dir.toString(),
                  "--save",
                  "",
                  "--daemonize",
                  "no"));
      command.addAll(durability.redisArguments());
      if (placement.redisIoThreads() != null) {
        command.addAll(List.of("--io-threads", placement.redisIoThreads().toString()));
      }
      return placement.onServerCpu(command);
    }

    @Override
    boolean isServerProgram(Path program, Tools tools) throws IOException {
      // Debian's redis-server is a link to redis-check-rdb, which turns into the server by its
      // name.
      return program.toRealPath().equals(tools.redisServer().toRealPath());
    }

    @Override
    void requestStop(ServerProcess server) {
      try (RespClient client = server.connect()) {
        client.call("SHUTDOWN", "NOSAVE");
      } catch (IOException expected) {
        // A shutting-down Redis closes the connection instead of replying.
      }
    }
  },

  CELLAR("cellar") {
    @Override
    public List<String> command(
        Tools tools, Durability durability, Placement placement, int port, Path dir) {
      List<String> command =
          new ArrayList<>(
              List.of(
                  tools.cellarScript().toString(),
                  "server",
                  "--port",
                  Integer.toString(port),
                  "--dir",
                  dir.toString(),
                  "--fsync",
                  durability.id(),
                  "--http-port",
                  "0",
                  // Nothing here uses shared memory; with it off, one event loop runs every
                  // command and the key locks lock nothing (as before its agents were counted).
                  "--ipc",
                  "no"));
      if (placement.cellarThreads() != null) {
        command.addAll(List.of("--threads", placement.cellarThreads().toString()));
      }
      return placement.onServerCpu(command);
    }

    @Override
    boolean isServerProgram(Path program, Tools tools) {
      return program.getFileName().toString().equals("java");
    }

    @Override
    void requestStop(ServerProcess server) {
      server.process().destroy(); // SIGTERM: Cellar flushes, fsyncs and checkpoints, then exits
    }
  };

  private final String id;

  ServerKind(String id) {
    this.id = id;
  }

  /** The name in results. */
  public String id() {
    return id;
  }

  /**
   * Whether the started process runs the server itself: the launchers ({@code taskset}, the {@code
   * cellar} script) must {@code exec} it, so that the pid we hold is the server's own, which strace
   * and the {@code /proc} readings rely on.
   */
  abstract boolean isServerProgram(Path program, Tools tools) throws IOException;

  /** The command line that starts this server in the foreground, listening on loopback. */
  public abstract List<String> command(
      Tools tools, Durability durability, Placement placement, int port, Path dir);

  /** Asks the server to exit; the caller waits and, if need be, kills. */
  abstract void requestStop(ServerProcess server);
}
