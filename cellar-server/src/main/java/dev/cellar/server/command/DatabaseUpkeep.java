package dev.cellar.server.command;

/**
 * One database's background work: active expiry, the orphan sweep and the expiry sampling of INFO
 * keyspace. Each keeps a cursor into its database, so each database has its own; they run in the
 * database's scope ({@link ServerContext#inDatabase}), where {@link ServerContext#store()} is its
 * store.
 */
final class DatabaseUpkeep {
  private final ActiveExpiry expiry;
  private final OrphanSweeper orphans;
  private final ExpirySampler expiries;

  DatabaseUpkeep(ServerContext server) {
    this.expiry = new ActiveExpiry(server);
    this.orphans = new OrphanSweeper(server);
    this.expiries = new ExpirySampler(server::store);
  }

  ActiveExpiry expiry() {
    return expiry;
  }

  OrphanSweeper orphans() {
    return orphans;
  }

  ExpirySampler expiries() {
    return expiries;
  }
}
