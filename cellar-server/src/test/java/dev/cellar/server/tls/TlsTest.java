package dev.cellar.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ConfigException;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.conformance.ToolRun;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * RESP and HTTP over TLS with clients nobody here wrote: {@code redis-cli --tls}, Jedis over an
 * {@code SSLSocketFactory}, the JDK's {@code HttpClient}; certificates made by the {@code openssl}
 * command ({@link TestCertificates}). Also what must fail: plaintext on a TLS port (without harm to
 * the server), a client that trusts another CA, a client certificate from another CA, a protocol
 * the server does not allow, and each kind of bad key or certificate file at start.
 */
class TlsTest {
  @TempDir static Path pki;
  static TestCertificates certs;
  @TempDir Path data;

  @BeforeAll
  static void makeCertificates() {
    certs = new TestCertificates(pki);
  }

  // ------------------------------------------------------------ serving

  @Test
  void redisCliOverTlsWithPlaintextRespOff() {
    try (CellarServer server = start(Map.of("port", "0"))) {
      assertEquals(0, server.port(), "port 0 with tls-port turns plaintext RESP off");
      assertEquals(
          "OK", redisCli(server, List.of(), "SET", "greeting", "over tls").stdout().strip());
      assertEquals("over tls", redisCli(server, List.of(), "GET", "greeting").stdout().strip());
      assertEquals("PONG", redisCli(server, List.of(), "PING").stdout().strip());
      assertTrue(
          redisCli(server, List.of(), "INFO", "server")
              .stdout()
              .contains("tls_port:" + server.tlsPort()));
    }
  }

  @Test
  void plaintextAndTlsPortsServeTheSameStore() throws Exception {
    try (CellarServer server = start(Map.of("port", Integer.toString(freePort())))) {
      ToolRun plain =
          ToolRun.run(
              List.of(
                  "redis-cli",
                  "-h",
                  "127.0.0.1",
                  "-p",
                  Integer.toString(server.port()),
                  "SET",
                  "k",
                  "v"),
              new byte[0],
              Duration.ofSeconds(30));
      assertEquals("OK", plain.stdout().strip(), plain.output());
      assertEquals("v", redisCli(server, List.of(), "GET", "k").stdout().strip());
    }
  }

  @Test
  void clientCertificatesRequiredWithACa() {
    try (CellarServer server = start(Map.of("tls-ca-cert-file", certs.caCert.toString()))) {
      List<String> identity =
          List.of("--cert", certs.clientCert.toString(), "--key", certs.clientKey.toString());
      assertEquals("PONG", redisCli(server, identity, "PING").stdout().strip());
      assertRefused(redisCli(server, List.of(), "PING"));
      assertRefused(
          redisCli(
              server,
              List.of(
                  "--cert",
                  certs.otherClientCert.toString(),
                  "--key",
                  certs.otherClientKey.toString()),
              "PING"));
    }
  }

  @Test
  void optionalClientCertificatesAreCheckedWhenSent() {
    try (CellarServer server =
        start(
            Map.of("tls-ca-cert-file", certs.caCert.toString(), "tls-auth-clients", "optional"))) {
      assertEquals("PONG", redisCli(server, List.of(), "PING").stdout().strip());
      List<String> identity =
          List.of("--cert", certs.clientCert.toString(), "--key", certs.clientKey.toString());
      assertEquals("PONG", redisCli(server, identity, "PING").stdout().strip());
      assertRefused(
          redisCli(
              server,
              List.of(
                  "--cert",
                  certs.otherClientCert.toString(),
                  "--key",
                  certs.otherClientKey.toString()),
              "PING"));
    }
  }

  @Test
  void jedisOverTlsWithClientCertificateAndPassword() throws Exception {
    try (CellarServer server =
        start(Map.of("tls-ca-cert-file", certs.caCert.toString(), "requirepass", "jedis-pw"))) {
      SSLContext context =
          TestCertificates.clientContext(certs.caCert, certs.clientCert, certs.clientKey);
      SSLParameters verifyHost = new SSLParameters();
      verifyHost.setEndpointIdentificationAlgorithm(
          "HTTPS"); // the certificate's SAN must name the host
      var config =
          DefaultJedisClientConfig.builder()
              .ssl(true)
              .sslSocketFactory(context.getSocketFactory())
              .sslParameters(verifyHost)
              .password("jedis-pw")
              .build();
      try (Jedis jedis = new Jedis(new HostAndPort("localhost", server.tlsPort()), config)) {
        assertEquals("OK", jedis.set("java", "client"));
        assertEquals("client", jedis.get("java"));
        byte[] large = new byte[1 << 20]; // many TLS records each way
        for (int i = 0; i < large.length; i++) {
          large[i] = (byte) (i * 31);
        }
        jedis.set("large".getBytes(StandardCharsets.US_ASCII), large);
        assertEquals(
            java.util.Arrays.hashCode(large),
            java.util.Arrays.hashCode(jedis.get("large".getBytes(StandardCharsets.US_ASCII))));
      }
    }
  }

  @Test
  void httpsWithTheJdkClient() throws Exception {
    int httpsPort = freePort();
    try (CellarServer server = start(Map.of("https-port", Integer.toString(httpsPort)))) {
      HttpClient client =
          HttpClient.newBuilder()
              .sslContext(TestCertificates.clientContext(certs.caCert, null, null))
              .build();
      URI key = URI.create("https://127.0.0.1:" + server.httpsPort() + "/v1/kv/web");
      HttpResponse<String> put =
          client.send(
              HttpRequest.newBuilder(key)
                  .PUT(HttpRequest.BodyPublishers.ofString("secure"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(204 / 100, put.statusCode() / 100, put.body());
      HttpResponse<String> get =
          client.send(HttpRequest.newBuilder(key).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals("secure", get.body());
      assertEquals("secure", redisCli(server, List.of(), "GET", "web").stdout().strip());
      // Plain HTTP to the HTTPS port gets no answer, and the port goes on serving HTTPS.
      assertThrows(
          IOException.class,
          () ->
              HttpClient.newHttpClient()
                  .send(
                      HttpRequest.newBuilder(
                              URI.create("http://127.0.0.1:" + server.httpsPort() + "/healthz"))
                          .build(),
                      HttpResponse.BodyHandlers.ofString()));
      assertEquals(
          200,
          client
              .send(
                  HttpRequest.newBuilder(
                          URI.create("https://localhost:" + server.httpsPort() + "/healthz"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .statusCode());
    }
  }

  // ------------------------------------------------------------ refusing

  @Test
  void overMaxclientsTheRefusalArrivesOverTls() throws Exception {
    try (CellarServer server = start(Map.of("maxclients", "1"))) {
      SSLContext context = TestCertificates.clientContext(certs.caCert, null, null);
      var config =
          DefaultJedisClientConfig.builder()
              .ssl(true)
              .sslSocketFactory(context.getSocketFactory())
              .build();
      try (Jedis first = new Jedis(new HostAndPort("127.0.0.1", server.tlsPort()), config)) {
        assertEquals("PONG", first.ping());
        ToolRun second = redisCli(server, List.of(), "PING");
        assertTrue(second.output().contains("max number of clients reached"), second.output());
        assertEquals("PONG", first.ping());
      }
    }
  }

  /**
   * Replies wait in the TLS handler before encryption; they must count toward the limit all the
   * same.
   */
  @Test
  void aTlsClientThatNeverReadsIsCutOffAtTheOutputLimit() throws Exception {
    try (CellarServer server = start(Map.of("client-output-buffer-limit", "1mb"))) {
      SSLContext context = TestCertificates.clientContext(certs.caCert, null, null);
      var config =
          DefaultJedisClientConfig.builder()
              .ssl(true)
              .sslSocketFactory(context.getSocketFactory())
              .build();
      try (Jedis good = new Jedis(new HostAndPort("127.0.0.1", server.tlsPort()), config)) {
        good.set("big", "x".repeat(100_000));
        try (SSLSocket slow = (SSLSocket) context.getSocketFactory().createSocket()) {
          slow.setReceiveBufferSize(4096);
          slow.connect(new java.net.InetSocketAddress("127.0.0.1", server.tlsPort()));
          slow.startHandshake();
          byte[] get = "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n".getBytes(StandardCharsets.US_ASCII);
          try {
            for (int i = 0; i < 2000; i++) {
              slow.getOutputStream().write(get); // ~200 MB of replies if all were kept
            }
          } catch (IOException e) {
            // cut off while still sending
          }
          assertEquals("PONG", good.ping());
          long disconnects = 0;
          for (int attempt = 0; attempt < 200 && disconnects == 0; attempt++) {
            disconnects = server.context().stats().outputLimitDisconnects.sum();
            Thread.sleep(50);
          }
          assertEquals(1, disconnects, "the client that does not read was not disconnected");
        }
      }
    }
  }

  @Test
  void plaintextOnTheTlsPortIsDroppedAndTheServerGoesOn() throws Exception {
    try (CellarServer server = start(Map.of("port", "0"))) {
      for (int i = 0; i < 3; i++) {
        try (Socket s = new Socket("127.0.0.1", server.tlsPort())) {
          s.setSoTimeout(10_000);
          OutputStream out = s.getOutputStream();
          out.write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
          String answer = new String(readToEnd(s.getInputStream()), StandardCharsets.ISO_8859_1);
          assertFalse(answer.contains("PONG"), answer);
        }
      }
      assertEquals("PONG", redisCli(server, List.of(), "PING").stdout().strip());
    }
  }

  @Test
  void aClientTrustingAnotherCaFailsTheHandshake() throws Exception {
    try (CellarServer server = start(Map.of())) {
      SSLContext wrong = TestCertificates.clientContext(certs.otherCaCert, null, null);
      try (SSLSocket s =
          (SSLSocket) wrong.getSocketFactory().createSocket("127.0.0.1", server.tlsPort())) {
        assertThrows(SSLException.class, s::startHandshake);
      }
      List<String> command =
          List.of(
              "redis-cli",
              "--tls",
              "--cacert",
              certs.otherCaCert.toString(),
              "-h",
              "127.0.0.1",
              "-p",
              Integer.toString(server.tlsPort()),
              "PING");
      assertRefused(ToolRun.run(command, new byte[0], Duration.ofSeconds(30)));
      assertEquals("PONG", redisCli(server, List.of(), "PING").stdout().strip());
    }
  }

  @Test
  void onlyTheConfiguredProtocols() throws Exception {
    try (CellarServer server = start(Map.of("tls-protocols", "TLSv1.3"))) {
      SSLContext context = TestCertificates.clientContext(certs.caCert, null, null);
      try (SSLSocket s =
          (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", server.tlsPort())) {
        s.setEnabledProtocols(new String[] {"TLSv1.2"});
        assertThrows(SSLException.class, s::startHandshake);
      }
      try (SSLSocket s =
          (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", server.tlsPort())) {
        s.startHandshake();
        assertEquals("TLSv1.3", s.getSession().getProtocol());
      }
    }
  }

  @Test
  void anEncryptedKeyWithItsPassphrase() {
    try (CellarServer server =
        start(
            Map.of(
                "tls-key-file",
                certs.serverKeyEncrypted.toString(),
                "tls-key-file-pass",
                TestCertificates.KEY_PASSPHRASE))) {
      assertEquals("PONG", redisCli(server, List.of(), "PING").stdout().strip());
    }
  }

  // ------------------------------------------------------------ start-up errors

  @Test
  void startupErrorsSayWhatToChange() throws IOException {
    String missing = pki.resolve("nowhere.key").toString();
    assertStartFails(
        Map.of("tls-key-file", missing), "tls-key-file " + missing + " does not exist");
    assertStartFails(
        Map.of("tls-key-file", certs.serverKeyPkcs1.toString()),
        "RSA PRIVATE KEY",
        "openssl pkcs8 -topk8 -nocrypt");
    assertStartFails(
        Map.of("tls-key-file", certs.serverKeySec1.toString()),
        "EC PRIVATE KEY",
        "openssl pkcs8 -topk8");
    assertStartFails(Map.of("tls-key-file", certs.serverCert.toString()), "swapped");
    assertStartFails(
        Map.of("tls-key-file", certs.serverKeyEncrypted.toString()),
        "is encrypted: set tls-key-file-pass");
    assertStartFails(
        Map.of(
            "tls-key-file",
            certs.serverKeyEncrypted.toString(),
            "tls-key-file-pass",
            "not-the-passphrase"),
        "wrong tls-key-file-pass");
    assertStartFails(
        Map.of("tls-key-file", certs.clientKey.toString()),
        "is not the key of the first certificate");
    assertStartFails(Map.of("tls-cert-file", certs.serverKey.toString()), "holds no certificate");
    assertStartFails(
        Map.of("tls-auth-clients", "yes"), "tls-auth-clients yes needs tls-ca-cert-file");
    assertStartFails(
        Map.of("tls-ca-cert-file", missing), "tls-ca-cert-file " + missing + " does not exist");
    Path garbage = pki.resolve("garbage.key");
    Files.writeString(garbage, "not a key\n");
    assertStartFails(Map.of("tls-key-file", garbage.toString()), "holds no PEM block");

    ServerConfig noCertificate =
        new ServerConfig()
            .set("port", "0")
            .set("http-port", "0")
            .set("dir", data.toString())
            .set("tls-port", "1");
    ConfigException e =
        assertThrows(ConfigException.class, () -> CellarServer.start(noCertificate));
    assertTrue(
        e.getMessage().contains("tls-port needs tls-cert-file and tls-key-file"), e.getMessage());
    assertThrows(ConfigException.class, () -> new ServerConfig().set("tls-protocols", "TLSv1.1"));
    assertThrows(ConfigException.class, () -> new ServerConfig().set("tls-auth-clients", "maybe"));
    try (var files = Files.list(data)) {
      assertTrue(files.findAny().isEmpty(), "a TLS mistake must not open the store");
    }
  }

  private void assertStartFails(Map<String, String> settings, String... expected) {
    ConfigException e = assertThrows(ConfigException.class, () -> start(settings).close());
    for (String part : expected) {
      assertTrue(e.getMessage().contains(part), "expected '" + part + "' in: " + e.getMessage());
    }
    assertFalse(e.getMessage().contains(TestCertificates.KEY_PASSPHRASE), e.getMessage());
    assertFalse(e.getMessage().contains("not-the-passphrase"), e.getMessage());
  }

  // ------------------------------------------------------------ support

  /**
   * A server with TLS on a free port over the test PKI; {@code settings} override. Free ports are
   * found first (port 0 means something else for these settings) and the start retried should
   * another process take one meanwhile.
   */
  private CellarServer start(Map<String, String> settings) {
    for (int attempt = 1; ; attempt++) {
      ServerConfig config =
          new ServerConfig()
              .set("dir", data.toString())
              .set("http-port", "0")
              .set("port", "0")
              .set("tls-port", Integer.toString(freePort()))
              .set("tls-cert-file", certs.serverCert.toString())
              .set("tls-key-file", certs.serverKey.toString());
      settings.forEach(config::set);
      try {
        return CellarServer.start(config);
      } catch (IllegalStateException e) {
        if (attempt == 5 || !String.valueOf(e.getMessage()).contains("cannot listen")) {
          throw e;
        }
      }
    }
  }

  private static ToolRun redisCli(CellarServer server, List<String> identity, String... command) {
    ToolRun.assumeInstalled("redis-cli");
    List<String> line =
        new ArrayList<>(List.of("redis-cli", "--tls", "--cacert", certs.caCert.toString()));
    line.addAll(identity);
    line.addAll(List.of("-h", "127.0.0.1", "-p", Integer.toString(server.tlsPort())));
    line.addAll(List.of(command));
    return ToolRun.run(line, new byte[0], Duration.ofSeconds(30));
  }

  /** The connection failed: no reply printed, and redis-cli says so. */
  private static void assertRefused(ToolRun run) {
    assertFalse(run.stdout().contains("PONG"), run.output());
    assertNotEquals("", (run.stdout() + run.stderr()).strip(), run.output());
  }

  private static byte[] readToEnd(InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      return new byte[0]; // a reset is as good as a close here
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
