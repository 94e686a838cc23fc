package dev.cellar.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cellar.server.conformance.ToolRun;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A small PKI made with the {@code openssl} command, as an operator would make it: a CA, a server
 * certificate for {@code 127.0.0.1} and {@code localhost} (RSA, PKCS#8), a client certificate (EC),
 * and a second CA with a client certificate of its own, which the server must not trust. Also the
 * key forms the server must refuse or decrypt: SEC1 ({@code BEGIN EC PRIVATE KEY}), PKCS#1 ({@code
 * BEGIN RSA PRIVATE KEY}) and encrypted PKCS#8.
 */
final class TestCertificates {
  static final String KEY_PASSPHRASE = "kp-7c1e0d93-passphrase";

  final Path dir;
  final Path caCert;
  final Path serverCert;
  final Path serverKey;
  final Path serverKeyEncrypted;
  final Path serverKeyPkcs1;
  final Path serverKeySec1;
  final Path clientCert;
  final Path clientKey;
  final Path otherCaCert;
  final Path otherClientCert;
  final Path otherClientKey;

  TestCertificates(Path dir) {
    ToolRun.assumeInstalled("openssl");
    this.dir = dir;
    caCert = dir.resolve("ca.crt");
    serverCert = dir.resolve("server.crt");
    serverKey = dir.resolve("server.key");
    serverKeyEncrypted = dir.resolve("server.enc.key");
    serverKeyPkcs1 = dir.resolve("server.pkcs1.key");
    serverKeySec1 = dir.resolve("server.sec1.key");
    clientCert = dir.resolve("client.crt");
    clientKey = dir.resolve("client.key");
    otherCaCert = dir.resolve("other-ca.crt");
    otherClientCert = dir.resolve("other-client.crt");
    otherClientKey = dir.resolve("other-client.key");
    write("server.ext", "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    selfSignedCa("ca", "Cellar Test CA");
    selfSignedCa("other-ca", "Some Other CA");
    signed("server", "rsa:2048", "localhost", "ca", "server.ext");
    signed("client", "ec -pkeyopt ec_paramgen_curve:prime256v1", "cellar-client", "ca", null);
    signed(
        "other-client", "ec -pkeyopt ec_paramgen_curve:prime256v1", "stranger", "other-ca", null);
    openssl(
        "pkcs8 -topk8 -v2 aes-256-cbc -in server.key -out server.enc.key -passout pass:"
            + KEY_PASSPHRASE);
    openssl("rsa -in server.key -traditional -out server.pkcs1.key");
    openssl("ecparam -name prime256v1 -genkey -noout -out server.sec1.key");
  }

  private void selfSignedCa(String name, String subject) {
    openssl(
        "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -keyout "
            + name
            + ".key -out "
            + name
            + ".crt -subj /CN="
            + subject.replace(' ', '_'));
  }

  private void signed(String name, String keySpec, String subject, String ca, String extensions) {
    openssl(
        "req -new -newkey "
            + keySpec
            + " -nodes -keyout "
            + name
            + ".key -out "
            + name
            + ".csr -subj /CN="
            + subject);
    openssl(
        "x509 -req -days 2 -in "
            + name
            + ".csr -CA "
            + ca
            + ".crt -CAkey "
            + ca
            + ".key -CAcreateserial -out "
            + name
            + ".crt"
            + (extensions == null ? "" : " -extfile " + extensions));
  }

  private void openssl(String arguments) {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(arguments.split(" ")));
    ToolRun run = ToolRun.run(inDir(command), new byte[0], Duration.ofSeconds(60));
    assertEquals(0, run.exitCode(), run.output());
  }

  /**
   * Runs in {@link #dir}, so file names stay relative (a shell changes directory, then execs
   * openssl).
   */
  private List<String> inDir(List<String> command) {
    List<String> out =
        new ArrayList<>(List.of("sh", "-c", "cd \"$0\" && exec \"$@\"", dir.toString()));
    out.addAll(command);
    return out;
  }

  private void write(String name, String text) {
    try {
      Files.writeString(dir.resolve(name), text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A client-side context trusting {@code ca}, presenting {@code cert}/{@code key} when given. */
  static SSLContext clientContext(Path ca, Path cert, Path key) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    int i = 0;
    for (X509Certificate c : PemReader.certificates("ca", ca)) {
      trust.setCertificateEntry("ca" + i++, c);
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    KeyManagerFactory kmf = null;
    if (cert != null) {
      KeyStore identity = KeyStore.getInstance("PKCS12");
      identity.load(null, null);
      PrivateKey privateKey = PemReader.privateKey("key", key, null);
      identity.setKeyEntry(
          "client",
          privateKey,
          new char[0],
          PemReader.certificates("cert", cert).toArray(X509Certificate[]::new));
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(identity, new char[0]);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return context;
  }
}
