package dev.cellar.bench.cluster;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * What the benchmark asks a cluster's nodes, over RESP: whether they are up, who leads what, and a
 * write sent as a cluster client sends it (to a node, then wherever MOVED points).
 */
final class ClusterProbe {
  private static final int TIMEOUT_MILLIS = 5000;

  private ClusterProbe() {}

  /** Waits until the node on {@code port} reports {@code cluster_state:ok}. */
  static void awaitOk(int port, long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      try (Jedis jedis = new Jedis("127.0.0.1", port, TIMEOUT_MILLIS)) {
        last = jedis.clusterInfo();
        if (last.contains("cluster_state:ok")) {
          return;
        }
      } catch (JedisException notYet) {
        last = notYet.getMessage();
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("node on port " + port + " is not ok: " + last);
  }

  /**
   * How many slot ranges (shards) each node leads by its own word: the ranges of its CLUSTER SLOTS
   * whose primary is itself. A node that does not answer counts 0.
   */
  static Map<String, Integer> leaderships(List<Integer> ports, IntFunction<String> nodeOnPort) {
    Map<String, Integer> counts = new TreeMap<>();
    for (int port : ports) {
      int led = 0;
      try (Jedis jedis = new Jedis("127.0.0.1", port, TIMEOUT_MILLIS)) {
        for (Object range : jedis.clusterSlots()) {
          List<?> primary = (List<?>) ((List<?>) range).get(2);
          if ((int) (long) (Long) primary.get(1) == port) {
            led++;
          }
        }
      } catch (JedisException down) {
        continue;
      }
      counts.put(nodeOnPort.apply(port), led);
    }
    return counts;
  }

  /** The port of the node that leads {@code slot}, as the node on {@code askPort} knows it. */
  static int leaderOfSlot(int askPort, int slot) {
    try (Jedis jedis = new Jedis("127.0.0.1", askPort, TIMEOUT_MILLIS)) {
      for (Object range : jedis.clusterSlots()) {
        List<?> r = (List<?>) range;
        if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
          return (int) (long) (Long) ((List<?>) r.get(2)).get(1);
        }
      }
    }
    throw new IllegalStateException("no range holds slot " + slot);
  }

  static int slotOf(int port, String key) {
    try (Jedis jedis = new Jedis("127.0.0.1", port, TIMEOUT_MILLIS)) {
      return (int) jedis.clusterKeySlot(key);
    }
  }

  /**
   * Sends {@code SET key value} to the node on {@code port} and follows MOVED, once; true for
   * {@code OK}. Anything else (refused, timed out, TRYAGAIN, CLUSTERDOWN, UNKNOWN) is false: the
   * write is not known to be acknowledged.
   */
  static boolean set(int port, String key, String value) {
    int at = port;
    for (int hop = 0; hop < 3; hop++) {
      try (Jedis jedis = new Jedis("127.0.0.1", at, TIMEOUT_MILLIS)) {
        Object reply = jedis.sendCommand(Protocol.Command.SET, key, value);
        return reply instanceof byte[] b && "OK".equals(new String(b));
      } catch (JedisDataException e) {
        at = movedTo(e);
        if (at < 0) {
          return false;
        }
      } catch (JedisException e) {
        return false;
      }
    }
    return false;
  }

  /** {@code GET key} as a cluster client sends it, following MOVED; null for a missing key. */
  static String get(int port, String key) {
    int at = port;
    for (int hop = 0; hop < 3; hop++) {
      try (Jedis jedis = new Jedis("127.0.0.1", at, TIMEOUT_MILLIS)) {
        return jedis.get(key);
      } catch (JedisDataException e) {
        at = movedTo(e);
        if (at < 0) {
          throw e;
        }
      }
    }
    throw new IllegalStateException("GET " + key + " was moved three times");
  }

  /** The port a {@code MOVED slot host:port} error names, or -1 for any other error. */
  private static int movedTo(JedisDataException e) {
    String message = String.valueOf(e.getMessage());
    if (!message.startsWith("MOVED ")) {
      return -1;
    }
    String target = message.substring(message.lastIndexOf(' ') + 1);
    return Integer.parseInt(target.substring(target.lastIndexOf(':') + 1));
  }
}
