package dev.cellar.cluster;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;

/** Cluster nodes as real servers in this JVM, on real sockets, each with its own directory. */
final class TestCluster implements AutoCloseable {
  private final Path dir;
  private final int shards;
  private final List<CellarServer> servers = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();
  private final String nodes;

  TestCluster(Path dir, int count, int shards) throws IOException {
    this.dir = dir;
    this.shards = shards;
    StringBuilder list = new StringBuilder();
    for (int i = 0; i < count; i++) {
      int port = freePort();
      ports.add(port);
      list.append(i == 0 ? "" : " ")
          .append("n")
          .append(i)
          .append("@127.0.0.1:")
          .append(port)
          .append(':')
          .append(freePort());
    }
    this.nodes = list.toString();
    for (int i = 0; i < count; i++) {
      servers.add(null);
      start(i);
    }
  }

  /** Starts node {@code i} (again). */
  void start(int i) {
    servers.set(
        i,
        CellarServer.start(
            new ServerConfig()
                .set("port", Integer.toString(ports.get(i)))
                .set("http-port", "0")
                .set("dir", dir.resolve("n" + i).toString())
                .set("appendfsync", "no")
                .set("cluster-enabled", "yes")
                .set("cluster-node-id", "n" + i)
                .set("cluster-nodes", nodes)
                .set("cluster-shards", Integer.toString(shards))
                .set("cluster-node-timeout", "3000")));
  }

  /** Stops node {@code i} (a clean stop: its Raft server leaves, its stores close). */
  void stop(int i) {
    servers.get(i).close();
    servers.set(i, null);
  }

  int size() {
    return ports.size();
  }

  int port(int i) {
    return ports.get(i);
  }

  /** The node listening on {@code port}. */
  int nodeOnPort(int port) {
    return ports.indexOf(port);
  }

  /** Waits until every running node reports {@code cluster_state:ok}. */
  void awaitOk() throws InterruptedException {
    for (int i = 0; i < ports.size(); i++) {
      if (servers.get(i) != null) {
        awaitOk(ports.get(i));
      }
    }
  }

  static void awaitOk(int port) throws InterruptedException {
    String last = "no answer";
    // Up to 30 s: a node that has just started joins its groups and learns their leaders first.
    for (int attempt = 0; attempt < 600; attempt++) {
      try (Jedis jedis = new Jedis("127.0.0.1", port)) {
        last = jedis.clusterInfo();
        if (last.contains("cluster_state:ok")) {
          return;
        }
        last = last + jedis.clusterNodes();
      } catch (RuntimeException notYet) {
        // not listening yet
      }
      Thread.sleep(50);
    }
    throw new AssertionError(
        "node on port " + port + " never reported cluster_state:ok; last:\n" + last);
  }

  /** Jedis's cluster client, seeded with every node. */
  JedisCluster client() {
    Set<HostAndPort> seeds = new HashSet<>();
    for (int port : ports) {
      seeds.add(new HostAndPort("127.0.0.1", port));
    }
    return new JedisCluster(
        seeds, DefaultJedisClientConfig.builder().socketTimeoutMillis(5000).build(), 10);
  }

  /** The node CLUSTER SLOTS (asked of a running node) names as the leader of {@code key}. */
  int leaderOf(String key) {
    for (int i = 0; i < ports.size(); i++) {
      if (servers.get(i) == null) {
        continue;
      }
      try (Jedis jedis = new Jedis("127.0.0.1", ports.get(i))) {
        long slot = jedis.clusterKeySlot(key);
        for (Object range : jedis.clusterSlots()) {
          List<?> r = (List<?>) range;
          if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
            return nodeOnPort((int) (long) (Long) ((List<?>) r.get(2)).get(1));
          }
        }
      }
    }
    throw new AssertionError("no node knows the leader of " + key);
  }

  /**
   * How many shards each running node leads, by its own word: the ranges of its CLUSTER SLOTS whose
   * primary is itself (a node knows for certain only whether it leads).
   */
  java.util.Map<Integer, Integer> leaderships() {
    java.util.Map<Integer, Integer> counts = new java.util.TreeMap<>();
    for (int i = 0; i < ports.size(); i++) {
      if (servers.get(i) == null) {
        continue;
      }
      int led = 0;
      try (Jedis jedis = new Jedis("127.0.0.1", ports.get(i))) {
        for (Object range : jedis.clusterSlots()) {
          List<?> primary = (List<?>) ((List<?>) range).get(2);
          if ((int) (long) (Long) primary.get(1) == ports.get(i)) {
            led++;
          }
        }
      }
      counts.put(i, led);
    }
    return counts;
  }

  @Override
  public void close() {
    for (CellarServer server : servers) {
      if (server != null) {
        server.close();
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }
}
