package dev.cellar.bench.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.Jedis;

/**
 * SIGKILL of a shard's leader, repeatedly, on three nodes: the time from the kill until a write to
 * that shard's slot is acknowledged again, as a client sees it (it tries the surviving nodes in
 * turn and follows MOVED, every 10 ms). Meanwhile a writer sets 64 keys to rising numbers through
 * random live nodes; at the end every key must hold at least the last number acknowledged for it.
 * Between kills the node is started again and the leaderships settle, so that each kill hits a
 * whole cluster.
 */
final class FailoverPart {
  private static final int KEYS = 64;

  private final Path launcher;
  private final Path work;
  private final int basePort;
  private final int kills;

  FailoverPart(Path launcher, Path work, int basePort, int kills) {
    this.launcher = launcher;
    this.work = work;
    this.basePort = basePort;
    this.kills = kills;
  }

  Map<String, Object> run() throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    try (LocalClusterRun cluster =
        new LocalClusterRun(launcher, work.resolve("failover"), 3, basePort)) {
      for (int port : cluster.ports()) {
        ClusterProbe.awaitOk(port, 120_000);
      }
      int shards;
      try (Jedis jedis = new Jedis("127.0.0.1", cluster.ports().getFirst())) {
        shards = jedis.clusterSlots().size();
      }
      Settle.await(cluster, shards, 5000, 120_000);
      Set<Integer> alive = ConcurrentHashMap.newKeySet();
      alive.addAll(cluster.ports());
      Map<String, Long> acknowledged = new ConcurrentHashMap<>();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong attempts = new AtomicLong();
      AtomicLong acks = new AtomicLong();
      Thread writer =
          new Thread(
              () -> {
                long seq = 0;
                while (!stop.get()) {
                  seq++;
                  String key = "acked:" + (seq % KEYS);
                  List<Integer> ports = new ArrayList<>(alive);
                  if (ports.isEmpty()) {
                    continue;
                  }
                  int port = ports.get(ThreadLocalRandom.current().nextInt(ports.size()));
                  attempts.incrementAndGet();
                  if (ClusterProbe.set(port, key, Long.toString(seq))) {
                    acknowledged.put(key, seq);
                    acks.incrementAndGet();
                  }
                }
              },
              "acknowledged-writer");
      writer.start();
      List<Double> seconds = new ArrayList<>();
      for (int i = 0; i < kills; i++) {
        String key = "failover:" + i;
        int any = alive.iterator().next();
        int slot = ClusterProbe.slotOf(any, key);
        int leaderPort = ClusterProbe.leaderOfSlot(any, slot);
        String victim = cluster.nodeOnPort(leaderPort);
        alive.remove(leaderPort);
        long killed = System.nanoTime();
        cluster.kill(victim);
        boolean written = false;
        while (!written && System.nanoTime() - killed < 60_000_000_000L) {
          for (int port : alive) {
            if (ClusterProbe.set(port, key, "v" + i)) {
              written = true;
              break;
            }
          }
          if (!written) {
            Thread.sleep(10);
          }
        }
        double s = (System.nanoTime() - killed) / 1e9;
        seconds.add(written ? s : Double.POSITIVE_INFINITY);
        System.err.printf(
            "kill %d: %s led slot %d; written again after %.3f s%n", i + 1, victim, slot, s);
        cluster.restart(victim);
        ClusterProbe.awaitOk(cluster.port(victim), 120_000);
        alive.add(cluster.port(victim));
        Settle.await(cluster, shards, 5000, 120_000);
      }
      stop.set(true);
      writer.join();
      long lost = 0;
      List<String> lostKeys = new ArrayList<>();
      for (var e : acknowledged.entrySet()) {
        String value = ClusterProbe.get(alive.iterator().next(), e.getKey());
        if (value == null || Long.parseLong(value) < e.getValue()) {
          lost++;
          lostKeys.add(e.getKey() + " acknowledged " + e.getValue() + ", read " + value);
        }
      }
      List<Double> sorted = new ArrayList<>(seconds);
      Collections.sort(sorted);
      out.put("nodes", 3);
      out.put("shards", shards);
      out.put("kills", kills);
      out.put("seconds_to_write_again", seconds);
      out.put("p50_seconds", percentile(sorted, 0.50));
      out.put("p99_seconds", percentile(sorted, 0.99));
      out.put("max_seconds", sorted.getLast());
      out.put("target_p99_seconds", 3.0);
      out.put("writer_attempts", attempts.get());
      out.put("writer_acknowledged", acks.get());
      out.put("acknowledged_writes_lost", lost);
      out.put("lost", lostKeys);
    }
    return out;
  }

  /** The nearest-rank percentile of sorted values. */
  static double percentile(List<Double> sorted, double p) {
    int rank = (int) Math.ceil(p * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }
}
