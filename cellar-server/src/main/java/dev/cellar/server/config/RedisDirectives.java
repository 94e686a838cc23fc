package dev.cellar.server.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a Redis config file may say that Cellar has no setting for, sorted by what ignoring it would
 * do.
 *
 * <p>A directive is <em>ignored</em> (with one warning naming it) when leaving it out changes
 * nothing a client relies on: tuning of Redis's own machinery (encodings, RDB, replication buffers,
 * defragmentation), process management Cellar leaves to its supervisor ({@code daemonize}, {@code
 * pidfile}), or a feature that is off as written ({@code tls-cluster no}). So Debian's stock {@code
 * redis.conf} starts a Cellar server.
 *
 * <p>A directive is <em>refused</em> when ignoring it would quietly give the operator less than the
 * file asks for: a replica that would not replicate, a TLS cluster bus there is none of, a renamed
 * (meant to be hidden) command still callable under its own name, ACL users who could not log in, a
 * cipher restriction not applied. The message says why, so the operator can decide.
 *
 * <p>Anything else unknown is refused as a likely typo, as before.
 */
final class RedisDirectives {
  private RedisDirectives() {}

  /** Ignored whatever their value. */
  private static final Set<String> IGNORED =
      Set.of(
          // process and OS
          "daemonize",
          "supervised",
          "pidfile",
          "always-show-logo",
          "set-proc-title",
          "proc-title-template",
          "oom-score-adj",
          "oom-score-adj-values",
          "disable-thp",
          "jemalloc-bg-thread",
          "locale-collate",
          "syslog-enabled",
          "syslog-ident",
          "syslog-facility",
          "crash-log-enabled",
          "crash-memcheck-enabled",
          "enable-protected-configs",
          "enable-debug-command",
          "enable-module-command",
          "shutdown-timeout",
          "shutdown-on-sigint",
          "shutdown-on-sigterm",
          "ignore-warnings",
          // connections
          "tcp-backlog",
          "timeout",
          "tcp-keepalive",
          "unixsocketperm",
          "socket-mark-id",
          "io-threads-do-reads",
          "tls-session-caching",
          "tls-session-cache-size",
          "tls-session-cache-timeout",
          "tls-prefer-server-ciphers",
          "tls-dh-params-file",
          "tls-client-cert-file",
          "tls-client-key-file",
          "tls-client-key-file-pass",
          // snapshots and the AOF (Cellar's log is always on)
          "save",
          "stop-writes-on-bgsave-error",
          "rdbcompression",
          "rdbchecksum",
          "dbfilename",
          "rdb-del-sync-files",
          "rdb-key-save-delay",
          "rdb-save-incremental-fsync",
          "appendonly",
          "appendfilename",
          "appenddirname",
          "no-appendfsync-on-rewrite",
          "auto-aof-rewrite-min-size",
          "aof-load-truncated",
          "aof-use-rdb-preamble",
          "aof-timestamp-enabled",
          "aof-rewrite-incremental-fsync",
          "sanitize-dump-payload",
          // replication settings of a server that replicates nothing
          "replica-serve-stale-data",
          "slave-serve-stale-data",
          "replica-read-only",
          "slave-read-only",
          "repl-diskless-sync",
          "repl-diskless-sync-delay",
          "repl-diskless-sync-max-replicas",
          "repl-diskless-load",
          "repl-disable-tcp-nodelay",
          "repl-ping-replica-period",
          "repl-ping-slave-period",
          "repl-timeout",
          "repl-backlog-size",
          "repl-backlog-ttl",
          "replica-priority",
          "slave-priority",
          "replica-announced",
          "replica-announce-ip",
          "replica-announce-port",
          "slave-announce-ip",
          "slave-announce-port",
          "min-replicas-to-write",
          "min-replicas-max-lag",
          "min-slaves-to-write",
          "min-slaves-max-lag",
          "masterauth",
          "masteruser",
          "replica-lazy-flush",
          "slave-lazy-flush",
          "replica-ignore-maxmemory",
          "replica-ignore-disk-write-errors",
          "propagation-error-behavior",
          // memory, eviction and encodings of Redis's own structures
          "maxmemory-samples",
          "maxmemory-eviction-tenacity",
          "lfu-log-factor",
          "lfu-decay-time",
          "lazyfree-lazy-eviction",
          "lazyfree-lazy-expire",
          "lazyfree-lazy-server-del",
          "lazyfree-lazy-user-del",
          "lazyfree-lazy-user-flush",
          "activerehashing",
          "activedefrag",
          "active-defrag-ignore-bytes",
          "active-defrag-threshold-lower",
          "active-defrag-threshold-upper",
          "active-defrag-cycle-min",
          "active-defrag-cycle-max",
          "active-defrag-max-scan-fields",
          "hz",
          "dynamic-hz",
          "list-compress-depth",
          "stream-node-max-bytes",
          "stream-node-max-entries",
          // diagnostics and scripting limits
          "acllog-max-len",
          "slowlog-log-slower-than",
          "slowlog-max-len",
          "latency-monitor-threshold",
          "cluster-config-file");

  /**
   * Ignored only with these values (off as written); any other value is refused with the reason.
   */
  private static final Map<String, List<String>> IGNORED_WHEN =
      Map.of(
          "tls-replication", List.of("no"),
          "tls-cluster", List.of("no"));

  /** Why each refused directive cannot be honoured. */
  private static final Map<String, String> REFUSED =
      Map.ofEntries(
          Map.entry(
              "tls-replication",
              "Cellar has no replication; set tls-replication no or remove the line"),
          Map.entry(
              "tls-cluster", "Cellar has no cluster bus; set tls-cluster no or remove the line"),
          Map.entry(
              "replicaof",
              "Cellar has no replication: this server would not follow that primary; remove the line"),
          Map.entry(
              "slaveof",
              "Cellar has no replication: this server would not follow that primary; remove the line"),
          Map.entry(
              "rename-command",
              "Cellar cannot rename or disable commands: the command would stay callable under its"
                  + " own name; remove the line (and protect the server with requirepass)"),
          Map.entry(
              "user",
              "Cellar has no ACL users, only requirepass: these users could not log in; use requirepass"),
          Map.entry("aclfile", "Cellar has no ACL users, only requirepass; use requirepass"),
          Map.entry("loadmodule", "Cellar cannot load Redis modules; remove the line"),
          Map.entry(
              "unixsocket",
              "Cellar listens on TCP only (bind, port); clients of the socket could not connect"),
          Map.entry(
              "include", "Cellar does not read included files; copy their lines into this file"),
          Map.entry(
              "tls-ciphers",
              "Cellar uses the JDK's TLS 1.2 cipher suites and cannot restrict them; remove the line"),
          Map.entry(
              "tls-ciphersuites",
              "Cellar uses the JDK's TLS 1.3 cipher suites and cannot restrict them; remove the line"),
          Map.entry("sentinel", "this is a Sentinel configuration; Cellar is not a Sentinel"));

  /** What to tell the operator about the ignored directives most often set on purpose. */
  private static final Map<String, String> HINTS =
      Map.of(
          "daemonize",
              "Cellar stays in the foreground; run it under a supervisor (systemd, a container) instead",
          "supervised", "Cellar needs no supervisor protocol; SIGTERM stops it cleanly",
          "pidfile", "Cellar writes no pid file; its supervisor knows the pid",
          "save", "Cellar has no RDB snapshots; its log and checkpoints keep the data",
          "appendonly", "Cellar's log is always on",
          "timeout", "Cellar does not close idle RESP clients",
          "syslog-enabled", "Cellar logs to logfile or standard output only");

  /** Why an ignored directive is harmless, for its warning. */
  static String whyIgnored(String name) {
    return HINTS.getOrDefault(
        name.toLowerCase(Locale.ROOT), "a Redis setting Cellar does not need");
  }

  /** How a config file line naming {@code name} with {@code value} is treated. */
  enum Verdict {
    IGNORE,
    REFUSE,
    UNKNOWN
  }

  /**
   * Ignored directives Redis itself refuses to change at run time ({@code IMMUTABLE_CONFIG}):
   * {@code CONFIG SET} of another value than the one given at start is refused, as Redis refuses
   * it.
   */
  private static final Map<String, String> IMMUTABLE_IN_REDIS =
      Map.ofEntries(
          Map.entry("daemonize", "no"),
          // Shown empty: no primary. A config file naming one is refused (REFUSED).
          Map.entry("replicaof", ""),
          Map.entry("slaveof", ""),
          Map.entry("supervised", "no"),
          Map.entry("pidfile", ""),
          Map.entry("always-show-logo", "no"),
          Map.entry("set-proc-title", "yes"),
          Map.entry("disable-thp", "yes"),
          Map.entry("syslog-enabled", "no"),
          Map.entry("syslog-ident", "redis"),
          Map.entry("syslog-facility", "local0"),
          Map.entry("tcp-backlog", "511"),
          Map.entry("unixsocketperm", "0"),
          Map.entry("enable-protected-configs", "no"),
          Map.entry("enable-debug-command", "no"),
          Map.entry("enable-module-command", "no"));

  static boolean immutableInRedis(String name) {
    return IMMUTABLE_IN_REDIS.containsKey(name);
  }

  /**
   * The value of an immutable Redis directive no config file set (what {@code CONFIG SET} takes).
   */
  static String redisDefault(String name) {
    return IMMUTABLE_IN_REDIS.get(name);
  }

  /**
   * What {@code CONFIG GET} shows for Redis directives Cellar has no part of where nothing set
   * them: Redis's defaults for its immutable ones and for some tuning ({@link #TUNING_DEFAULTS}),
   * and an empty {@code replicaof} (and its old name {@code slaveof}), which is what Redis shows on
   * a server that is no replica, as this one never is. Tools read these to learn what kind of
   * server they talk to.
   */
  static Map<String, String> shownWhenUnset() {
    return SHOWN_WHEN_UNSET;
  }

  /**
   * Redis's defaults (7.2) for the tuning directives Cellar ignores whatever their value, shown by
   * {@code CONFIG GET} where no file or {@code CONFIG SET} gave one, as Redis shows them. Only
   * knobs whose default says nothing false about Cellar: not {@code appendonly} or {@code save},
   * whose Redis defaults would describe a server without its log. Cellar's LFU counter uses the
   * factor and decay these name.
   */
  private static final Map<String, String> TUNING_DEFAULTS =
      Map.ofEntries(
          Map.entry("maxmemory-samples", "5"),
          Map.entry("maxmemory-eviction-tenacity", "10"),
          Map.entry("lfu-log-factor", "10"),
          Map.entry("lfu-decay-time", "1"),
          Map.entry("hz", "10"),
          Map.entry("dynamic-hz", "yes"),
          Map.entry("activerehashing", "yes"),
          Map.entry("activedefrag", "no"),
          Map.entry("lazyfree-lazy-eviction", "no"),
          Map.entry("lazyfree-lazy-expire", "no"),
          Map.entry("lazyfree-lazy-server-del", "no"),
          Map.entry("lazyfree-lazy-user-del", "no"),
          Map.entry("lazyfree-lazy-user-flush", "no"),
          Map.entry("list-compress-depth", "0"),
          Map.entry("stream-node-max-bytes", "4096"),
          Map.entry("stream-node-max-entries", "100"));

  private static final Map<String, String> SHOWN_WHEN_UNSET = shownWhenUnsetOf();

  private static Map<String, String> shownWhenUnsetOf() {
    Map<String, String> shown = new java.util.TreeMap<>(IMMUTABLE_IN_REDIS);
    shown.putAll(TUNING_DEFAULTS);
    return java.util.Collections.unmodifiableMap(shown);
  }

  /** Whether Cellar ignores {@code name} whatever its value (see the class notes). */
  static boolean ignoredAlways(String name) {
    return IGNORED.contains(name.toLowerCase(Locale.ROOT));
  }

  static Verdict judge(String name, String value) {
    String n = name.toLowerCase(Locale.ROOT);
    List<String> harmless = IGNORED_WHEN.get(n);
    if (harmless != null) {
      return harmless.contains(value.trim().toLowerCase(Locale.ROOT))
          ? Verdict.IGNORE
          : Verdict.REFUSE;
    }
    if (IGNORED.contains(n)) {
      return Verdict.IGNORE;
    }
    return REFUSED.containsKey(n) ? Verdict.REFUSE : Verdict.UNKNOWN;
  }

  /**
   * The directive as messages show it: its name, and its value only where the value is what decides
   * (tls-cluster yes or no). Other values are never repeated, since some are secrets ({@code
   * masterauth}, {@code user}'s passwords, {@code tls-client-key-file-pass}).
   */
  static String shown(String name, String value) {
    return IGNORED_WHEN.containsKey(name.toLowerCase(Locale.ROOT))
        ? name + " " + value.trim()
        : name;
  }

  static String whyRefused(String name) {
    return REFUSED.get(name.toLowerCase(Locale.ROOT));
  }
}
