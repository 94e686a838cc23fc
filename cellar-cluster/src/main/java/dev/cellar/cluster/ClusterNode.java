package dev.cellar.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A node as placement sees it: its id, and its weight, the share of replicas and leaderships it
 * should carry relative to the others (a machine with twice the cores or disks may weigh 2).
 */
public record ClusterNode(String id, double weight) {
  public ClusterNode {
    Objects.requireNonNull(id, "id");
    if (id.isEmpty()) {
      throw new IllegalArgumentException("a node id must not be empty");
    }
    if (!(weight > 0) || Double.isInfinite(weight)) {
      throw new IllegalArgumentException("a node's weight must be positive and finite: " + weight);
    }
  }

  /** A node of weight 1. */
  public static ClusterNode of(String id) {
    return new ClusterNode(id, 1.0);
  }

  /** A stable 64-bit hash of the id (FNV-1a over its UTF-8 bytes, then mixed). */
  long idHash() {
    long h = 0xcbf29ce484222325L;
    for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xFF)) * 0x100000001b3L;
    }
    return Mix.mix64(h);
  }
}
