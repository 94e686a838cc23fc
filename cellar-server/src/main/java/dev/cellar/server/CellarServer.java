package dev.cellar.server;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.server.cluster.ClusterRouting;
import dev.cellar.server.cluster.ClusterRoutingProvider;
import dev.cellar.server.cluster.ClusterSettings;
import dev.cellar.server.command.Dispatcher;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.command.ServerControl;
import dev.cellar.server.config.ConfigException;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.db.Databases;
import dev.cellar.server.net.PortCheck;
import dev.cellar.server.net.RespListener;
import dev.cellar.server.tls.ServerTls;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Cellar server: the engine behind the Redis protocol (and HTTP), started from a {@link
 * ServerConfig}. {@link #close()} (also run by SIGTERM and {@code SHUTDOWN}) stops accepting,
 * answers what is in flight, then syncs and checkpoints the store, so a restart serves every
 * acknowledged write.
 */
public final class CellarServer implements AutoCloseable, ServerControl {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  private final ServerConfig config;
  private final Databases databases;
  private final ServerContext context;
  private final RespListener listener;
  private final ExecutorService maintenance =
      Executors.newSingleThreadExecutor(
          r -> Thread.ofPlatform().name("cellar-maintenance").daemon().unstarted(r));
  private final AtomicBoolean checkpointRunning = new AtomicBoolean();

  /** When the last SAVE or BGSAVE ended well (LASTSAVE), epoch seconds; the start at first. */
  private volatile long lastSave = System.currentTimeMillis() / 1000;

  /** Why the last BGSAVE failed, or null if it did not. */
  private volatile String lastSaveFailure;

  /** The manifest of the last backup BGSAVE made, or null. */
  private volatile String lastBackup;

  private final AtomicBoolean compactionRunning = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean cleanStop; // set before stopped counts down
  private volatile RuntimeException closeFailure; // the store's, for close() to throw

  private CellarServer(ServerConfig config, CellarOptions engine) {
    this.config = config;
    checkProtectedMode(config);
    // Before the store is opened: a TLS mistake should not cost a recovery, nor touch the data.
    ServerTls tls = ServerTls.fromConfig(config);
    // Nor should a port in use: the data directory is not even created.
    PortCheck.requireFree(config);
    try {
      this.databases =
          Databases.open(config.dir(), config.databases(), storeOptions(config, engine));
    } catch (IllegalStateException | java.io.UncheckedIOException e) {
      throw new ConfigException(e.getMessage()); // a damaged map, or too few databases for the data
    }
    // A snapshot a killed BGSAVE left behind: its links would keep deleted segments on the disk.
    try {
      BackgroundSave.discardLeftover(config.dir());
    } catch (java.io.IOException e) {
      LOG.log(System.Logger.Level.WARNING, "could not delete a BGSAVE snapshot left behind", e);
    }
    ClusterRouting cluster = null;
    try {
      this.context = new ServerContext(databases, config, this);
      if (config.clusterEnabled()) {
        cluster = startCluster(config, storeOptions(config, engine));
        context.cluster(cluster);
      }
      this.listener = RespListener.start(context, new Dispatcher(context), tls);
    } catch (RuntimeException e) {
      if (cluster != null) {
        cluster.close();
      }
      databases.close();
      throw e;
    }
  }

  /**
   * Starts this node's part in its cluster through the {@code cellar-cluster} module, found on the
   * class path; a server without it cannot be a cluster node, and says so.
   */
  private static ClusterRouting startCluster(ServerConfig config, CellarOptions storeOptions) {
    ClusterSettings settings = config.clusterSettings();
    var provider =
        java.util.ServiceLoader.load(ClusterRoutingProvider.class)
            .findFirst()
            .orElseThrow(
                () ->
                    new ConfigException(
                        "cluster-enabled yes needs the cellar-cluster module on the class path"));
    LOG.log(
        System.Logger.Level.INFO,
        "cluster node "
            + settings.nodeId()
            + ": "
            + settings.nodes().size()
            + " nodes, "
            + settings.shards()
            + " shards of "
            + settings.replicas()
            + " replicas");
    return provider.start(settings, storeOptions);
  }

  /**
   * The engine's settings that the server's configuration decides. {@code
   * auto-aof-rewrite-percentage} P lets the log grow to (1 + P/100) times its live data before
   * background compaction starts, as Redis lets its AOF grow by P percent before a rewrite. A
   * segment smaller than the default caps values at what fits one segment beside the largest key,
   * since a record never spans two segments. Under {@code appendfsync always} and {@code everysec}
   * the log's tail is mapped with small pages ({@link CellarOptions#hugePageLogTail}).
   */
  static CellarOptions storeOptions(ServerConfig config, CellarOptions base) {
    // The engine owns the fsync policy. Its writes do not wait for their fsync: a connection holds
    // the replies to a batch until the engine says the batch is durable (DurableReplies), so that
    // one fsync covers every batch written meanwhile, and no event loop blocks on the disk.
    CellarOptions options =
        base.segmentBytes(config.segmentSize()).fsync(config.fsync()).writesAwaitDurability(false);
    if (config.encryptionKeyFile() != null) {
      options = options.encryptionKeyFile(config.encryptionKeyFile());
    }
    options =
        options
            .compression(config.compression())
            .io(config.io())
            .readCacheBytes(config.readCacheSize());
    int growth = config.aofRewritePercentage();
    options =
        growth == 0
            ? options.backgroundCompaction(false)
            : options.compactionSpaceAmplification(1 + growth / 100.0);
    long fitting = options.maxKeyBytes(CellarOptions.DEFAULT_MAX_KEY_BYTES).largestValueBytes();
    return fitting < CellarOptions.DEFAULT_MAX_VALUE_BYTES
        ? options.maxValueBytes((int) fitting)
        : options;
  }

  /**
   * Opens the store in {@code config.dir()} and starts listening; fails fast with a clear reason.
   */
  public static CellarServer start(ServerConfig config) {
    return new CellarServer(config, CellarOptions.defaults());
  }

  /**
   * As {@link #start(ServerConfig)}, with the store opened from {@code engine}'s options rather
   * than the defaults: for embedding a server in an application that tunes its engine, and for
   * tests (a fault-injecting {@code FileIO}, small segments). These are not server settings; the
   * fsync mode still comes from {@code config}.
   */
  public static CellarServer start(ServerConfig config, CellarOptions engine) {
    return new CellarServer(config, engine);
  }

  private static void checkProtectedMode(ServerConfig config) {
    if (!config.protectedMode() || config.requirePass() != null) {
      return;
    }
    try {
      InetAddress address = InetAddress.getByName(config.bind());
      if (!address.isLoopbackAddress()) {
        throw new ConfigException(
            "refusing to listen on "
                + config.bind()
                + " without a password: set --requirepass,"
                + " or --protected-mode no if every client that can reach this address is trusted");
      }
    } catch (UnknownHostException e) {
      throw new ConfigException(
          "cannot resolve bind address '" + config.bind() + "': " + e.getMessage());
    }
  }

  public ServerContext context() {
    return context;
  }

  /** Database 0's store (the one HTTP serves). */
  public Cellar store() {
    return databases.first().store();
  }

  /** Every database. */
  public Databases databases() {
    return databases;
  }

  @Override
  public int port() {
    return listener.port();
  }

  @Override
  public void listenOn(int port) {
    listener.listenOn(port);
  }

  @Override
  public int tlsPort() {
    return listener.tlsPort();
  }

  @Override
  public int httpPort() {
    return listener.httpPort();
  }

  @Override
  public int httpsPort() {
    return listener.httpsPort();
  }

  @Override
  public String transport() {
    return listener.transport();
  }

  @Override
  public java.nio.file.Path ipcDiscovery() {
    return listener.ipcDiscovery();
  }

  @Override
  public void shutdownAsync() {
    Thread.ofPlatform().name("cellar-shutdown").start(() -> stop("SHUTDOWN command"));
  }

  /**
   * {@code BGSAVE}: a checkpoint, or, with a {@code backup-target}, a backup of the running store
   * there ({@link BackgroundSave}).
   */
  @Override
  public boolean checkpointAsync() {
    long mark = context.changes().total();
    return runOnce(
        checkpointRunning,
        () -> {
          try {
            String target = config.backupTarget();
            if (target == null) {
              databases.forEachStore(Cellar::sync);
              databases.forEachStore(Cellar::checkpoint);
            } else {
              if (databases.openIndexes().size() > 1) {
                throw new IllegalStateException(
                    "a backup to a target covers database 0 only, and other databases hold data:"
                        + " back up the data directory with the server stopped instead");
              }
              lastBackup = new BackgroundSave(store(), config.dir(), target, System.getenv()).run();
            }
            saved();
            context.changes().saved(mark);
          } catch (RuntimeException e) {
            lastSaveFailure = String.valueOf(e.getMessage());
            throw e;
          }
        });
  }

  @Override
  public void saved() {
    lastSave = System.currentTimeMillis() / 1000;
    lastSaveFailure = null;
  }

  @Override
  public long lastSaveEpochSeconds() {
    return lastSave;
  }

  @Override
  public String lastSaveFailure() {
    return lastSaveFailure;
  }

  @Override
  public String lastBackup() {
    return lastBackup;
  }

  @Override
  public boolean compactAsync() {
    return runOnce(compactionRunning, () -> databases.forEachStore(Cellar::compact));
  }

  @Override
  public boolean checkpointRunning() {
    return checkpointRunning.get();
  }

  @Override
  public boolean compactionRunning() {
    return compactionRunning.get();
  }

  private boolean runOnce(AtomicBoolean running, Runnable task) {
    if (!running.compareAndSet(false, true)) {
      return false;
    }
    maintenance.execute(
        () -> {
          try {
            task.run();
          } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "background task failed", e);
          } finally {
            running.set(false);
          }
        });
    return true;
  }

  /** Blocks until the server has stopped (after {@code SHUTDOWN} or {@link #close()}). */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  @Override
  public void close() {
    if (!stop("closed") && closeFailure != null) {
      RuntimeException failure = closeFailure;
      closeFailure = null; // thrown once, as the store's close threw it
      throw failure;
    }
  }

  /**
   * Stops as {@link #close()} does, logging each step with {@code why} first (a signal, {@code
   * SHUTDOWN}), so an operator sees what a stop did and how long each part took. Returns whether
   * the store was synced and checkpointed; a second call waits for the first and returns its
   * result.
   */
  public boolean stop(String why) {
    if (!closed.compareAndSet(false, true)) {
      awaitQuietly();
      return cleanStop;
    }
    try {
      LOG.log(
          System.Logger.Level.INFO,
          "shutting down (" + why + "): no new connections, answering what is in flight");
      listener.close();
      if (context.cluster() != null) {
        context.cluster().close(); // the shard replicas and their stores
      }
      maintenance.shutdown();
      try {
        maintenance.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      cleanStop = syncAndClose();
      return cleanStop;
    } finally {
      stopped.countDown();
    }
  }

  /** The log's flush and fsync, then the checkpoint (in the store's close), each logged. */
  private boolean syncAndClose() {
    long start = System.nanoTime();
    boolean failedBefore = databases.writeFailure() != null;
    if (!failedBefore) {
      try {
        databases.forEachStore(Cellar::sync);
        LOG.log(
            System.Logger.Level.INFO,
            "shutting down: log flushed and fsynced in " + millisSince(start) + " ms");
      } catch (RuntimeException e) {
        LOG.log(
            System.Logger.Level.WARNING,
            "shutting down: the log's fsync failed: " + e.getMessage());
      }
    }
    long checkpointStart = System.nanoTime();
    try {
      databases.close(); // each store syncs what the last step did not, and checkpoints
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "stopped without a checkpoint: "
              + e.getMessage()
              + "; a restart recovers from the log in "
              + config.dir());
      closeFailure = e;
      return false;
    }
    if (databases.writeFailure() != null) {
      LOG.log(
          System.Logger.Level.WARNING,
          "stopped; writes were disabled by a failed fsync, so nothing more was synced;"
              + " a restart recovers from what is on disk in "
              + config.dir());
      return false;
    }
    LOG.log(
        System.Logger.Level.INFO,
        "shutting down: checkpoint written in " + millisSince(checkpointStart) + " ms");
    LOG.log(System.Logger.Level.INFO, "stopped; data synced and checkpointed in " + config.dir());
    return true;
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  private void awaitQuietly() {
    try {
      stopped.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
