package dev.cellar.cli.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.CommandRun;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code cellar server} as an operator meets it, each in a JVM of its own: what a stop prints and
 * its exit code, a start that cannot listen, Debian's stock {@code redis.conf}, and the log's one
 * format, level and file.
 */
class ServerOperationsTest {
  /** Debian 12's {@code /etc/redis/redis.conf} (redis-server 7.0.15), unchanged. */
  private static final String STOCK_CONF = "/debian-redis-7.0.15.conf";

  /** Lines of it that set something Cellar has. */
  private static final Set<String> CELLAR_SETTINGS =
      Set.of(
          "bind",
          "protected-mode",
          "port",
          "loglevel",
          "logfile",
          "dir",
          "appendfsync",
          "auto-aof-rewrite-percentage",
          "client-output-buffer-limit",
          "notify-keyspace-events",
          "databases",
          "hash-max-listpack-entries",
          "hash-max-listpack-value",
          "list-max-listpack-size",
          "set-max-intset-entries",
          "zset-max-listpack-entries",
          "zset-max-listpack-value",
          "hll-sparse-max-bytes");

  @TempDir Path tmp;

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT"})
  void sigtermAndCtrlCPrintEachStepAndExitZero(String signal) throws Exception {
    try (ServerProcess server =
        ServerProcess.run(
            tmp, "--port", "0", "--http-port", "0", "--dir", tmp.resolve("data").toString())) {
      int port = server.awaitPort();
      assertEquals("+OK", ServerProcess.command(port, "SET", "k", "v"));
      assertEquals(CellarCommand.EXIT_OK, server.signal(signal), server::toString);
      String out = server.stdout();
      for (String step :
          List.of(
              "shutting down (signal: SIGTERM or SIGINT)",
              "log flushed and fsynced",
              "checkpoint written",
              "stopped; data synced")) {
        assertTrue(out.contains(step), () -> "no '" + step + "' in " + server);
      }
      assertEquals("", server.stderr(), server::toString);
      everyLineHasTheFormat(out);
    }
  }

  @Test
  void portInUseIsOneLineNamingTheAddressAndTheDataDirectoryIsNotCreated() throws Exception {
    Path data = tmp.resolve("data");
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      int port = taken.getLocalPort();
      try (ServerProcess server =
          ServerProcess.run(
              tmp,
              "--port",
              Integer.toString(port),
              "--http-port",
              "0",
              "--dir",
              data.toString())) {
        assertEquals(CellarCommand.EXIT_FAILURE, server.awaitExit(), server::toString);
        List<String> lines = server.stderr().lines().toList();
        assertEquals(1, lines.size(), server::toString);
        assertTrue(lines.getFirst().contains("127.0.0.1:" + port), server::toString);
        assertTrue(lines.getFirst().contains("already in use"), server::toString);
        assertFalse(Files.exists(data), "the data directory was created: " + server);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--bind nosuchhost.invalid --protected-mode no",
        "--bind 192.0.2.1 --protected-mode no",
        "--logfile missing/cellar.log",
        "--tls-port 0 --https-port 1",
        "--maxmemory lots"
      })
  void startFailuresAreOneLineBeforeTheDataDirectoryIsTouched(String flags) throws Exception {
    Path data = tmp.resolve("data");
    List<String> args =
        new java.util.ArrayList<>(
            List.of("--port", "0", "--http-port", "0", "--dir", data.toString()));
    args.addAll(List.of(flags.replace("missing/", tmp.resolve("missing") + "/").split(" ")));
    try (ServerProcess server = ServerProcess.run(tmp, args.toArray(String[]::new))) {
      assertEquals(CellarCommand.EXIT_FAILURE, server.awaitExit(), server::toString);
      List<String> lines = server.stderr().lines().toList();
      assertEquals(1, lines.size(), server::toString);
      assertTrue(lines.getFirst().startsWith("cellar server: "), server::toString);
      assertFalse(server.stdout().contains("\tat "), server::toString);
      assertFalse(Files.exists(data), "the data directory was created: " + server);
    }
  }

  @Test
  void loglevelDebugAddsTheStackTraceOfAFailedStart() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ServerProcess server =
            ServerProcess.run(
                tmp,
                "--port",
                Integer.toString(taken.getLocalPort()),
                "--http-port",
                "0",
                "--dir",
                tmp.resolve("data").toString(),
                "--loglevel",
                "debug")) {
      assertEquals(CellarCommand.EXIT_FAILURE, server.awaitExit(), server::toString);
      assertTrue(
          server.stdout().contains("\tat dev.cellar.server.net.PortCheck"), server::toString);
      assertEquals(1, server.stderr().lines().count(), server::toString);
    }
  }

  @Test
  void httpPortInUseIsReportedToo() throws Exception {
    Path data = tmp.resolve("data");
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      int port = taken.getLocalPort();
      try (ServerProcess server =
          ServerProcess.run(
              tmp,
              "--port",
              "0",
              "--http-port",
              Integer.toString(port),
              "--dir",
              data.toString())) {
        assertEquals(CellarCommand.EXIT_FAILURE, server.awaitExit(), server::toString);
        String err = server.stderr();
        assertEquals(1, err.lines().count(), server::toString);
        assertTrue(err.contains("127.0.0.1:" + port + " (http-port)"), server::toString);
        assertFalse(Files.exists(data), server::toString);
      }
    }
  }

  @Test
  void stockRedisConfStartsWithOneWarningPerIgnoredDirective() throws Exception {
    Path conf = tmp.resolve("redis.conf");
    try (InputStream in = getClass().getResourceAsStream(STOCK_CONF)) {
      Files.copy(in, conf);
    }
    // The file's dir and logfile point into /var: flags override them, as they override any line.
    try (ServerProcess server =
        ServerProcess.run(
            tmp,
            conf.toString(),
            "--port",
            "0",
            "--http-port",
            "0",
            "--dir",
            tmp.resolve("data").toString(),
            "--logfile",
            "")) {
      int port = server.awaitPort();
      assertEquals("+OK", ServerProcess.command(port, "SET", "k", "v"));
      Set<Integer> warned = new TreeSet<>();
      Matcher m =
          Pattern.compile(
                  "WARNING +\\[server\\] "
                      + Pattern.quote(conf.toString())
                      + ":(\\d+): ignoring '([^ ']+)")
              .matcher(server.stderr());
      while (m.find()) {
        assertTrue(warned.add(Integer.parseInt(m.group(1))), () -> "line warned twice: " + server);
      }
      assertEquals(ignoredLines(conf), warned, server::toString);
      assertEquals(CellarCommand.EXIT_OK, server.terminate(), server::toString);
    }
  }

  /** Numbers of the lines that set something and whose name is not one of Cellar's settings. */
  private static Set<Integer> ignoredLines(Path conf) throws IOException {
    Set<Integer> lines = new TreeSet<>();
    List<String> all = Files.readAllLines(conf, StandardCharsets.UTF_8);
    for (int i = 0; i < all.size(); i++) {
      String line = all.get(i).strip();
      if (!line.isEmpty()
          && !line.startsWith("#")
          && !CELLAR_SETTINGS.contains(line.split("\\s+")[0])) {
        lines.add(i + 1);
      }
    }
    assertTrue(lines.size() > 50, "the stock file sets " + lines.size() + " other directives");
    return lines;
  }

  @Test
  void aDirectiveCellarCannotHonourIsRefusedWithItsLine() throws IOException {
    Path conf = tmp.resolve("replica.conf");
    Files.writeString(conf, "port 0\ndaemonize no\nreplicaof 10.0.0.1 6379\n");
    CommandRun run =
        CommandRun.of("server", conf.toString(), "--dir", tmp.resolve("data").toString());
    assertEquals(CellarCommand.EXIT_FAILURE, run.exitCode(), run::toString);
    assertEquals(1, run.err().lines().count(), run::toString);
    assertTrue(
        run.err().contains(conf + ":3: 'replicaof' is not supported: Cellar has no replication"),
        run::toString);
    assertFalse(Files.exists(tmp.resolve("data")), run::toString);
  }

  @Test
  void logfileGetsTheLinesAndConfigSetLoglevelWarningHidesInfo() throws Exception {
    Path log = tmp.resolve("cellar.log");
    Path conf = tmp.resolve("cellar.conf");
    Files.writeString(conf, "tcp-keepalive 300\n");
    try (ServerProcess server =
        ServerProcess.run(
            tmp,
            conf.toString(),
            "--port",
            "0",
            "--http-port",
            "0",
            "--dir",
            tmp.resolve("data").toString(),
            "--logfile",
            log.toString())) {
      int port = server.awaitPort(log);
      assertEquals("+OK", ServerProcess.command(port, "CONFIG", "SET", "loglevel", "warning"));
      assertEquals(CellarCommand.EXIT_OK, server.terminate(), server::toString);
      String logged = Files.readString(log);
      assertTrue(logged.contains("INFO    [server] serving "), logged);
      assertTrue(
          logged.contains("WARNING [server] " + conf + ":1: ignoring 'tcp-keepalive'"), logged);
      assertFalse(
          logged.contains("shutting down"),
          "INFO lines after CONFIG SET loglevel warning:\n" + logged);
      everyLineHasTheFormat(logged);
      assertEquals("", server.stdout(), server::toString);
      assertEquals("", server.stderr(), server::toString);
    }
  }

  @Test
  void loglevelWarningFlagHidesInfoFromTheStart() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    try (ServerProcess server =
        ServerProcess.run(
            tmp,
            "--port",
            Integer.toString(port),
            "--http-port",
            "0",
            "--dir",
            tmp.resolve("data").toString(),
            "--loglevel",
            "warning")) {
      // Nothing says where it listens at this level: ask until it answers.
      String reply = "";
      for (int i = 0; i < 600 && !reply.equals("+PONG"); i++) {
        try {
          reply = ServerProcess.command(port, "PING");
        } catch (IOException notYet) {
          Thread.sleep(50);
        }
      }
      assertEquals("+PONG", reply, server::toString);
      assertEquals(CellarCommand.EXIT_OK, server.terminate(), server::toString);
      assertEquals("", server.stdout(), server::toString);
    }
  }

  private static void everyLineHasTheFormat(String text) {
    for (String line : text.lines().toList()) {
      assertTrue(
          ServerProcess.LOG_LINE.matcher(line).matches(),
          () -> "not in the log format: '" + line + "' in\n" + text);
    }
  }
}
