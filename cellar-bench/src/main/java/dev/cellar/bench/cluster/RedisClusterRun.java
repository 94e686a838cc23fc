package dev.cellar.bench.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of three masters with one replica each, built as its documentation builds one:
 * six {@code redis-server --cluster-enabled yes}, then {@code redis-cli --cluster create ...
 * --cluster-replicas 1}. Each node has {@code appendfsync always}: a master fsyncs a write before
 * it answers (its replication to the replica is asynchronous, which is Redis's design, not a
 * setting).
 */
final class RedisClusterRun implements AutoCloseable {
  private final List<Process> servers = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();

  RedisClusterRun(Path redisServer, Path redisCli, Path dir, int basePort)
      throws IOException, InterruptedException {
    try {
      for (int i = 0; i < 6; i++) {
        int port = basePort + i;
        Path nodeDir = Files.createDirectories(dir.resolve("redis-" + port));
        servers.add(
            new ProcessBuilder(
                    redisServer.toString(),
                    "--port",
                    Integer.toString(port),
                    "--bind",
                    "127.0.0.1",
                    "--dir",
                    nodeDir.toString(),
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--appendonly",
                    "yes",
                    "--appendfsync",
                    "always",
                    "--save",
                    "")
                .redirectErrorStream(true)
                .redirectOutput(nodeDir.resolve("redis.log").toFile())
                .start());
        ports.add(port);
      }
      for (int port : ports) {
        awaitPong(redisCli, port);
      }
      List<String> create = new ArrayList<>(List.of(redisCli.toString(), "--cluster", "create"));
      for (int port : ports) {
        create.add("127.0.0.1:" + port);
      }
      create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
      Process p = new ProcessBuilder(create).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("redis-cli --cluster create failed:\n" + output);
      }
      for (int port : ports) {
        ClusterProbe.awaitOk(port, 60_000);
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  int port() {
    return ports.getFirst();
  }

  private static void awaitPong(Path redisCli, int port) throws IOException, InterruptedException {
    for (int attempt = 0; attempt < 100; attempt++) {
      Process p =
          new ProcessBuilder(redisCli.toString(), "-p", Integer.toString(port), "ping")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor(5, TimeUnit.SECONDS) && out.trim().equals("PONG")) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IOException("redis-server on port " + port + " never answered PING");
  }

  @Override
  public void close() {
    for (Process server : servers) {
      server.destroy();
    }
    for (Process server : servers) {
      try {
        if (!server.waitFor(20, TimeUnit.SECONDS)) {
          server.destroyForcibly();
        }
      } catch (InterruptedException e) {
        server.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
