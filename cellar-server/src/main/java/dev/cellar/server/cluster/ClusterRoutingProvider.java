package dev.cellar.server.cluster;

import dev.cellar.CellarOptions;

/**
 * Starts a node's part in a cluster. Found through {@link java.util.ServiceLoader} when the server
 * is configured with {@code cluster-enabled yes}; the {@code cellar-cluster} module provides it.
 */
public interface ClusterRoutingProvider {
  /**
   * Joins the cluster {@code settings} describe, opening the shard replicas this node holds with
   * {@code storeOptions}; returns once they are started (leaders may still be being elected).
   */
  ClusterRouting start(ClusterSettings settings, CellarOptions storeOptions);
}
