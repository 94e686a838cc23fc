package dev.cellar.cli.server;

import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.tool.ToolEnvironment;
import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ConfigFile;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.log.LogLine;
import dev.cellar.server.log.ServerLog;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cellar server [config-file] [--name value ...]}: settings come from the optional config
 * file first (Redis-style {@code name value} lines), then from flags, which win.
 */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the Cellar server: the Redis protocol (RESP2/RESP3) on --port and HTTP on --http-port,"
          + " over a store in --dir.",
      "SIGTERM, Ctrl-C or SHUTDOWN flush, fsync and checkpoint before exit (0 when clean).",
      "A stock redis.conf is accepted: directives Cellar does not need are ignored with a warning each."
    })
public final class ServerCommand implements Callable<Integer> {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "CONFIG-FILE",
      description = "Redis-style config file (name value per line).")
  Path configFile;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "RESP port (default 6379; 0 picks a free one).")
  String port;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      description = "Address to listen on (default 127.0.0.1).")
  String bind;

  @Option(names = "--dir", paramLabel = "DIR", description = "Data directory (default ./data).")
  String dir;

  @Option(
      names = {"--fsync", "--appendfsync"},
      paramLabel = "MODE",
      description = "always | everysec | no (default everysec).")
  String fsync;

  @Option(
      names = {"--threads", "--io-threads"},
      paramLabel = "N",
      description = "Event loops (default: cores).")
  String threads;

  @Option(
      names = "--maxmemory",
      paramLabel = "SIZE",
      description = "Limit of used memory, such as 100mb or 2gb (default 0: none).")
  String maxMemory;

  @Option(
      names = "--maxmemory-policy",
      paramLabel = "POLICY",
      description = "noeviction | allkeys-random | volatile-random | volatile-ttl.")
  String policy;

  @Option(
      names = "--requirepass",
      paramLabel = "PASSWORD",
      description = "Password clients must AUTH with (HTTP: Authorization: Bearer).")
  String requirePass;

  @Option(
      names = "--http-port",
      paramLabel = "PORT",
      description = "HTTP port (default 6380; 0 disables).")
  String httpPort;

  @Option(
      names = "--protected-mode",
      paramLabel = "yes|no",
      description = "yes | no: refuse a non-loopback bind without a password.")
  String protectedMode;

  @Option(
      names = "--maxclients",
      paramLabel = "N",
      description = "Most clients at once (default 10000).")
  String maxClients;

  @Option(
      names = "--proto-max-bulk-len",
      paramLabel = "SIZE",
      description = "Largest bulk string (default 16mb).")
  String maxBulk;

  @Option(
      names = "--client-query-buffer-limit",
      paramLabel = "SIZE",
      description = "Largest unparsed input per client (default 64mb).")
  String queryLimit;

  @Option(
      names = "--maxmemory-clients",
      paramLabel = "SIZE|PERCENT",
      description =
          "Most memory all clients' buffers may hold together, bytes or a percentage of the heap (default 25%%; 0: no limit).")
  String clientMemory;

  @Option(
      names = "--client-output-buffer-limit",
      paramLabel = "SIZE",
      description = "Unsent replies at which a client is cut off (default 64mb).")
  String outputLimit;

  @Option(
      names = "--transport",
      paramLabel = "TRANSPORT",
      description = "auto | io_uring | epoll | nio (default auto).")
  String transport;

  @Option(
      names = "--tls-port",
      paramLabel = "PORT",
      description =
          "RESP over TLS port (default 0: off); with it, --port 0 turns plaintext RESP off.")
  String tlsPort;

  @Option(
      names = "--https-port",
      paramLabel = "PORT",
      description = "HTTPS port, same certificate as --tls-port (default 0: off).")
  String httpsPort;

  @Option(
      names = "--tls-cert-file",
      paramLabel = "FILE",
      description = "Server certificate (chain), PEM.")
  String tlsCertFile;

  @Option(
      names = "--tls-key-file",
      paramLabel = "FILE",
      description = "Server private key, PEM PKCS#8 (BEGIN PRIVATE KEY).")
  String tlsKeyFile;

  @Option(
      names = "--tls-key-file-pass",
      paramLabel = "PASSPHRASE",
      description =
          "Passphrase of an encrypted key file (prefer the config file: flags show in ps).")
  String tlsKeyFilePass;

  @Option(
      names = "--tls-ca-cert-file",
      paramLabel = "FILE",
      description = "CA certificates that sign client certificates, PEM.")
  String tlsCaCertFile;

  @Option(
      names = "--tls-auth-clients",
      paramLabel = "yes|no|optional",
      description = "yes | no | optional: client certificates (default yes with a CA, no without).")
  String tlsAuthClients;

  @Option(
      names = "--tls-protocols",
      paramLabel = "VERSIONS",
      description = "TLS versions, space-separated (default \"TLSv1.2 TLSv1.3\").")
  String tlsProtocols;

  @Option(
      names = "--auto-aof-rewrite-percentage",
      paramLabel = "PERCENT",
      description =
          "Background compaction starts once the log has grown this many percent beyond its live data (default 100; 0: only BGREWRITEAOF).")
  String aofRewritePercentage;

  @Option(
      names = "--loglevel",
      paramLabel = "LEVEL",
      description =
          "debug | verbose | notice | warning | nothing (default notice); debug also prints a failed start's stack trace.")
  String logLevel;

  @Option(
      names = "--logfile",
      paramLabel = "FILE",
      description =
          "File to append log lines to (default \"\": standard output, warnings and errors on standard error).")
  String logFile;

  @Option(
      names = "--http-maxclients",
      paramLabel = "N",
      description = "Most HTTP and HTTPS connections at once; more get 503 (default 1000).")
  String httpMaxClients;

  @Option(
      names = "--http-header-timeout",
      paramLabel = "SECONDS",
      description = "Seconds from a request's first byte to its last header (default 10; 0: none).")
  String httpHeaderTimeout;

  @Option(
      names = "--http-idle-timeout",
      paramLabel = "SECONDS",
      description =
          "Seconds an HTTP connection may sit idle between requests (default 120; 0: none).")
  String httpIdleTimeout;

  @Option(
      names = "--ipc",
      paramLabel = "yes|no",
      description =
          "Serve same-host clients through shared memory (default yes; the discovery file is"
              + " cellar.ipc in the data directory).")
  String ipc;

  @Option(
      names = "--ipc-agents",
      paramLabel = "N",
      description = "Threads serving shared-memory clients, 1 to 16 (default 1).")
  String ipcAgents;

  @Option(
      names = "--ipc-max-ring",
      paramLabel = "SIZE",
      description =
          "Largest ring a shared-memory client may ask for, each way: a power of two, 4kb to"
              + " 64mb (default 16mb).")
  String ipcMaxRing;

  @Option(
      names = "--ipc-client-timeout",
      paramLabel = "SECONDS",
      description =
          "Seconds a shared-memory client may go without a heartbeat (default 30; 0: only its"
              + " process is checked).")
  String ipcClientTimeout;

  @Option(
      names = "--backup-target",
      paramLabel = "s3://BUCKET/PREFIX",
      description =
          "BGSAVE backs the running store up there (endpoint and credentials as for cellar tool"
              + " backup, from the environment); without it BGSAVE writes a checkpoint.")
  String backupTarget;

  @Option(
      names = "--encryption-key-file",
      paramLabel = "FILE",
      description =
          "Encrypt the data at rest (AES-256-GCM) with the keys in FILE: lines '<id> <64 hex"
              + " digits>', the highest id current (default: $CELLAR_ENCRYPTION_KEY_FILE if set,"
              + " else no encryption).")
  String encryptionKeyFile;

  @Option(
      names = "--compression",
      paramLabel = "none|lz4|zstd",
      description =
          "Compress values at rest, off the request path: compaction rewrites each sealed log"
              + " segment once, every value compressed against a dictionary trained on the"
              + " store's own data (default: none).")
  String compression;

  @Option(
      names = "--io",
      paramLabel = "buffered|direct",
      description =
          "How the store reads its files: buffered, through the page cache (default), or direct,"
              + " sealed segments with O_DIRECT through an off-heap read cache of"
              + " --read-cache-size.")
  String io;

  @Option(
      names = "--read-cache-size",
      paramLabel = "SIZE",
      description = "The read cache of --io direct (default 256mb, at least 1mb).")
  String readCacheSize;

  @Option(
      names = "--databases",
      paramLabel = "N",
      description = "How many databases SELECT chooses from, 1 to 65536 (default 16).")
  String databases;

  @Option(
      names = "--segment-size",
      paramLabel = "SIZE",
      description = "Expert: log segment size, 256kb to 1gb (default 64mb); smaller caps values.")
  String segmentSize;

  @Override
  public Integer call() throws Exception {
    return serve(settings(configFile, flags()));
  }

  /**
   * Runs {@code cellar server} (args[0]) without picocli when {@link ServerArguments} can read the
   * rest; returns the exit code, or null when picocli must read them. A failure is reported as
   * picocli's path reports it ({@link CellarCommand}): an expected one in one line, a bug with its
   * stack trace, both exit 1.
   */
  public static Integer runWithoutPicocli(String[] args) {
    ServerArguments parsed = ServerArguments.parse(args, 1);
    if (parsed == null) {
      return null;
    }
    try {
      return serve(settings(parsed.configFile(), parsed.flags()));
    } catch (Exception e) {
      String message = CellarCommand.expectedFailureMessage(e);
      if (message == null) {
        e.printStackTrace();
      } else {
        System.err.println("cellar server: " + message);
      }
      System.err.flush();
      return CellarCommand.EXIT_FAILURE;
    }
  }

  /** A start's settings: the config file's and the flags', and the file's warnings to log. */
  record Settings(ServerConfig config, List<String> warnings) {}

  /** The environment variable that names a key file when no flag or directive does. */
  public static final String KEY_FILE_VARIABLE = "CELLAR_ENCRYPTION_KEY_FILE";

  /**
   * The config file's settings, then the flags' (null: not given), which win. Both ways of reading
   * the command line ({@code ServerArguments} and picocli's) come here.
   */
  static Settings settings(Path configFile, Map<String, String> flags) {
    ServerConfig config = new ServerConfig();
    // The environment's key file is a default that the config file and the flags override.
    String keyFile = ToolEnvironment.variable(KEY_FILE_VARIABLE);
    if (keyFile != null && !keyFile.isBlank()) {
      config.set("encryption-key-file", keyFile);
    }
    List<String> warnings = configFile == null ? List.of() : ConfigFile.read(configFile, config);
    flags.forEach(
        (name, value) -> {
          if (value != null) {
            config.set(name, value);
          }
        });
    return new Settings(config, warnings);
  }

  /** Runs the server until it stops; returns the exit code. */
  static int serve(Settings settings) throws InterruptedException {
    ServerConfig config = settings.config();
    ServerLog.install(config);
    settings.warnings().forEach(w -> LOG.log(System.Logger.Level.WARNING, w));
    CellarServer server = start(config);
    // SIGTERM and SIGINT (Ctrl-C) run this; so does the exit after SHUTDOWN, when the server has
    // stopped already. halt: the JVM would otherwise exit with 128 + the signal's number even
    // after a clean stop, which supervisors read as a failure.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  boolean clean = server.stop("signal: SIGTERM or SIGINT");
                  System.out.flush();
                  System.err.flush();
                  Runtime.getRuntime()
                      .halt(clean ? CellarCommand.EXIT_OK : CellarCommand.EXIT_FAILURE);
                },
                "cellar-sigterm"));
    LOG.log(
        System.Logger.Level.INFO,
        "serving "
            + config.dir().toAbsolutePath()
            + " (appendfsync "
            + config.fsync().name().toLowerCase()
            + ", "
            + config.threads()
            + " threads, "
            + server.transport()
            + ")");
    LOG.log(System.Logger.Level.INFO, listening(config.bind(), server));
    server.awaitStop();
    return 0;
  }

  Map<String, String> flags() {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("port", port);
    flags.put("bind", bind);
    flags.put("dir", dir);
    flags.put("appendfsync", fsync);
    flags.put("io-threads", threads);
    flags.put("maxmemory", maxMemory);
    flags.put("maxmemory-policy", policy);
    flags.put("requirepass", requirePass);
    flags.put("http-port", httpPort);
    flags.put("protected-mode", protectedMode);
    flags.put("maxclients", maxClients);
    flags.put("proto-max-bulk-len", maxBulk);
    flags.put("client-query-buffer-limit", queryLimit);
    flags.put("maxmemory-clients", clientMemory);
    flags.put("client-output-buffer-limit", outputLimit);
    flags.put("transport", transport);
    flags.put("tls-port", tlsPort);
    flags.put("https-port", httpsPort);
    flags.put("tls-cert-file", tlsCertFile);
    flags.put("tls-key-file", tlsKeyFile);
    flags.put("tls-key-file-pass", tlsKeyFilePass);
    flags.put("tls-ca-cert-file", tlsCaCertFile);
    flags.put("tls-auth-clients", tlsAuthClients);
    flags.put("tls-protocols", tlsProtocols);
    flags.put("segment-size", segmentSize);
    flags.put("databases", databases);
    flags.put("encryption-key-file", encryptionKeyFile);
    flags.put("compression", compression);
    flags.put("io", io);
    flags.put("read-cache-size", readCacheSize);
    flags.put("backup-target", backupTarget);
    flags.put("auto-aof-rewrite-percentage", aofRewritePercentage);
    flags.put("loglevel", logLevel);
    flags.put("logfile", logFile);
    flags.put("http-maxclients", httpMaxClients);
    flags.put("http-header-timeout", httpHeaderTimeout);
    flags.put("http-idle-timeout", httpIdleTimeout);
    flags.put("ipc", ipc);
    flags.put("ipc-agents", ipcAgents);
    flags.put("ipc-max-ring", ipcMaxRing);
    flags.put("ipc-client-timeout", ipcClientTimeout);
    return flags;
  }

  /**
   * Starts the server, turning any failure into one line that says what to do (a port in use, a
   * locked directory, a bad certificate, ...); the stack trace is logged only under {@code loglevel
   * debug}, for the rare failure whose message is not enough.
   */
  private static CellarServer start(ServerConfig config) {
    try {
      return CellarServer.start(config);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.DEBUG, "the server did not start", e);
      String message = CellarCommand.expectedFailureMessage(e);
      String line =
          message != null ? message : LogLine.summary(e) + " (--loglevel debug shows where)";
      if (config.logFile() != null) {
        LOG.log(System.Logger.Level.ERROR, "the server did not start: " + line);
      }
      throw new StartFailure(line, e);
    }
  }

  /** A failed start, already put in one line; printed without a stack trace. */
  public static final class StartFailure extends RuntimeException {
    StartFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private static String listening(String host, CellarServer server) {
    StringBuilder s = new StringBuilder();
    s.append(server.port() == 0 ? "plaintext RESP off" : "RESP on " + host + ":" + server.port());
    if (server.tlsPort() != 0) {
      s.append(", RESP over TLS on ").append(host).append(':').append(server.tlsPort());
    }
    s.append(
        server.httpPort() == 0
            ? ", HTTP off"
            : ", HTTP on http://" + host + ":" + server.httpPort());
    if (server.httpsPort() != 0) {
      s.append(", HTTPS on https://").append(host).append(':').append(server.httpsPort());
    }
    return s.toString();
  }
}
