package dev.cellar.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.conformance.ToolRun;
import dev.cellar.server.testsupport.ServerMain;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets never leave the server: a server in its own JVM, given {@code requirepass} and an
 * encrypted TLS key's {@code tls-key-file-pass} once as flags and once in a config file, logging
 * everything ({@code java.util.logging} at {@code ALL}), is asked everything a client can ask:
 * failed and successful {@code AUTH} (plaintext and TLS), {@code HELLO ... AUTH}, {@code CONFIG GET
 * *}, {@code INFO all}, {@code CLIENT LIST}, a password changed by {@code CONFIG SET}, and over
 * HTTP and HTTPS {@code /metrics}, {@code /v1/info}, a wrong bearer token. Neither secret may
 * appear in any reply, in anything the process printed up to its exit on SIGTERM, or in any file it
 * left.
 */
class SecretLeakTest {
  private static final String PASSWORD = "rp-3b9d51f0-requirepass";
  private static final String NEW_PASSWORD = "rp-0e77a2c4-changed-at-run-time";

  @TempDir static Path pki;
  static TestCertificates certs;
  @TempDir Path dir;

  @BeforeAll
  static void makeCertificates() {
    certs = new TestCertificates(pki);
  }

  @Test
  void secretsGivenAsFlags() throws Exception {
    exercise(List.of());
  }

  @Test
  void secretsGivenInAConfigFile() throws Exception {
    Path file = dir.resolve("cellar.conf");
    Files.writeString(
        file,
        """
        # secrets in the file, as an operator would keep them out of ps
        requirepass "%s"
        tls-key-file-pass %s
        """
            .formatted(PASSWORD, TestCertificates.KEY_PASSPHRASE));
    exercise(List.of("config-file", file.toString()));
  }

  private void exercise(List<String> configFile) throws Exception {
    ToolRun.assumeInstalled("redis-cli");
    Map<String, String> ports = new LinkedHashMap<>();
    for (String name : List.of("port", "tls-port", "http-port", "https-port")) {
      ports.put(name, Integer.toString(freePort()));
    }
    List<String> settings = new ArrayList<>();
    ports.forEach((name, value) -> settings.addAll(List.of(name, value)));
    settings.addAll(
        List.of(
            "dir",
            dir.resolve("data").toString(),
            "tls-cert-file",
            certs.serverCert.toString(),
            "tls-key-file",
            certs.serverKeyEncrypted.toString()));
    if (configFile.isEmpty()) {
      settings.addAll(
          List.of("requirepass", PASSWORD, "tls-key-file-pass", TestCertificates.KEY_PASSPHRASE));
    } else {
      settings.addAll(configFile);
    }
    Path stdout = dir.resolve("stdout.txt");
    Path stderr = dir.resolve("stderr.txt");
    Process child = start(settings, stdout, stderr);
    List<String> replies = new ArrayList<>();
    try {
      awaitListening(child, stdout);
      replies.add(
          resp(
              ports.get("port"),
              false,
              """
          PING
          AUTH wrong-password
          AUTH %1$s
          HELLO 3 AUTH default %1$s
          CONFIG GET *
          INFO all
          CLIENT LIST
          """
                  .formatted(PASSWORD)));
      replies.add(
          resp(
              ports.get("tls-port"),
              true,
              """
          AUTH %1$s
          CONFIG SET requirepass %2$s
          CONFIG GET requirepass
          CONFIG GET tls-*
          INFO everything
          CLIENT LIST
          CLIENT INFO
          """
                  .formatted(PASSWORD, NEW_PASSWORD)));
      replies.add(
          resp(
              ports.get("port"),
              false,
              "AUTH " + PASSWORD + "\nAUTH " + NEW_PASSWORD + "\nCONFIG GET *\n"));
      replies.addAll(http("http://127.0.0.1:" + ports.get("http-port")));
      replies.addAll(http("https://127.0.0.1:" + ports.get("https-port")));
    } finally {
      child.destroy(); // SIGTERM: the shutdown path logs too
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "server did not exit on SIGTERM");
    }
    String all = String.join("\n", replies);
    assertTrue(all.contains("<redacted>"), "CONFIG GET shows that secrets are set: " + all);
    assertTrue(all.contains("WRONGPASS"), "the wrong password was refused: " + all);
    assertTrue(
        all.contains("# Keyspace") || all.contains("keyspace"), "INFO answered after AUTH: " + all);
    List<String> printed = List.of(Files.readString(stdout), Files.readString(stderr));
    assertTrue(
        printed.get(1).contains("FINE") || printed.get(1).contains("INFO"),
        "the child logged at all: " + printed.get(1));
    // With TLS on, the JVM prints no warning (as ServerJvmTest checks without TLS), nor does the
    // server.
    assertFalse(printed.get(1).contains("WARNING"), printed.get(1));
    for (String secret : List.of(PASSWORD, NEW_PASSWORD, TestCertificates.KEY_PASSPHRASE)) {
      assertFalse(all.contains(secret), secret + " in a reply:\n" + all);
      assertFalse(
          printed.get(0).contains(secret), secret + " in the server's stdout:\n" + printed.get(0));
      assertFalse(
          printed.get(1).contains(secret), secret + " in the server's stderr:\n" + printed.get(1));
      assertNotInFiles(dir.resolve("data"), secret);
    }
  }

  /** Commands as lines into one {@code redis-cli} session; returns everything it printed. */
  private String resp(String port, boolean tls, String commands) {
    List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", port));
    if (tls) {
      command.addAll(List.of("--tls", "--cacert", certs.caCert.toString()));
    }
    ToolRun run =
        ToolRun.run(command, commands.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(60));
    return run.output();
  }

  private List<String> http(String base) throws Exception {
    HttpClient client =
        HttpClient.newBuilder()
            .sslContext(TestCertificates.clientContext(certs.caCert, null, null))
            .build();
    List<String> out = new ArrayList<>();
    for (String path : List.of("/metrics", "/v1/info", "/healthz")) {
      for (String token : List.of("wrong-token", NEW_PASSWORD)) {
        HttpResponse<String> r =
            client.send(
                HttpRequest.newBuilder(URI.create(base + path))
                    .header("Authorization", "Bearer " + token)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        out.add(r.statusCode() + " " + r.headers().map() + "\n" + r.body());
      }
    }
    assertEquals(
        200,
        Integer.parseInt(out.get(1).substring(0, 3)),
        "/metrics with the password: " + out.get(1));
    return out;
  }

  private static void assertNotInFiles(Path root, String secret) throws IOException {
    byte[] needle = secret.getBytes(StandardCharsets.UTF_8);
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
        assertFalse(
            text.contains(new String(needle, StandardCharsets.ISO_8859_1)), secret + " in " + f);
      }
    }
  }

  private Process start(List<String> settings, Path stdout, Path stderr) throws IOException {
    Path logging = dir.resolve("logging.properties");
    Files.writeString(
        logging,
        """
        handlers=java.util.logging.ConsoleHandler
        .level=ALL
        java.util.logging.ConsoleHandler.level=ALL
        """);
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(
        List.of(
            "--enable-native-access=ALL-UNNAMED",
            "-Xmx256m",
            "-Djava.util.logging.config.file=" + logging));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ServerMain.class.getName()));
    cmd.addAll(settings);
    return new ProcessBuilder(cmd)
        .redirectOutput(stdout.toFile())
        .redirectError(stderr.toFile())
        .start();
  }

  /** Waits for the {@code port} line ServerMain prints once it listens. */
  private static void awaitListening(Process child, Path stdout) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Files.readString(stdout).contains("port ")) {
        return;
      }
      if (!child.isAlive()) {
        break;
      }
      Thread.sleep(50);
    }
    throw new AssertionError(
        "server did not start (exit "
            + (child.isAlive() ? "none" : child.exitValue())
            + "):\n"
            + Files.readString(stdout)
            + Files.readString(stdout.resolveSibling("stderr.txt")));
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
