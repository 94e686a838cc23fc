package dev.cellar.cli.server;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
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
      "SIGTERM or SHUTDOWN flush, fsync and checkpoint before exit."
    })
public final class ServerCommand implements Callable<Integer> {
  @Parameters(index = "0", arity = "0..1", paramLabel = "CONFIG-FILE", description = "Redis-style config file (name value per line).")
  Path configFile;

  @Option(names = "--port", description = "RESP port (default 6379; 0 picks a free one).") String port;
  @Option(names = "--bind", description = "Address to listen on (default 127.0.0.1).") String bind;
  @Option(names = "--dir", description = "Data directory (default ./data).") String dir;
  @Option(names = {"--fsync", "--appendfsync"}, description = "always | everysec | no (default everysec).") String fsync;
  @Option(names = {"--threads", "--io-threads"}, description = "Event loops (default: cores).") String threads;
  @Option(names = "--maxmemory", description = "Limit of used memory, such as 100mb or 2gb (default 0: none).") String maxMemory;
  @Option(names = "--maxmemory-policy", description = "noeviction | allkeys-random | volatile-random | volatile-ttl.") String policy;
  @Option(names = "--requirepass", description = "Password clients must AUTH with (HTTP: Authorization: Bearer).") String requirePass;
  @Option(names = "--http-port", description = "HTTP port (default 6380; 0 disables).") String httpPort;
  @Option(names = "--protected-mode", description = "yes | no: refuse a non-loopback bind without a password.") String protectedMode;
  @Option(names = "--maxclients", description = "Most clients at once (default 10000).") String maxClients;
  @Option(names = "--proto-max-bulk-len", description = "Largest bulk string (default 16mb).") String maxBulk;
  @Option(names = "--client-query-buffer-limit", description = "Largest unparsed input per client (default 64mb).") String queryLimit;
  @Option(names = "--maxmemory-clients", description = "Most memory all clients' buffers may hold together, bytes or a percentage of the heap (default 25%%; 0: no limit).") String clientMemory;
  @Option(names = "--client-output-buffer-limit", description = "Unsent replies at which a client is cut off (default 64mb).") String outputLimit;
  @Option(names = "--transport", description = "auto | io_uring | epoll | nio (default auto).") String transport;
  @Option(names = "--tls-port", description = "RESP over TLS port (default 0: off); with it, --port 0 turns plaintext RESP off.") String tlsPort;
  @Option(names = "--https-port", description = "HTTPS port, same certificate as --tls-port (default 0: off).") String httpsPort;
  @Option(names = "--tls-cert-file", description = "Server certificate (chain), PEM.") String tlsCertFile;
  @Option(names = "--tls-key-file", description = "Server private key, PEM PKCS#8 (BEGIN PRIVATE KEY).") String tlsKeyFile;
  @Option(names = "--tls-key-file-pass", description = "Passphrase of an encrypted key file (prefer the config file: flags show in ps).") String tlsKeyFilePass;
  @Option(names = "--tls-ca-cert-file", description = "CA certificates that sign client certificates, PEM.") String tlsCaCertFile;
  @Option(names = "--tls-auth-clients", description = "yes | no | optional: client certificates (default yes with a CA, no without).") String tlsAuthClients;
  @Option(names = "--tls-protocols", description = "TLS versions, space-separated (default \"TLSv1.2 TLSv1.3\").") String tlsProtocols;
  @Option(names = "--auto-aof-rewrite-percentage", description = "Background compaction starts once the log has grown this many percent beyond its live data (default 100; 0: only BGREWRITEAOF).") String aofRewritePercentage;
  @Option(names = "--segment-size", description = "Expert: log segment size, 256kb to 1gb (default 64mb); smaller caps values.") String segmentSize;

  @Override
  public Integer call() throws Exception {
    ServerConfig config = new ServerConfig();
    if (configFile != null) {
      config.load(configFile);
    }
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
    flags.put("auto-aof-rewrite-percentage", aofRewritePercentage);
    flags.forEach((name, value) -> {
      if (value != null) {
        config.set(name, value);
      }
    });
    CellarServer server = CellarServer.start(config);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "cellar-sigterm"));
    System.out.println("cellar: serving " + config.dir().toAbsolutePath() + " (appendfsync " + config.fsync().name().toLowerCase()
        + ", " + config.threads() + " threads, " + server.transport() + ")");
    System.out.println("cellar: " + listening(config.bind(), server));
    System.out.flush();
    server.awaitStop();
    return 0;
  }

  private static String listening(String host, CellarServer server) {
    StringBuilder s = new StringBuilder();
    s.append(server.port() == 0 ? "plaintext RESP off" : "RESP on " + host + ":" + server.port());
    if (server.tlsPort() != 0) {
      s.append(", RESP over TLS on ").append(host).append(':').append(server.tlsPort());
    }
    s.append(server.httpPort() == 0 ? ", HTTP off" : ", HTTP on http://" + host + ":" + server.httpPort());
    if (server.httpsPort() != 0) {
      s.append(", HTTPS on https://").append(host).append(':').append(server.httpsPort());
    }
    return s.toString();
  }
}
