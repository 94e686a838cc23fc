package dev.cellar.bench.cluster;

import java.util.Map;

/** Waits for a cluster's leaderships to settle: every shard led, and no change for a while. */
final class Settle {
  private Settle() {}

  /**
   * The leaderships once every one of {@code shards} is claimed by exactly one node and nothing has
   * changed for {@code quietMillis}; the last counts seen if {@code timeoutMillis} passes first
   * (the caller reports them as they are).
   */
  static Settled await(LocalClusterRun cluster, int shards, long quietMillis, long timeoutMillis)
      throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + timeoutMillis * 1_000_000;
    Map<String, Integer> last = null;
    long lastChange = start;
    while (System.nanoTime() < deadline) {
      Map<String, Integer> now = ClusterProbe.leaderships(cluster.ports(), cluster::nodeOnPort);
      if (!now.equals(last)) {
        last = now;
        lastChange = System.nanoTime();
      }
      int claimed = now.values().stream().mapToInt(Integer::intValue).sum();
      if (claimed == shards && System.nanoTime() - lastChange >= quietMillis * 1_000_000) {
        return new Settled(now, (lastChange - start) / 1e9, true);
      }
      Thread.sleep(200);
    }
    return new Settled(last, (lastChange - start) / 1e9, false);
  }

  /**
   * @param seconds from the start of the wait to the last change seen
   * @param settled false if the wait timed out
   */
  record Settled(Map<String, Integer> leaderships, double seconds, boolean settled) {}
}
