package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.server.cluster.ClusterRouting;
import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.db.Database;
import dev.cellar.server.db.Databases;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Everything a command can reach: the store, settings, clients, counters and the server.
 *
 * <p>The store is the current database's ({@code SELECT}). A command runs inside its client's
 * database scope ({@link #enter}), set by the dispatcher once {@link Databases#several} is true;
 * until a client selects another database, the scope is never set and {@link #store()} returns
 * database 0 at the cost of a volatile read. The scope also fixes which store a command uses for
 * its whole run, even if {@code SWAPDB} swaps meanwhile.
 */
public final class ServerContext {
  private final Databases databases;

  /**
   * Database 0's store as opened: what {@link #store()} returns until {@link Databases#several},
   * which a swap sets before it swaps.
   */
  private final Cellar firstStore;

  /** The database a command on this thread runs in: set by {@link #enter}, null outside. */
  private final ThreadLocal<Scope> scope = new ThreadLocal<>();

  /** A command's database: its index and the one it was when the command started. */
  public record Scope(int index, Database database) {}

  private final ThreadLocal<Cellar> transactionView = new ThreadLocal<>();
  private final java.util.concurrent.atomic.AtomicInteger transactionsRunning =
      new java.util.concurrent.atomic.AtomicInteger();
  private final ServerConfig config;
  private final CommandTable commands;
  private final KeyLocks locks;
  private final ClientRegistry clients = new ClientRegistry();
  private final ClientMemory clientMemory;
  private final CommandStats stats = new CommandStats();
  private final MemoryGuard memory;
  private final ServerControl control;
  private final long startMillis = System.currentTimeMillis();
  private volatile LatencyRecorder latency = LatencyRecorder.NONE;
  private final SlowLog slowLog = new SlowLog();
  private final LatencyMonitor latencyMonitor = new LatencyMonitor();
  private final MonitorFeed monitors = new MonitorFeed();
  private final PubSub pubsub = new PubSub();
  private final CommitGate commits = new CommitGate();
  private final Watches watches = new Watches(this);
  private final Tracking tracking = new Tracking(this);
  private final ChangeCounter changes = new ChangeCounter(this::recordsWritten);
  private final RawStrings rawStrings = new RawStrings();
  private final Scripts scripts;
  private final AtomicReferenceArray<DatabaseUpkeep> upkeep;
  private final BlockedClients blocked = new BlockedClients(this);

  /** The node's part in a cluster; null unless {@code cluster-enabled yes}. Set once at start. */
  private volatile ClusterRouting cluster;

  private volatile AccessTracker accessTracker;
  private final StatsSampler sampler;

  /** The server over one database in {@code store} (embeddings and tests). */
  public ServerContext(Cellar store, ServerConfig config, ServerControl control) {
    this(Databases.single(store), config, control);
  }

  public ServerContext(Databases databases, ServerConfig config, ServerControl control) {
    this.databases = databases;
    this.firstStore = databases.first().store();
    this.upkeep = new AtomicReferenceArray<>(databases.count());
    this.config = config;
    this.control = control;
    this.locks = KeyLocks.forServer(config);
    this.clientMemory = new ClientMemory(config::maxMemoryClients);
    this.memory =
        new MemoryGuard(
            databases,
            config,
            stats,
            this::accessTracker,
            (key, db) ->
                inDatabase(
                    db,
                    () ->
                        KeyspaceEvents.notify(
                            this,
                            dev.cellar.server.config.KeyspaceEventFlags.EVICTED,
                            "evicted",
                            key)));
    this.commands = Commands.table();
    this.scripts = new Scripts(this, config.dir());
    scripts.restoreFunctions();
    this.sampler = new StatsSampler(stats, memory, this::sampleExpiries);
  }

  /**
   * The store as the calling thread's command sees it: inside an {@code EXEC}, the transaction's
   * view ({@link TransactionView}), else the current database's store. Outside transactions, with
   * one database in use, this costs two volatile reads.
   */
  public Cellar store() {
    if (transactionsRunning.get() != 0) {
      Cellar view = transactionView.get();
      if (view != null) {
        return view;
      }
    }
    // Kept small: it is inlined into every command, and the engine calls after it depend on the
    // compiler's inlining budget to keep their slices off the heap (GarbageFreePathTest).
    return databases.several() ? database().store() : firstStore;
  }

  /**
   * Edits of collections in {@link #store()}, packing under the encoding thresholds set now ({@code
   * hash-max-listpack-entries} and the rest).
   */
  public ElementEdits edits() {
    return new ElementEdits(store(), config.packLimits());
  }

  /** The current database (see the class notes); database 0 outside any scope. */
  public Database database() {
    if (!databases.several()) {
      return databases.first();
    }
    Scope in = scope.get();
    return in == null ? databases.first() : in.database();
  }

  /** The current database's index ({@code SELECT}'s): 0 outside any scope. */
  public int databaseIndex() {
    if (!databases.several()) {
      return 0;
    }
    Scope in = scope.get();
    return in == null ? 0 : in.index();
  }

  /** Every database of the server. */
  public Databases databases() {
    return databases;
  }

  /**
   * Makes database {@code index} the current one on this thread, until {@link #leave} with what
   * this returns (the scope it replaces).
   */
  public Scope enter(int index) {
    Scope previous = scope.get();
    scope.set(new Scope(index, databases.get(index)));
    return previous;
  }

  public void leave(Scope previous) {
    if (previous == null) {
      scope.remove();
    } else {
      scope.set(previous);
    }
  }

  /** Runs {@code action} in database {@code index}. */
  public void inDatabase(int index, Runnable action) {
    Scope previous = enter(index);
    try {
      action.run();
    } finally {
      leave(previous);
    }
  }

  /** Ids for new collections, drawn from the store itself (never from a transaction's view). */
  dev.cellar.server.collection.CollectionIds collectionIds() {
    return database().collectionIds();
  }

  /** Clients waiting in blocking commands. */
  BlockedClients blocked() {
    return blocked;
  }

  /** Clients waiting in blocking commands now, for INFO. */
  public int blockedClients() {
    return blocked.count();
  }

  /** Whether the calling thread runs a transaction or a script (where nothing may block). */
  boolean inAtomicRun() {
    return transactionsRunning.get() != 0 && transactionView.get() != null;
  }

  /** Scripts and functions: the cache, the running ones, each thread's interpreter. */
  Scripts scripts() {
    return scripts;
  }

  /**
   * Whether a script or function runs now on a thread {@code thread} accepts: an event loop that
   * runs one serves none of its connections until it ends, so a new connection is better placed
   * elsewhere.
   */
  public boolean scriptRunsOn(java.util.function.Predicate<Thread> thread) {
    return scripts.runsOnThreadWhere(thread);
  }

  /**
   * Kills every script running now, as {@code SCRIPT KILL} does (what they wrote is not applied): a
   * server stopping would otherwise wait forever for the event loop of a runaway script.
   */
  public void killScripts() {
    scripts.killAll();
  }

  /** The strings Redis would hold as {@code raw} whatever their value, for OBJECT ENCODING. */
  RawStrings rawStrings() {
    return rawStrings;
  }

  /** The records every open store has written (puts and deletes) since it opened. */
  private long recordsWritten() {
    long[] sum = {0};
    databases.forEachStore(
        store -> {
          dev.cellar.CellarStats stats = store.stats();
          sum[0] += stats.puts() + stats.deletes();
        });
    return sum[0];
  }

  /** Changes since the last save, Redis's "dirty" counter. */
  public ChangeCounter changes() {
    return changes;
  }

  /** Who watches which key (WATCH), for the commands that touch keys. */
  /**
   * Whether a write about to set {@code key} outside any command (the HTTP API) creates it, asked
   * of the store only when {@code new} events are wanted; pass the answer to {@link #keySet}.
   */
  public boolean creates(java.lang.foreign.MemorySegment key) {
    return KeyspaceEvents.absentBefore(this, key);
  }

  /**
   * {@code key} was set outside any command (the HTTP API), under its key lock: its keyspace events
   * ({@code new} if {@code created}, {@code set}, {@code expire} if it has a time to live), its
   * watchers and the clients caching it hear of it, as after a {@code SET}.
   */
  public void keySet(byte[] key, boolean created, boolean expires) {
    if (created) {
      KeyspaceEvents.notify(this, dev.cellar.server.config.KeyspaceEventFlags.NEW, "new", key);
    }
    KeyspaceEvents.notify(this, dev.cellar.server.config.KeyspaceEventFlags.STRING, "set", key);
    if (expires) {
      KeyspaceEvents.notify(
          this, dev.cellar.server.config.KeyspaceEventFlags.GENERIC, "expire", key);
    }
  }

  /** {@code key} was deleted outside any command (the HTTP API): as after a {@code DEL}. */
  public void keyDeleted(byte[] key) {
    KeyspaceEvents.notify(this, dev.cellar.server.config.KeyspaceEventFlags.GENERIC, "del", key);
  }

  /** Client-side caching's table and broadcasts ({@code CLIENT TRACKING}). */
  Tracking tracking() {
    return tracking;
  }

  Watches watches() {
    return watches;
  }

  /**
   * A client has gone: its subscriptions end and its watches are forgotten. Called by the
   * transports when a connection closes.
   */
  public void disconnected(Session s) {
    tracking.disable(s);
    pubsub.leave(s);
    s.unwatch();
    blocked.remove(s);
  }

  /** Transactions' commits, for readers of several keys (see {@link CommitGate}). */
  CommitGate commits() {
    return commits;
  }

  /**
   * Makes {@code view} what {@link #store()} returns on this thread, until {@link #endView} with
   * the value this returns (the view it replaces: a script inside an EXEC runs over the EXEC's).
   */
  Cellar beginView(Cellar view) {
    Cellar previous = transactionView.get();
    transactionView.set(view);
    transactionsRunning.incrementAndGet();
    return previous;
  }

  void endView(Cellar previous) {
    transactionsRunning.decrementAndGet();
    if (previous == null) {
      transactionView.remove();
    } else {
      transactionView.set(previous);
    }
  }

  public ServerConfig config() {
    return config;
  }

  public CommandTable commands() {
    return commands;
  }

  public KeyLocks locks() {
    return locks;
  }

  public ClientRegistry clients() {
    return clients;
  }

  public ClientMemory clientMemory() {
    return clientMemory;
  }

  public CommandStats stats() {
    return stats;
  }

  public MemoryGuard memory() {
    return memory;
  }

  public ServerControl control() {
    return control;
  }

  public long startMillis() {
    return startMillis;
  }

  public LatencyRecorder latency() {
    return latency;
  }

  public void latency(LatencyRecorder recorder) {
    this.latency = recorder;
  }

  public SlowLog slowLog() {
    return slowLog;
  }

  public LatencyMonitor latencyMonitor() {
    return latencyMonitor;
  }

  public MonitorFeed monitors() {
    return monitors;
  }

  public PubSub pubsub() {
    return pubsub;
  }

  /**
   * Access times and counts for the LRU and LFU policies, made the first time one is in effect and
   * kept for the server's life (a later policy change may come back to it).
   */
  public AccessTracker accessTracker() {
    AccessTracker t = accessTracker;
    if (t == null) {
      synchronized (this) {
        t = accessTracker;
        if (t == null) {
          t = accessTracker = new AccessTracker(AccessTracker.bitsFor(config.maxMemory()));
        }
      }
    }
    return t;
  }

  /** The background upkeep of database {@code index}, made at its first use. */
  private DatabaseUpkeep upkeep(int index) {
    DatabaseUpkeep u = upkeep.get(index);
    if (u == null) {
      upkeep.compareAndSet(index, null, new DatabaseUpkeep(this));
      u = upkeep.get(index);
    }
    return u;
  }

  /** Reclaims expired keys in every open database; the server runs this every 100 ms. */
  public void sweepExpired() {
    for (int index : databases.openIndexes()) {
      inDatabase(index, () -> upkeep(index).expiry().sweep());
    }
    // Also on this beat, as Redis's cron: a tracking table over a lowered bound shrinks.
    tracking.limit();
  }

  /** Deletes gone collections' elements in every open database; run every 100 ms. */
  public void sweepOrphans() {
    for (int index : databases.openIndexes()) {
      inDatabase(index, () -> upkeep(index).orphans().sweep());
    }
  }

  /** Samples expiries in every open database, for INFO keyspace; run once a second. */
  private void sampleExpiries() {
    for (int index : databases.openIndexes()) {
      inDatabase(index, () -> upkeep(index).expiries().sample());
    }
  }

  /** Database {@code index}'s sampled expiry figures, for INFO keyspace. */
  ExpirySampler expiries(int index) {
    return upkeep(index).expiries();
  }

  /** Orphan elements deleted since start, in every database. */
  public long orphansRemoved() {
    long removed = 0;
    for (int i = 0; i < upkeep.length(); i++) {
      DatabaseUpkeep u = upkeep.get(i);
      removed += u == null ? 0 : u.orphans().removed();
    }
    return removed;
  }

  /** Rates and peaks sampled every 100 ms (the server schedules {@link StatsSampler#sample}). */
  public StatsSampler sampler() {
    return sampler;
  }

  /** The node's part in a cluster, or null when this server is not a cluster node. */
  public ClusterRouting cluster() {
    return cluster;
  }

  /** Makes this server a cluster node; called once, before it serves. */
  public void cluster(ClusterRouting routing) {
    this.cluster = routing;
  }
}
