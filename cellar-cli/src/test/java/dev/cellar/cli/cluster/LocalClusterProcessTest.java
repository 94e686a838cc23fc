package dev.cellar.cli.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;

/**
 * {@code cellar cluster start} and {@code restart-node} as a user runs them: real node processes, a
 * real cluster client, and SIGKILL. No acknowledged write is lost when a shard's leader is killed,
 * the killed leader's slots are written again once the survivors have elected, and the node,
 * restarted, serves every write it missed.
 */
class LocalClusterProcessTest {
  private static final Pattern NODE_LINE = Pattern.compile("node (n\\d+) pid (\\d+) port (\\d+)");

  @TempDir Path dir;

  @Test
  void startKillRestartAndStop() throws Exception {
    int basePort = freeBasePort(3);
    Process start =
        java(
            "cluster",
            "start",
            "--nodes",
            "3",
            "--dir",
            dir.toString(),
            "--base-port",
            "" + basePort);
    Map<String, Long> pids = new HashMap<>();
    Map<String, Integer> ports = new HashMap<>();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(start.getInputStream(), StandardCharsets.UTF_8));
      for (int i = 0; i < 3; i++) {
        String line = out.readLine();
        Matcher m = NODE_LINE.matcher(String.valueOf(line));
        assertTrue(m.matches(), "a node line: " + line);
        pids.put(m.group(1), Long.parseLong(m.group(2)));
        ports.put(m.group(1), Integer.parseInt(m.group(3)));
      }
      assertEquals(Set.of(basePort, basePort + 1, basePort + 2), new HashSet<>(ports.values()));
      for (int port : ports.values()) {
        awaitClusterOk(port);
      }
      Set<HostAndPort> seeds = new HashSet<>();
      ports.values().forEach(p -> seeds.add(new HostAndPort("127.0.0.1", p)));
      Map<String, String> acknowledged = new HashMap<>();
      try (JedisCluster cluster =
          new JedisCluster(
              seeds, DefaultJedisClientConfig.builder().socketTimeoutMillis(5000).build(), 20)) {
        for (int i = 0; i < 200; i++) {
          assertEquals("OK", set(cluster, "k" + i, "a" + i));
          acknowledged.put("k" + i, "a" + i);
        }
        // SIGKILL the node leading k0's slot.
        String victim = leaderOf(ports, "k0");
        ProcessHandle.of(pids.get(victim)).orElseThrow().destroyForcibly();
        ProcessHandle.of(pids.get(victim)).ifPresent(h -> h.onExit().join());
        long killed = System.nanoTime();
        assertEquals("OK", set(cluster, "k0", "b0"));
        acknowledged.put("k0", "b0");
        System.out.printf(
            "k0's slot written again %.2f s after its leader's SIGKILL%n",
            (System.nanoTime() - killed) / 1e9);
        for (int i = 1; i < 200; i++) {
          long before = System.nanoTime();
          assertEquals("OK", set(cluster, "k" + i, "b" + i));
          acknowledged.put("k" + i, "b" + i);
          long ms = (System.nanoTime() - before) / 1_000_000;
          if (ms > 500) {
            System.out.println("k" + i + " took " + ms + " ms after the kill");
          }
        }
        for (var e : acknowledged.entrySet()) {
          assertEquals(e.getValue(), cluster.get(e.getKey()), e.getKey());
        }

        // Restarted, the node catches up: read from it directly, as a replica (READONLY).
        Process restart =
            java("cluster", "restart-node", "--dir", dir.toString(), "--node", victim);
        String line =
            new String(restart.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(restart.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, restart.exitValue(), line);
        Matcher m = NODE_LINE.matcher(line);
        assertTrue(m.matches(), line);
        pids.put(victim, Long.parseLong(m.group(2)));
        awaitClusterOk(ports.get(victim));
        // Each shard's group catches up on its own: wait for every acknowledged value.
        for (var e : acknowledged.entrySet()) {
          awaitReplicaHas(ports.get(victim), e.getKey(), e.getValue());
        }
      }
    } catch (Throwable failure) {
      printNodeLogs();
      throw failure;
    } finally {
      start.destroy(); // SIGTERM: the command stops every node, the restarted one too
      assertTrue(start.waitFor(60, TimeUnit.SECONDS), "cluster start stopped");
      for (long pid : pids.values()) {
        ProcessHandle.of(pid)
            .ifPresent(
                h -> {
                  boolean ended =
                      h.onExit().completeOnTimeout(null, 30, TimeUnit.SECONDS).join() != null;
                  if (!ended) {
                    h.destroyForcibly();
                  }
                  assertTrue(ended, "node pid " + pid + " stopped with the cluster");
                });
      }
    }
  }

  /** What the nodes logged, for the failure's report. */
  private void printNodeLogs() throws IOException {
    for (int i = 1; i <= 3; i++) {
      Path log = dir.resolve("n" + i).resolve("node.log");
      if (Files.exists(log)) {
        List<String> lines = Files.readAllLines(log);
        System.out.println("---- n" + i + "'s log, last 60 lines of " + lines.size());
        lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(System.out::println);
      }
    }
  }

  /** The node CLUSTER SLOTS names as the leader of {@code key}'s slot. */
  private static String leaderOf(Map<String, Integer> ports, String key) {
    try (Jedis jedis = new Jedis("127.0.0.1", ports.values().iterator().next())) {
      long slot = jedis.clusterKeySlot(key);
      for (Object range : jedis.clusterSlots()) {
        List<?> r = (List<?>) range;
        if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
          long port = (Long) ((List<?>) r.get(2)).get(1);
          return ports.entrySet().stream()
              .filter(e -> e.getValue() == port)
              .findFirst()
              .orElseThrow()
              .getKey();
        }
      }
    }
    throw new AssertionError("no slot range holds " + key);
  }

  private static void awaitReplicaHas(int port, String key, String value) throws Exception {
    for (int attempt = 0; attempt < 300; attempt++) {
      try (Jedis node = new Jedis("127.0.0.1", port)) {
        node.readonly();
        if (value.equals(node.get(key))) {
          return;
        }
      } catch (RuntimeException notYet) {
        // starting, or a MOVED while the group is not joined yet
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the restarted node never had " + key + " = " + value);
  }

  private static void awaitClusterOk(int port) throws InterruptedException {
    for (int attempt = 0; attempt < 600; attempt++) {
      try (Jedis jedis = new Jedis("127.0.0.1", port)) {
        if (jedis.clusterInfo().contains("cluster_state:ok")) {
          return;
        }
      } catch (RuntimeException notYet) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    throw new AssertionError("node on port " + port + " never reported cluster_state:ok");
  }

  /**
   * A port P such that P..P+n-1 and P+10000..P+10000+n-1 are free now, all below Linux's ephemeral
   * range (from 32768), where an outgoing connection could take one meanwhile.
   */
  private static int freeBasePort(int n) throws IOException {
    for (int attempt = 0; attempt < 100; attempt++) {
      int base = ThreadLocalRandom.current().nextInt(20000, 22700);
      if (free(base, n) && free(base + 10000, n)) {
        return base;
      }
    }
    throw new IOException("no free ports");
  }

  private static boolean free(int from, int n) {
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int p = from; p < from + n; p++) {
        held.add(new ServerSocket(p));
      }
      return true;
    } catch (IOException taken) {
      return false;
    } finally {
      for (ServerSocket s : held) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closing a probe
        }
      }
    }
  }

  private Process java(String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.cellar.cli.Main"));
    cmd.addAll(List.of(args));
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    ProcessBuilder builder = new ProcessBuilder(cmd).redirectError(err.toFile());
    builder.environment().remove("CELLAR_LAUNCHER");
    return builder.start();
  }

  /**
   * SET through the cluster client, sent again while the node answers TRYAGAIN (a shard changing
   * leaders; Cellar answers it only for a command it did not run), as Redis Cluster clients such as
   * redis-py do and Jedis does not.
   */
  private static String set(redis.clients.jedis.JedisCluster cluster, String key, String value)
      throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try {
        return cluster.set(key, value);
      } catch (redis.clients.jedis.exceptions.JedisDataException e) {
        String message = String.valueOf(e.getMessage());
        if (!(message.startsWith("TRYAGAIN") || message.startsWith("UNKNOWN"))
            || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }
}
