package dev.cellar.bench.cluster;

import dev.cellar.cluster.ClusterNode;
import dev.cellar.cluster.RendezvousPlacement;
import dev.cellar.cluster.ShardPlacement;
import dev.cellar.cluster.SuccessorPlacement;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import redis.clients.jedis.Jedis;

/**
 * Five nodes, one SIGKILLed: each survivor's share of the leaderships, measured on the running
 * cluster, against what a successor ring and plain rendezvous order (each shard to the first live
 * node of its order) would give the same nodes and shards, computed from those placements.
 */
final class UniformityPart {
  private static final int NODES = 5;
  private static final int REPLICAS = 3;

  private final Path launcher;
  private final Path work;
  private final int basePort;

  UniformityPart(Path launcher, Path work, int basePort) {
    this.launcher = launcher;
    this.work = work;
    this.basePort = basePort;
  }

  Map<String, Object> run() throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    try (LocalClusterRun cluster =
        new LocalClusterRun(launcher, work.resolve("uniformity"), NODES, basePort)) {
      for (int port : cluster.ports()) {
        ClusterProbe.awaitOk(port, 120_000);
      }
      int shards;
      try (Jedis jedis = new Jedis("127.0.0.1", cluster.ports().getFirst())) {
        shards = jedis.clusterSlots().size();
      }
      Settle.Settled before = Settle.await(cluster, shards, 6000, 120_000);
      String victim =
          before.leaderships().entrySet().stream()
              .max(Map.Entry.comparingByValue())
              .orElseThrow()
              .getKey();
      cluster.kill(victim);
      Settle.Settled after = Settle.await(cluster, shards, 8000, 120_000);
      List<String> survivors = cluster.ids().stream().filter(id -> !id.equals(victim)).toList();
      double mean = (double) shards / survivors.size();
      out.put("nodes", NODES);
      out.put("shards", shards);
      out.put("replicas", REPLICAS);
      out.put("killed", victim);
      out.put("leaderships_before", before.leaderships());
      out.put("leaderships_after", after.leaderships());
      out.put("settled", after.settled());
      out.put("seconds_to_settle_after_kill", after.seconds());
      out.put("mean_after", mean);
      out.put("max_deviation_after", maxDeviation(after.leaderships(), survivors, mean));
      Map<String, Integer> successor =
          firstLive(SuccessorPlacement.INSTANCE, cluster.ids(), survivors, shards);
      Map<String, Integer> rendezvous =
          firstLive(RendezvousPlacement.INSTANCE, cluster.ids(), survivors, shards);
      out.put("successor_ring_after", successor);
      out.put("successor_ring_max_deviation", maxDeviation(successor, survivors, mean));
      out.put("rendezvous_first_live_after", rendezvous);
      out.put("rendezvous_first_live_max_deviation", maxDeviation(rendezvous, survivors, mean));
      out.put("target_max_deviation", 0.10);
    }
    return out;
  }

  /** The largest |count - mean| / mean over the survivors (a missing survivor counts 0). */
  private static double maxDeviation(
      Map<String, Integer> counts, List<String> survivors, double mean) {
    double worst = 0;
    for (String id : survivors) {
      worst = Math.max(worst, Math.abs(counts.getOrDefault(id, 0) - mean) / mean);
    }
    return worst;
  }

  /**
   * Each shard to the first survivor among its replicas in {@code placement}'s order (the first
   * survivor of its whole order if none of its replicas survived).
   */
  private static Map<String, Integer> firstLive(
      ShardPlacement placement, List<String> ids, List<String> survivors, int shards) {
    List<ClusterNode> nodes = ids.stream().map(ClusterNode::of).toList();
    Map<String, Integer> counts = new TreeMap<>();
    survivors.forEach(id -> counts.put(id, 0));
    for (int shard = 0; shard < shards; shard++) {
      String leader = null;
      for (ClusterNode n : placement.rank(shard, nodes, REPLICAS)) {
        if (survivors.contains(n.id())) {
          leader = n.id();
          break;
        }
      }
      if (leader != null) {
        counts.merge(leader, 1, Integer::sum);
      }
    }
    return counts;
  }
}
