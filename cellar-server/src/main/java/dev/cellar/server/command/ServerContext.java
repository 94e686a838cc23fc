package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.server.config.ServerConfig;

/** Everything a command can reach: the store, settings, clients, counters and the server. */
public final class ServerContext {
  private final Cellar store;
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
  private final Watches watches = new Watches();
  private final Scripts scripts;
  private final ActiveExpiry activeExpiry = new ActiveExpiry(this);
  private final OrphanSweeper orphanSweeper = new OrphanSweeper(this);
  private final BlockedClients blocked = new BlockedClients();
  private final dev.cellar.server.collection.CollectionIds collectionIds;
  private volatile AccessTracker accessTracker;
  private final StatsSampler sampler;

  public ServerContext(Cellar store, ServerConfig config, ServerControl control) {
    this.store = store;
    this.collectionIds = new dev.cellar.server.collection.CollectionIds(store);
    this.config = config;
    this.control = control;
    this.locks = KeyLocks.forServer(config);
    this.clientMemory = new ClientMemory(config::maxMemoryClients);
    this.memory =
        new MemoryGuard(
            store,
            config,
            stats,
            this::accessTracker,
            key ->
                KeyspaceEvents.notify(
                    this, dev.cellar.server.config.KeyspaceEventFlags.EVICTED, "evicted", key));
    this.commands = Commands.table();
    this.scripts = new Scripts(this, config.dir());
    scripts.restoreFunctions();
    this.sampler = new StatsSampler(stats, memory, new ExpirySampler(store));
  }

  /**
   * The store as the calling thread's command sees it: inside an {@code EXEC}, the transaction's
   * view ({@link TransactionView}), else the store. Outside transactions this costs one read of a
   * counter that is zero.
   */
  public Cellar store() {
    if (transactionsRunning.get() != 0) {
      Cellar view = transactionView.get();
      if (view != null) {
        return view;
      }
    }
    return store;
  }

  /** Ids for new collections, drawn from the store itself (never from a transaction's view). */
  dev.cellar.server.collection.CollectionIds collectionIds() {
    return collectionIds;
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

  /** Who watches which key (WATCH), for the commands that touch keys. */
  Watches watches() {
    return watches;
  }

  /**
   * A client has gone: its subscriptions end and its watches are forgotten. Called by the
   * transports when a connection closes.
   */
  public void disconnected(Session s) {
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

  /**
   * Deletes gone collections' elements; the server runs {@link OrphanSweeper#sweep} every 100 ms.
   */
  public OrphanSweeper orphanSweeper() {
    return orphanSweeper;
  }

  /** Reclaims expired keys; the server runs {@link ActiveExpiry#sweep} every 100 ms. */
  public ActiveExpiry activeExpiry() {
    return activeExpiry;
  }

  /** Rates and peaks sampled every 100 ms (the server schedules {@link StatsSampler#sample}). */
  public StatsSampler sampler() {
    return sampler;
  }
}
