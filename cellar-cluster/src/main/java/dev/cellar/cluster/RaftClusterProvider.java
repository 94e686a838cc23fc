package dev.cellar.cluster;

import dev.cellar.CellarOptions;
import dev.cellar.server.cluster.ClusterRouting;
import dev.cellar.server.cluster.ClusterRoutingProvider;
import dev.cellar.server.cluster.ClusterSettings;

/** The server's way in: a cluster node's routing over Raft groups of Cellar stores. */
public final class RaftClusterProvider implements ClusterRoutingProvider {
  @Override
  public ClusterRouting start(ClusterSettings settings, CellarOptions storeOptions) {
    return RaftClusterRouting.start(settings, storeOptions);
  }
}
