package dev.cellar.server.config;

import dev.cellar.CellarOptions;
import dev.cellar.Compression;
import dev.cellar.Fsync;
import dev.cellar.IoMode;
import dev.cellar.server.collection.PackLimits;
import dev.cellar.server.log.LogLevel;
import dev.cellar.server.log.ServerLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The server's settings, under Redis's names so that a Redis user's config file and {@code CONFIG
 * GET/SET} work: {@code port bind dir appendfsync io-threads maxmemory maxmemory-policy requirepass
 * protected-mode maxclients proto-max-bulk-len client-query-buffer-limit client-output-buffer-limit
 * tls-port tls-cert-file tls-key-file tls-key-file-pass tls-ca-cert-file tls-auth-clients
 * tls-protocols loglevel logfile slowlog-log-slower-than slowlog-max-len latency-monitor-threshold
 * latency-tracking latency-tracking-info-percentiles maxmemory-clients busy-reply-threshold}, plus
 * Cellar's own {@code http-port}, {@code https-port}, {@code transport} and the expert setting
 * {@code segment-size}.
 *
 * <p>Secrets ({@code requirepass}, {@code tls-key-file-pass}) read back as {@code <redacted>} (or
 * empty when unset) everywhere a value is shown: {@code CONFIG GET}, {@link #all()}, logs.
 *
 * <p>Settings marked mutable may change at run time ({@code CONFIG SET}); fields are volatile so
 * event loops see a change on their next command.
 */
public final class ServerConfig {
  /** Eviction policies; see {@code docs/server.md}. */
  public enum EvictionPolicy {
    NOEVICTION,
    ALLKEYS_RANDOM,
    VOLATILE_RANDOM,
    VOLATILE_TTL,
    ALLKEYS_LRU,
    VOLATILE_LRU,
    ALLKEYS_LFU,
    VOLATILE_LFU;

    String redisName() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether it evicts by least recent use, and so needs access times kept. */
    public boolean lru() {
      return this == ALLKEYS_LRU || this == VOLATILE_LRU;
    }

    /** Whether it evicts by least frequent use, and so needs use counts kept. */
    public boolean lfu() {
      return this == ALLKEYS_LFU || this == VOLATILE_LFU;
    }

    /** Whether it evicts only keys with an expiry. */
    public boolean volatileOnly() {
      return this == VOLATILE_RANDOM
          || this == VOLATILE_TTL
          || this == VOLATILE_LRU
          || this == VOLATILE_LFU;
    }
  }

  private volatile int port = 6379;
  private volatile String bind = "127.0.0.1";
  private volatile Path dir = Path.of("data");
  private volatile int databases = 16;
  private volatile Fsync fsync = Fsync.EVERYSEC;
  private volatile int threads = Runtime.getRuntime().availableProcessors();
  private volatile long maxMemory = 0;
  private volatile EvictionPolicy evictionPolicy = EvictionPolicy.NOEVICTION;
  private volatile String requirePass;
  private volatile int httpPort = 6380;
  private volatile boolean protectedMode = true;
  private volatile int maxClients = 10_000;
  private volatile long maxBulkLength = 16L << 20;
  private volatile long maxQueryBuffer = 64L << 20;
  private volatile long outputBufferLimit = 64L << 20;

  /**
   * {@code maxmemory-clients} as set: a percentage of the maximum heap ("25%") or bytes; 0 is no
   * limit.
   */
  private volatile String maxMemoryClients = "25%";

  /**
   * {@link #maxMemoryClients} in bytes, worked out once when set: it is read on every buffer
   * growth.
   */
  private volatile long maxMemoryClientsBytes = clientMemoryLimit("25%");

  private volatile int httpMaxClients = 1000;
  private volatile int httpIdleTimeout = 120;
  private volatile int httpHeaderTimeout = 10;
  private volatile String transport = "auto";
  private volatile boolean ipc = true;
  private volatile boolean clusterEnabled;
  private volatile String clusterNodeId = "";
  private volatile String clusterNodes = "";
  private volatile int clusterReplicas = 3;
  private volatile int clusterShards = 0;
  private volatile long clusterNodeTimeout = 15_000;
  private volatile int ipcAgents = 1;
  private volatile int ipcMaxRing = 16 << 20;
  private volatile long ipcClientTimeout = 30;
  private volatile long slowlogSlowerThan = 10_000;
  private volatile int slowlogMaxLen = 128;
  private volatile long hllSparseMaxBytes = 3000;
  private volatile long busyReplyThreshold = 5000;
  private volatile long trackingTableMaxKeys = 1_000_000;
  private volatile long latencyMonitorThreshold = 0;
  private volatile boolean latencyTracking = true;
  private volatile double[] latencyPercentiles = {50.0, 99.0, 99.9};
  private volatile int notifyKeyspaceEvents = 0;
  private volatile String save = "";
  private static final long MIN_SEGMENT_SIZE = 256 << 10;

  private volatile long segmentSize = CellarOptions.DEFAULT_SEGMENT_BYTES;
  private volatile int aofRewritePercentage = 100;
  private volatile LogLevel logLevel = LogLevel.NOTICE;
  private volatile Path logFile; // null: standard output and error

  /** {@code tls-auth-clients}: whether a TLS client must present a certificate the CA signed. */
  public enum TlsAuthClients {
    YES,
    NO,
    OPTIONAL;

    String redisName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private volatile int tlsPort = 0;
  private volatile int httpsPort = 0;
  private volatile Path tlsCertFile;
  private volatile Path encryptionKeyFile;
  private volatile Compression compression = Compression.NONE;
  private volatile IoMode io = IoMode.BUFFERED;
  private volatile long readCacheSize = CellarOptions.DEFAULT_READ_CACHE_BYTES;
  private volatile String backupTarget;
  private volatile Path tlsKeyFile;
  private volatile String tlsKeyFilePass;
  private volatile Path tlsCaCertFile;
  private volatile TlsAuthClients tlsAuthClients; // null: yes with a CA, no without
  private volatile List<String> tlsProtocols = List.of("TLSv1.2", "TLSv1.3");

  private final Map<String, Parameter> parameters = new LinkedHashMap<>();

  private final EncodingSettings encodings = new EncodingSettings();

  /** Ignored Redis settings as {@code CONFIG SET} last gave them ({@link #setAtRuntime}). */
  private final Map<String, String> recorded = new ConcurrentSkipListMap<>();

  /**
   * @param getter what {@code CONFIG GET} shows ({@code <redacted>} for a secret)
   * @param value the value itself, to put back after a failed {@code CONFIG SET}
   */
  private record Parameter(
      String name,
      boolean mutable,
      Supplier<String> getter,
      Supplier<String> value,
      Consumer<String> setter) {}

  public ServerConfig() {
    define("port", false, () -> Integer.toString(port), v -> port = intIn("port", v, 0, 65535));
    // The first word, with words split where trim() cuts (every char up to a space), so that the
    // address reported can be set back unchanged.
    define("bind", false, () -> bind, v -> bind = v.trim().split("[\\x00-\\x20]+")[0]);
    define("dir", false, () -> dir.toString(), v -> dir = parsePath("dir", v));
    define(
        "appendfsync",
        false,
        () -> fsync.name().toLowerCase(Locale.ROOT),
        v -> fsync = parseFsync(v));
    define(
        "io-threads",
        false,
        () -> Integer.toString(threads),
        v -> threads = intIn("io-threads", v, 1, 1024));
    define(
        "maxmemory",
        true,
        () -> Long.toString(maxMemory),
        v -> maxMemory = parseBytes("maxmemory", v));
    define(
        "maxmemory-policy",
        true,
        () -> evictionPolicy.redisName(),
        v -> evictionPolicy = parsePolicy(v));
    defineSecret(
        "requirepass",
        true,
        () -> requirePass == null ? "" : requirePass,
        v -> requirePass = v.isEmpty() ? null : v);
    define(
        "http-port",
        false,
        () -> Integer.toString(httpPort),
        v -> httpPort = intIn("http-port", v, 0, 65535));
    define(
        "protected-mode",
        false,
        () -> protectedMode ? "yes" : "no",
        v -> protectedMode = parseYesNo("protected-mode", v));
    define(
        "maxclients",
        true,
        () -> Integer.toString(maxClients),
        v -> maxClients = intIn("maxclients", v, 1, 1_000_000));
    define(
        "proto-max-bulk-len",
        true,
        () -> Long.toString(maxBulkLength),
        v ->
            maxBulkLength =
                atLeast("proto-max-bulk-len", parseBytes("proto-max-bulk-len", v), 1024));
    define(
        "client-query-buffer-limit",
        true,
        () -> Long.toString(maxQueryBuffer),
        v ->
            maxQueryBuffer =
                atLeast(
                    "client-query-buffer-limit",
                    parseBytes("client-query-buffer-limit", v),
                    1024 * 1024));
    define(
        "client-output-buffer-limit",
        true,
        () -> "normal " + outputBufferLimit + " 0 0",
        v -> outputBufferLimit = parseOutputLimit(v, outputBufferLimit));
    define(
        "maxmemory-clients",
        true,
        () -> maxMemoryClients,
        v -> {
          maxMemoryClientsBytes = clientMemoryLimit(v);
          maxMemoryClients = v.trim();
        });
    define(
        "http-maxclients",
        true,
        () -> Integer.toString(httpMaxClients),
        v -> httpMaxClients = intIn("http-maxclients", v, 1, 1_000_000));
    define(
        "http-idle-timeout",
        true,
        () -> Integer.toString(httpIdleTimeout),
        v -> httpIdleTimeout = intIn("http-idle-timeout", v, 0, 86_400));
    // Redis's introspection settings: SLOWLOG keeps commands at least this many microseconds long
    // (negative: none, 0: all); LATENCY records events at least this many milliseconds long (0:
    // off).
    define(
        "slowlog-log-slower-than",
        true,
        () -> Long.toString(slowlogSlowerThan),
        v ->
            slowlogSlowerThan =
                longIn("slowlog-log-slower-than", v, Long.MIN_VALUE / 1000, Long.MAX_VALUE / 1000));
    define(
        "slowlog-max-len",
        true,
        () -> Integer.toString(slowlogMaxLen),
        v -> slowlogMaxLen = intIn("slowlog-max-len", v, 0, Integer.MAX_VALUE));
    define(
        "tracking-table-max-keys",
        true,
        () -> Long.toString(trackingTableMaxKeys),
        v -> trackingTableMaxKeys = longIn("tracking-table-max-keys", v, 0, Long.MAX_VALUE));
    for (String name : new String[] {"busy-reply-threshold", "lua-time-limit"}) {
      define(
          name,
          true,
          () -> Long.toString(busyReplyThreshold),
          v -> busyReplyThreshold = longIn(name, v, 0, Long.MAX_VALUE));
    }
    define(
        "hll-sparse-max-bytes",
        true,
        () -> Long.toString(hllSparseMaxBytes),
        v -> hllSparseMaxBytes = parseBytes("hll-sparse-max-bytes", v));
    define(
        "latency-monitor-threshold",
        true,
        () -> Long.toString(latencyMonitorThreshold),
        v ->
            latencyMonitorThreshold =
                longIn("latency-monitor-threshold", v, 0, Long.MAX_VALUE / 1_000_000));
    // Per-command latency histograms (LATENCY HISTOGRAM, INFO latencystats), as Redis 7 keeps them.
    define(
        "latency-tracking",
        true,
        () -> latencyTracking ? "yes" : "no",
        v -> latencyTracking = parseYesNo("latency-tracking", v));
    define(
        "latency-tracking-info-percentiles",
        true,
        () -> formatPercentiles(latencyPercentiles),
        v -> latencyPercentiles = parsePercentiles(v));
    define(
        "notify-keyspace-events",
        true,
        () -> KeyspaceEventFlags.format(notifyKeyspaceEvents),
        v -> notifyKeyspaceEvents = KeyspaceEventFlags.parse(v));
    encodings.defineIn(this);
    define(
        "http-header-timeout",
        true,
        () -> Integer.toString(httpHeaderTimeout),
        v -> httpHeaderTimeout = intIn("http-header-timeout", v, 0, 86_400));
    // Redis settings that clients read (redis-benchmark asks for save and appendonly) and set
    // (Redis's own test suite, tools): Cellar's log is always on and it has no RDB snapshots, so
    // setting them changes nothing; save reads back as set, appendonly as yes.
    define("save", true, () -> save, v -> save = v.trim());
    define("appendonly", true, () -> "yes", v -> parseYesNo("appendonly", v));
    // Read at start-up only, as in Redis.
    define(
        "databases",
        false,
        () -> Integer.toString(databases),
        v -> databases = intIn("databases", v, 1, 65_536));
    define("transport", false, () -> transport, v -> transport = parseTransport(v));
    // A cluster node (docs/cluster.md): Redis's cluster-enabled and cluster-node-timeout, and this
    // node's id, every node of the cluster, the replicas of each shard and the number of shards
    // (0: four for each node). Read at start-up only.
    define(
        "cluster-enabled",
        false,
        () -> clusterEnabled ? "yes" : "no",
        v -> clusterEnabled = parseYesNo("cluster-enabled", v));
    define("cluster-node-id", false, () -> clusterNodeId, v -> clusterNodeId = v.trim());
    define("cluster-nodes", false, () -> clusterNodes, v -> clusterNodes = v.trim());
    define(
        "cluster-replicas",
        false,
        () -> Integer.toString(clusterReplicas),
        v -> clusterReplicas = intIn("cluster-replicas", v, 1, 16));
    define(
        "cluster-shards",
        false,
        () -> Integer.toString(clusterShards),
        v -> clusterShards = intIn("cluster-shards", v, 0, 16384));
    define(
        "cluster-node-timeout",
        false,
        () -> Long.toString(clusterNodeTimeout),
        v -> clusterNodeTimeout = longIn("cluster-node-timeout", v, 100, 3_600_000));
    // Shared-memory clients on the same host (docs/server.md, "Shared memory"): whether to serve
    // them, the threads that do, the largest ring a client may ask for, and how long a client may
    // go without a heartbeat before it is taken for dead (seconds; 0: only its process is checked).
    define("ipc", false, () -> ipc ? "yes" : "no", v -> ipc = parseYesNo("ipc", v));
    define(
        "ipc-agents",
        false,
        () -> Integer.toString(ipcAgents),
        v -> ipcAgents = intIn("ipc-agents", v, 1, 16));
    define(
        "ipc-max-ring", false, () -> Integer.toString(ipcMaxRing), v -> ipcMaxRing = ringSize(v));
    define(
        "ipc-client-timeout",
        true,
        () -> Long.toString(ipcClientTimeout),
        v -> ipcClientTimeout = longIn("ipc-client-timeout", v, 0, 86_400));
    // Expert: small segments seal (and so become compactable) after little writing, which tests of
    // compaction under load need; production stores keep the default.
    define(
        "segment-size",
        false,
        () -> Long.toString(segmentSize),
        v -> segmentSize = parseSegmentSize(v));
    // Redis's trigger for an automatic AOF rewrite: how far the log may outgrow its live data
    // before
    // background compaction starts (100: to twice its size); 0 leaves compaction to BGREWRITEAOF.
    define(
        "auto-aof-rewrite-percentage",
        false,
        () -> Integer.toString(aofRewritePercentage),
        v -> aofRewritePercentage = intIn("auto-aof-rewrite-percentage", v, 0, 9900));
    // Redis's logging settings: the level may change at run time, the file is opened once at start.
    define(
        "loglevel",
        true,
        () -> logLevel.redisName(),
        v -> {
          logLevel = LogLevel.parse(v);
          ServerLog.levelChanged();
        });
    define("logfile", false, () -> pathOrEmpty(logFile), v -> logFile = optionalPath("logfile", v));
    defineTls();
  }

  /** Redis's TLS settings (read once at start; see {@code docs/server.md}, "TLS"). */
  private void defineTls() {
    define(
        "tls-port",
        false,
        () -> Integer.toString(tlsPort),
        v -> tlsPort = intIn("tls-port", v, 0, 65535));
    define(
        "https-port",
        false,
        () -> Integer.toString(httpsPort),
        v -> httpsPort = intIn("https-port", v, 0, 65535));
    // Start-up only, as Redis protects `dir`: a client that could change it could send the data to
    // any bucket the server's credentials reach.
    define(
        "backup-target",
        false,
        () -> backupTarget == null ? "" : backupTarget,
        v -> backupTarget = parseBackupTarget(v));
    // Read at start-up only: the keys of an open store cannot change under it.
    define(
        "encryption-key-file",
        false,
        () -> pathOrEmpty(encryptionKeyFile),
        v -> encryptionKeyFile = optionalPath("encryption-key-file", v));
    // Read at start-up only: how the store reads its files, and its read cache when direct.
    define("io", false, () -> io.label(), v -> io = parseIo(v));
    define(
        "read-cache-size",
        false,
        () -> Long.toString(readCacheSize),
        v -> readCacheSize = parseReadCacheSize(v));
    // Read at start-up only: compaction compresses with the codec the store was opened with.
    define("compression", false, () -> compression.label(), v -> compression = parseCompression(v));
    define(
        "tls-cert-file",
        false,
        () -> pathOrEmpty(tlsCertFile),
        v -> tlsCertFile = optionalPath("tls-cert-file", v));
    define(
        "tls-key-file",
        false,
        () -> pathOrEmpty(tlsKeyFile),
        v -> tlsKeyFile = optionalPath("tls-key-file", v));
    defineSecret(
        "tls-key-file-pass",
        false,
        () -> tlsKeyFilePass == null ? "" : tlsKeyFilePass,
        v -> tlsKeyFilePass = v.isEmpty() ? null : v);
    define(
        "tls-ca-cert-file",
        false,
        () -> pathOrEmpty(tlsCaCertFile),
        v -> tlsCaCertFile = optionalPath("tls-ca-cert-file", v));
    define(
        "tls-auth-clients",
        false,
        () -> tlsAuthClients().redisName(),
        v -> tlsAuthClients = parseAuthClients(v));
    define(
        "tls-protocols",
        false,
        () -> String.join(" ", tlsProtocols),
        v -> tlsProtocols = parseProtocols(v));
  }

  void define(String name, boolean mutable, Supplier<String> getter, Consumer<String> setter) {
    parameters.put(name, new Parameter(name, mutable, getter, getter, setter));
  }

  /** {@link #define} of a secret: shown redacted (empty when unset), its value kept for itself. */
  private void defineSecret(
      String name, boolean mutable, Supplier<String> value, Consumer<String> setter) {
    Supplier<String> shown = () -> value.get().isEmpty() ? "" : "<redacted>";
    parameters.put(name, new Parameter(name, mutable, shown, value, setter));
  }

  // ------------------------------------------------------------ reading and changing by name

  /** Sets {@code name} at startup (config file or flag); any known setting may be set. */
  public ServerConfig set(String name, String value) {
    if (recordIgnored(name, value)) {
      return this;
    }
    String n = canonical(name);
    if (RedisDirectives.immutableInRedis(n) && !parameters.containsKey(n)) {
      // replicaof and slaveof: their empty value (no primary) is what this server has anyway.
      if (!value.equals(RedisDirectives.redisDefault(n))) {
        throw new ConfigException(n + ": " + RedisDirectives.whyRefused(n));
      }
      return this;
    }
    Parameter p = parameter(name);
    p.setter.accept(value);
    return this;
  }

  /**
   * Records {@code value} for a Redis setting Cellar ignores whatever its value ({@link
   * RedisDirectives}), so that {@code CONFIG GET} reads it back; false for any other name.
   */
  private boolean recordIgnored(String name, String value) {
    String n = canonical(name);
    if (parameters.containsKey(n) || !RedisDirectives.ignoredAlways(n)) {
      return false;
    }
    recorded.put(n, value);
    return true;
  }

  /**
   * Sets {@code name} at run time ({@code CONFIG SET}); immutable settings are refused. A Redis
   * setting that a config file may give and Cellar ignores whatever its value ({@link
   * RedisDirectives}: tuning of Redis's own machinery such as {@code lazyfree-lazy-user-del} or
   * {@code activedefrag}) is accepted and recorded, so that {@code CONFIG GET} reads it back, and
   * changes nothing, as in a config file.
   */
  public void setAtRuntime(String name, String value) {
    String n = canonical(name);
    if (RedisDirectives.immutableInRedis(n)) {
      // Redis cannot change these at run time either; its own value reads back, and is accepted.
      if (!value.equals(recorded.getOrDefault(n, RedisDirectives.redisDefault(n)))) {
        throw new ConfigException("can't set immutable config '" + n + "'");
      }
      return;
    }
    if (recordIgnored(name, value)) {
      return;
    }
    Parameter p = parameter(name);
    if (!p.mutable) {
      // Set to what it is, an immutable setting is left as it is (CONFIG SET of every setting to
      // its own value, as tools and Redis's test suite do, succeeds).
      if (value.equals(p.getter.get())) {
        return;
      }
      throw new ConfigException("can't set immutable config '" + p.name + "'");
    }
    p.setter.accept(value);
  }

  /**
   * The value of {@code name} (a setting, a recorded Redis one, or the default {@code CONFIG GET}
   * shows for a Redis one never given; a secret's own value, where {@code CONFIG GET} redacts it),
   * or null; to put back what a failed {@code CONFIG SET} of several settings changed.
   */
  public String current(String name) {
    String n = canonical(name);
    Parameter p = parameters.get(n);
    if (p != null) {
      return p.value.get();
    }
    String given = recorded.get(n);
    return given != null ? given : RedisDirectives.shownWhenUnset().get(n);
  }

  /**
   * Puts {@code name} back as {@link #current} read it before a failed {@code CONFIG SET}: {@code
   * previous} null means an ignored Redis directive that had no value, which it has none of again.
   */
  public void restore(String name, String previous) {
    if (previous != null) {
      setAtRuntime(name, previous);
    } else if (!parameters.containsKey(canonical(name))) {
      recorded.remove(canonical(name));
    }
  }

  /** The name {@code CONFIG SET} knows {@code name} by (aliases such as {@code fsync} resolved). */
  public static String canonicalName(String name) {
    return canonical(name);
  }

  /**
   * Whether {@code name} is a setting (any case; {@code fsync} and {@code threads} are aliases).
   */
  public boolean knows(String name) {
    return parameters.containsKey(canonical(name));
  }

  /** Whether {@code CONFIG SET} takes {@code name}: a setting, or an ignored Redis one. */
  public boolean acceptsAtRuntime(String name) {
    return knows(name)
        || RedisDirectives.ignoredAlways(canonical(name))
        || RedisDirectives.immutableInRedis(canonical(name));
  }

  private Parameter parameter(String name) {
    Parameter p = parameters.get(canonical(name));
    if (p == null) {
      throw new ConfigException("unknown setting '" + name + "'");
    }
    return p;
  }

  private static String canonical(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return switch (n) {
      case "fsync" -> "appendfsync";
      case "threads" -> "io-threads";
      default -> n;
    };
  }

  /** Settings whose name matches the glob {@code pattern}, with their current values (in order). */
  public Map<String, String> matching(String pattern) {
    Map<String, String> out = new LinkedHashMap<>();
    byte[] p = pattern.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8);
    for (Parameter parameter : parameters.values()) {
      byte[] n = parameter.name.getBytes(StandardCharsets.UTF_8);
      if (Glob.matches(p, 0, p.length, n, 0, n.length)) {
        out.put(parameter.name, parameter.getter.get());
      }
    }
    addMatching(out, recorded, p);
    addMatching(out, RedisDirectives.shownWhenUnset(), p);
    return out;
  }

  /** The entries of {@code values} whose name matches {@code pattern}, where out has none yet. */
  private static void addMatching(
      Map<String, String> out, Map<String, String> values, byte[] pattern) {
    for (Map.Entry<String, String> e : values.entrySet()) {
      byte[] n = e.getKey().getBytes(StandardCharsets.UTF_8);
      if (Glob.matches(pattern, 0, pattern.length, n, 0, n.length)) {
        out.putIfAbsent(e.getKey(), e.getValue());
      }
    }
  }

  /**
   * Reads a Redis-style config file (see {@link ConfigFile}) and logs a warning for each Redis
   * directive it ignores; a caller that sets up logging after reading the file uses {@link
   * ConfigFile#read} and logs them itself.
   */
  public ServerConfig load(Path file) {
    for (String warning : ConfigFile.read(file, this)) {
      System.getLogger("dev.cellar.server").log(System.Logger.Level.WARNING, warning);
    }
    return this;
  }

  // ------------------------------------------------------------ typed access

  public int port() {
    return port;
  }

  /**
   * The port {@code value} names, as {@code CONFIG SET port} takes it (0 to 65535).
   *
   * @throws ConfigException if it names none
   */
  public static int portValue(String value) {
    return intIn("port", value, 0, 65535);
  }

  /** Notes that plaintext RESP now listens on {@code port} ({@code CONFIG SET port}). */
  public void listeningOn(int port) {
    this.port = port;
  }

  public String bind() {
    return bind;
  }

  public Path dir() {
    return dir;
  }

  /** Whether this server is a cluster node ({@code cluster-enabled yes}). */
  public boolean clusterEnabled() {
    return clusterEnabled;
  }

  /**
   * The cluster this node belongs to, from the {@code cluster-*} settings; the shard replicas live
   * under {@code <dir>/cluster}.
   *
   * @throws ConfigException if a setting is missing or inconsistent
   */
  public dev.cellar.server.cluster.ClusterSettings clusterSettings() {
    if (clusterNodeId.isEmpty() || clusterNodes.isEmpty()) {
      throw new ConfigException(
          "cluster-enabled yes needs cluster-node-id (this node) and cluster-nodes"
              + " (id@host:port of every node)");
    }
    try {
      var nodes = dev.cellar.server.cluster.ClusterSettings.parseNodes(clusterNodes);
      return new dev.cellar.server.cluster.ClusterSettings(
          clusterNodeId,
          nodes,
          Math.min(clusterReplicas, nodes.size()),
          clusterShards == 0 ? 4 * nodes.size() : clusterShards,
          dir.resolve("cluster"),
          clusterNodeTimeout);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** How many databases {@code SELECT} may choose from (Redis's {@code databases}, 16). */
  public int databases() {
    return databases;
  }

  public Fsync fsync() {
    return fsync;
  }

  public int threads() {
    return threads;
  }

  public long maxMemory() {
    return maxMemory;
  }

  public EvictionPolicy evictionPolicy() {
    return evictionPolicy;
  }

  public String requirePass() {
    return requirePass;
  }

  public int httpPort() {
    return httpPort;
  }

  public boolean protectedMode() {
    return protectedMode;
  }

  public int maxClients() {
    return maxClients;
  }

  public long maxBulkLength() {
    return maxBulkLength;
  }

  public long maxQueryBuffer() {
    return maxQueryBuffer;
  }

  public long outputBufferLimit() {
    return outputBufferLimit;
  }

  /** Most HTTP and HTTPS connections open at once; more are answered 503 and closed. */
  public int httpMaxClients() {
    return httpMaxClients;
  }

  /** Seconds an HTTP connection may sit idle between requests; 0: no limit. */
  public int httpIdleTimeout() {
    return httpIdleTimeout;
  }

  /** Seconds a request's line and headers may take once its first byte has arrived; 0: no limit. */
  public int httpHeaderTimeout() {
    return httpHeaderTimeout;
  }

  /**
   * {@code maxmemory-clients} in bytes: the most that all clients' buffers together may hold (query
   * and reply buffers, unsent output, HTTP bodies being received) before the clients with the
   * largest are disconnected; {@code Long.MAX_VALUE} when set to 0. A percentage is of the maximum
   * heap (Redis takes it of {@code maxmemory}; Cellar's data is not on the heap, its clients'
   * buffers are).
   */
  public long maxMemoryClients() {
    return maxMemoryClientsBytes;
  }

  private static long clientMemoryLimit(String v) {
    long bytes = parseClientMemory(v, Runtime.getRuntime().maxMemory());
    return bytes == 0 ? Long.MAX_VALUE : bytes;
  }

  static long parseClientMemory(String v, long maxHeap) {
    String s = v.trim();
    if (s.endsWith("%")) {
      String digits = s.substring(0, s.length() - 1);
      if (digits.matches("[0-9]{1,9}") && Integer.parseInt(digits) > 100) {
        throw new ConfigException("percentage argument must be less or equal to 100"); // Redis's
      }
      int percent = intIn("maxmemory-clients", digits, 1, 100);
      return maxHeap / 100 * percent;
    }
    return parseBytes("maxmemory-clients", s);
  }

  public String transport() {
    return transport;
  }

  /** {@code ipc}: whether same-host clients may connect through shared memory. */
  public boolean ipc() {
    return ipc;
  }

  /** {@code ipc-agents}: threads serving shared-memory clients. */
  public int ipcAgents() {
    return ipcAgents;
  }

  /** {@code ipc-max-ring}: the largest ring (bytes, each way) a client may ask for. */
  public int ipcMaxRing() {
    return ipcMaxRing;
  }

  /** {@code ipc-client-timeout} in milliseconds; 0 when only the client's process is checked. */
  public long ipcClientTimeoutMillis() {
    return ipcClientTimeout * 1000;
  }

  private static int ringSize(String v) {
    long bytes = parseBytes("ipc-max-ring", v);
    if (bytes < 4096 || bytes > 64 << 20 || Long.bitCount(bytes) != 1) {
      throw new ConfigException(
          "ipc-max-ring " + v + " must be a power of two from 4kb to 64mb (for example 16mb)");
    }
    return (int) bytes;
  }

  /** {@code slowlog-log-slower-than}: microseconds; negative logs nothing, 0 logs every command. */
  public long slowlogSlowerThan() {
    return slowlogSlowerThan;
  }

  public int slowlogMaxLen() {
    return slowlogMaxLen;
  }

  /** Redis's encoding thresholds as set ({@link EncodingSettings}). */
  public PackLimits packLimits() {
    return encodings.limits();
  }

  /**
   * {@code busy-reply-threshold} (or its old name {@code lua-time-limit}), milliseconds: once a
   * script has run this long, other clients' commands are answered BUSY, as in Redis (5000).
   */
  /**
   * {@code tracking-table-max-keys}: the most keys client-side caching remembers readers of (0: no
   * bound); past it, keys are dropped and their readers told to drop them too.
   */
  public long trackingTableMaxKeys() {
    return trackingTableMaxKeys;
  }

  public long busyReplyThreshold() {
    return busyReplyThreshold;
  }

  /**
   * {@code hll-sparse-max-bytes}: the largest a HyperLogLog's sparse form may grow, header
   * included, before it is made dense (Redis's default, 3000).
   */
  public long hllSparseMaxBytes() {
    return hllSparseMaxBytes;
  }

  /** {@code notify-keyspace-events} as {@link KeyspaceEventFlags} bits; 0 when off. */
  public int notifyKeyspaceEvents() {
    return notifyKeyspaceEvents;
  }

  /** {@code latency-tracking}: whether each command's latency goes into its histogram. */
  public boolean latencyTracking() {
    return latencyTracking;
  }

  /** {@code latency-tracking-info-percentiles}: what INFO latencystats reports (a copy). */
  public double[] latencyPercentiles() {
    return latencyPercentiles.clone();
  }

  /** Percentiles as Redis writes them: {@code %f} without its trailing zeros ("99.9", "50"). */
  public static String percentileName(double p) {
    String s = String.format(Locale.ROOT, "%f", p);
    s = s.replaceFirst("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }

  private static String formatPercentiles(double[] percentiles) {
    StringBuilder b = new StringBuilder();
    for (double p : percentiles) {
      b.append(b.isEmpty() ? "" : " ").append(percentileName(p));
    }
    return b.toString();
  }

  /** Space-separated percentiles, each 0 to 100, as Redis takes them; none is allowed. */
  private static double[] parsePercentiles(String v) {
    String trimmed = v.trim();
    if (trimmed.isEmpty()) {
      return new double[0];
    }
    String[] parts = trimmed.split("\\s+");
    double[] out = new double[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        out[i] = Double.parseDouble(parts[i]);
      } catch (NumberFormatException e) {
        out[i] = Double.NaN;
      }
      if (!(out[i] >= 0 && out[i] <= 100)) {
        throw new ConfigException(
            "latency-tracking-info-percentiles: '"
                + parts[i]
                + "' is not a percentile (a number from 0 to 100)");
      }
    }
    return out;
  }

  /** {@code latency-monitor-threshold}: milliseconds; 0 turns the latency monitor off. */
  public long latencyMonitorThreshold() {
    return latencyMonitorThreshold;
  }

  public int tlsPort() {
    return tlsPort;
  }

  public int httpsPort() {
    return httpsPort;
  }

  /**
   * Where {@code BGSAVE} backs the store up ({@code s3://bucket/prefix}, docs/backup.md), or null:
   * {@code BGSAVE} then writes a checkpoint only.
   */
  public String backupTarget() {
    return backupTarget;
  }

  private static String parseBackupTarget(String v) {
    if (v.isBlank()) {
      return null;
    }
    try {
      dev.cellar.backup.s3.S3Location.parse(v.strip());
    } catch (IllegalArgumentException e) {
      throw new ConfigException("argument '" + v + "' for 'backup-target': " + e.getMessage());
    }
    return v.strip();
  }

  /**
   * The key file the store's data is encrypted with ({@code docs/format/encryption.md}), or null
   * for none.
   */
  /** How the store reads its files ({@code --io}). */
  public IoMode io() {
    return io;
  }

  /** The read cache of a store whose io is direct ({@code --read-cache-size}). */
  public long readCacheSize() {
    return readCacheSize;
  }

  /** How the store compresses values at rest ({@code --compression}). */
  public Compression compression() {
    return compression;
  }

  public Path encryptionKeyFile() {
    return encryptionKeyFile;
  }

  public Path tlsCertFile() {
    return tlsCertFile;
  }

  public Path tlsKeyFile() {
    return tlsKeyFile;
  }

  /** The key file's passphrase, or null; never to be printed. */
  public String tlsKeyFilePass() {
    return tlsKeyFilePass;
  }

  public Path tlsCaCertFile() {
    return tlsCaCertFile;
  }

  public List<String> tlsProtocols() {
    return tlsProtocols;
  }

  /** As set, else {@code yes} when a CA is configured and {@code no} when none is. */
  public TlsAuthClients tlsAuthClients() {
    TlsAuthClients set = tlsAuthClients;
    if (set != null) {
      return set;
    }
    return tlsCaCertFile == null ? TlsAuthClients.NO : TlsAuthClients.YES;
  }

  public int segmentSize() {
    return (int) segmentSize;
  }

  public int aofRewritePercentage() {
    return aofRewritePercentage;
  }

  /** {@code loglevel}: the least severe messages written (Redis's names). */
  public LogLevel logLevel() {
    return logLevel;
  }

  /**
   * {@code logfile}: where log lines go, or null for standard output (and error, for warnings and
   * errors).
   */
  public Path logFile() {
    return logFile;
  }

  /** Every setting with its value (passwords redacted), for logs and {@code INFO}. */
  public Map<String, String> all() {
    return matching("*");
  }

  // ------------------------------------------------------------ value parsing

  private static int intIn(String name, String v, int min, int max) {
    return (int) longIn(name, v, min, max);
  }

  static long longIn(String name, String v, long min, long max) {
    long n;
    try {
      n = Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException("argument '" + v + "' for '" + name + "' is not an integer");
    }
    if (n < min || n > max) {
      throw new ConfigException(
          "argument " + n + " for '" + name + "' must be between " + min + " and " + max);
    }
    return n;
  }

  private static long atLeast(String name, long value, long min) {
    if (value < min) {
      throw new ConfigException(
          "argument " + value + " for '" + name + "' must be at least " + min);
    }
    return value;
  }

  /** Redis's memory units: {@code k m g} are powers of 1000, {@code kb mb gb} of 1024. */
  public static long parseBytes(String name, String v) {
    String s = v.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    String[][] units = {
      {"kb", "1024"},
      {"mb", "1048576"},
      {"gb", "1073741824"},
      {"k", "1000"},
      {"m", "1000000"},
      {"g", "1000000000"},
      {"b", "1"}
    };
    for (String[] u : units) {
      if (s.endsWith(u[0])) {
        unit = Long.parseLong(u[1]);
        s = s.substring(0, s.length() - u[0].length());
        break;
      }
    }
    try {
      long n = Long.parseLong(s);
      if (n < 0) {
        throw new ConfigException("argument '" + v + "' for '" + name + "' is negative");
      }
      return Math.multiplyExact(n, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new ConfigException(
          "argument '" + v + "' for '" + name + "' is not a size (such as 100mb or 1gb)");
    }
  }

  private static Path parsePath(String name, String v) {
    try {
      return Path.of(v);
    } catch (InvalidPathException e) {
      throw new ConfigException(
          "argument '" + v + "' for '" + name + "' is not a path: " + e.getReason());
    }
  }

  private static String pathOrEmpty(Path p) {
    return p == null ? "" : p.toString();
  }

  /**
   * Blank is unset; anything else is taken as it stands, like {@code dir}: stripping it would make
   * a value CONFIG GET reported (a path ending in whitespace) come back different when set. A path
   * that is blank only once parsed ({@code " /"}: the trailing slash is dropped) is refused, since
   * CONFIG GET would report it as a blank that, set back, unsets the file.
   */
  private static Path optionalPath(String name, String v) {
    if (v.isBlank()) {
      return null;
    }
    Path path = parsePath(name, v);
    if (path.toString().isBlank()) {
      throw new ConfigException(
          "argument '" + v + "' for '" + name + "' is not a path: it names only whitespace");
    }
    return path;
  }

  private static TlsAuthClients parseAuthClients(String v) {
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "yes" -> TlsAuthClients.YES;
      case "no" -> TlsAuthClients.NO;
      case "optional" -> TlsAuthClients.OPTIONAL;
      default ->
          throw new ConfigException(
              "argument '" + v + "' for 'tls-auth-clients' must be yes, no or optional");
    };
  }

  /** Space-separated as in Redis ({@code "TLSv1.2 TLSv1.3"}); older protocols are refused. */
  private static List<String> parseProtocols(String v) {
    List<String> out = new ArrayList<>();
    for (String word : v.trim().split("\\s+")) {
      String protocol =
          switch (word.toLowerCase(Locale.ROOT)) {
            case "tlsv1.2" -> "TLSv1.2";
            case "tlsv1.3" -> "TLSv1.3";
            default ->
                throw new ConfigException(
                    "argument '"
                        + v
                        + "' for 'tls-protocols' must be TLSv1.2, TLSv1.3 or both"
                        + " (space-separated); '"
                        + word
                        + "' is not supported");
          };
      if (!out.contains(protocol)) {
        out.add(protocol);
      }
    }
    return List.copyOf(out);
  }

  private static IoMode parseIo(String v) {
    try {
      return IoMode.parse(v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "Invalid argument '" + v + "' for CONFIG SET 'io': expected buffered or direct");
    }
  }

  private static long parseReadCacheSize(String v) {
    long bytes = parseBytes("read-cache-size", v);
    if (bytes < CellarOptions.MIN_READ_CACHE_BYTES) {
      throw new ConfigException("argument '" + v + "' for 'read-cache-size' must be at least 1mb");
    }
    return bytes;
  }

  private static Compression parseCompression(String v) {
    try {
      return Compression.parse(v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "Invalid argument '" + v + "' for CONFIG SET 'compression': expected none, lz4 or zstd");
    }
  }

  private static Fsync parseFsync(String v) {
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "always" -> Fsync.ALWAYS;
      case "everysec" -> Fsync.EVERYSEC;
      case "no" -> Fsync.NO;
      default ->
          throw new ConfigException(
              "argument '" + v + "' for 'appendfsync' must be always, everysec or no");
    };
  }

  private static EvictionPolicy parsePolicy(String v) {
    for (EvictionPolicy p : EvictionPolicy.values()) {
      if (p.redisName().equalsIgnoreCase(v.trim())) {
        return p;
      }
    }
    throw new ConfigException(
        "argument '"
            + v
            + "' for 'maxmemory-policy' must be one of noeviction, allkeys-lru, allkeys-lfu,"
            + " allkeys-random, volatile-lru, volatile-lfu, volatile-random, volatile-ttl");
  }

  private static boolean parseYesNo(String name, String v) {
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "yes" -> true;
      case "no" -> false;
      default ->
          throw new ConfigException("argument '" + v + "' for '" + name + "' must be yes or no");
    };
  }

  /**
   * Either a size, or Redis's {@code <class> <hard> <soft> <seconds>} groups: only the {@code
   * normal} class's hard limit counts, and a line for other classes only ({@code replica}, {@code
   * pubsub}, as Redis's stock config file has) leaves {@code current} as it is, since Cellar has no
   * such clients.
   */
  private static long parseOutputLimit(String v, long current) {
    String[] words = v.trim().split("\\s+");
    if (words.length == 1) {
      return atLeast(
          "client-output-buffer-limit",
          parseBytes("client-output-buffer-limit", words[0]),
          1024 * 1024);
    }
    if (words.length % 4 != 0) {
      throw new ConfigException(
          "argument '"
              + v
              + "' for 'client-output-buffer-limit' must be a size or 'normal <hard> <soft> <seconds>'");
    }
    long hard = -1;
    for (int i = 0; i < words.length; i += 4) {
      if (words[i].equalsIgnoreCase("normal")) {
        hard = parseBytes("client-output-buffer-limit", words[i + 1]);
      }
    }
    if (hard < 0) {
      return current;
    }
    // 0 means no limit in Redis; a server that must bound its memory keeps one, the largest.
    return hard == 0 ? Long.MAX_VALUE : atLeast("client-output-buffer-limit", hard, 1024 * 1024);
  }

  private static long parseSegmentSize(String v) {
    long bytes = parseBytes("segment-size", v);
    // The lower bound leaves room in a segment for the largest key and a value of 190 KiB.
    if (bytes < MIN_SEGMENT_SIZE || bytes > CellarOptions.MAX_SEGMENT_BYTES) {
      throw new ConfigException(
          "argument '" + v + "' for 'segment-size' must be between 256kb and 1gb");
    }
    return bytes;
  }

  private static String parseTransport(String v) {
    String t = v.trim().toLowerCase(Locale.ROOT);
    if (!List.of("auto", "io_uring", "epoll", "nio").contains(t)) {
      throw new ConfigException(
          "argument '" + v + "' for 'transport' must be auto, io_uring, epoll or nio");
    }
    return t;
  }

  /** Words of a config line: spaces separate, double quotes group. */
  static final class ConfigLine {
    static List<String> split(String line) {
      List<String> out = new ArrayList<>();
      StringBuilder word = new StringBuilder();
      boolean quoted = false;
      boolean any = false;
      for (int i = 0; i < line.length(); i++) {
        char c = line.charAt(i);
        if (c == '"') {
          quoted = !quoted;
          any = true;
        } else if (Character.isWhitespace(c) && !quoted) {
          if (any) {
            out.add(word.toString());
            word.setLength(0);
            any = false;
          }
        } else {
          word.append(c);
          any = true;
        }
      }
      if (quoted) {
        throw new ConfigException("unbalanced quotes in '" + line + "'");
      }
      if (any) {
        out.add(word.toString());
      }
      return out;
    }
  }
}
