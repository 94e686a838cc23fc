package dev.cellar.server.tls;

import dev.cellar.server.config.ConfigException;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.config.ServerConfig.TlsAuthClients;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * TLS for the server's listeners: one server-side {@link SslContext} built at start from {@code
 * tls-cert-file}, {@code tls-key-file} ({@code tls-key-file-pass}), {@code tls-ca-cert-file},
 * {@code tls-auth-clients} and {@code tls-protocols}, shared by the RESP port {@code tls-port} and
 * the HTTP port {@code https-port}. A TLS connection's pipeline is the plaintext one with an {@code
 * SslHandler} first, so everything behind it (limits, auth, commands) is the same code.
 *
 * <p>Validation happens here, once, before the store is opened: a missing or unreadable file, a key
 * in a format we cannot read, a certificate that does not belong to the key, or client
 * authentication without a CA stops the start with a message that says what to change. Nothing is
 * re-read at run time; a renewed certificate takes a restart.
 *
 * <p>Provider: the JDK's {@code SSLEngine}. Netty's OpenSSL binding (netty-tcnative) is faster at
 * handshakes and bulk encryption, but it is a native library per platform and would be the only one
 * besides the transports; this server's TLS connections are long-lived Redis connections, so
 * handshake cost is paid rarely. Measure before changing that.
 *
 * <p>Client certificates: {@code yes} requires one signed by the CA, {@code optional} verifies one
 * if the client sends it and accepts the connection if it sends none, {@code no} does not ask. A
 * certificate admits the connection to the TLS layer only; {@code requirepass} still applies.
 */
public final class ServerTls {
  private static final TlsFailureFilter FAILURES = new TlsFailureFilter();

  private final SslContext context;

  private ServerTls(SslContext context) {
    this.context = context;
  }

  /**
   * The TLS context if {@code tls-port} or {@code https-port} is set, else null; validates every
   * TLS setting.
   */
  public static ServerTls fromConfig(ServerConfig config) {
    if (config.tlsPort() == 0 && config.httpsPort() == 0) {
      return null;
    }
    String port = config.tlsPort() != 0 ? "tls-port" : "https-port";
    if (config.tlsCertFile() == null || config.tlsKeyFile() == null) {
      throw new ConfigException(
          port + " needs tls-cert-file and tls-key-file (PEM certificate and PKCS#8 key)");
    }
    List<X509Certificate> chain = PemReader.certificates("tls-cert-file", config.tlsCertFile());
    PrivateKey key =
        PemReader.privateKey("tls-key-file", config.tlsKeyFile(), config.tlsKeyFilePass());
    checkKeyMatches(config, chain.getFirst(), key);
    TlsAuthClients auth = config.tlsAuthClients();
    if (auth != TlsAuthClients.NO && config.tlsCaCertFile() == null) {
      throw new ConfigException(
          "tls-auth-clients "
              + auth.name().toLowerCase()
              + " needs tls-ca-cert-file (the CA that"
              + " signs client certificates); set tls-auth-clients no to accept clients without certificates");
    }
    try {
      SslContextBuilder builder =
          SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new))
              .sslProvider(SslProvider.JDK)
              .protocols(config.tlsProtocols());
      if (auth != TlsAuthClients.NO) {
        List<X509Certificate> authorities =
            PemReader.certificates("tls-ca-cert-file", config.tlsCaCertFile());
        builder
            .trustManager(authorities.toArray(X509Certificate[]::new))
            .clientAuth(auth == TlsAuthClients.YES ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL);
      }
      return new ServerTls(builder.build());
    } catch (SSLException | IllegalArgumentException e) {
      throw new ConfigException(
          "cannot set up TLS from tls-cert-file "
              + config.tlsCertFile()
              + " and tls-key-file "
              + config.tlsKeyFile()
              + ": "
              + e.getMessage());
    }
  }

  /**
   * Signs a probe with the key and verifies it with the certificate's public key: the JDK's key
   * manager would otherwise accept a mismatched pair and every handshake would fail later, with an
   * error only the client sees.
   */
  private static void checkKeyMatches(ServerConfig config, X509Certificate leaf, PrivateKey key) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
          case "DSA" -> "SHA256withDSA";
          default ->
              null; // RSASSA-PSS needs parameters from the certificate; the handshake will tell
        };
    if (algorithm == null) {
      return;
    }
    PublicKey publicKey = leaf.getPublicKey();
    boolean matches;
    try {
      byte[] probe = "cellar tls key check".getBytes(StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(publicKey);
      verifier.update(probe);
      matches = verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      matches = false; // e.g. an EC key against an RSA certificate
    }
    if (!matches) {
      throw new ConfigException(
          "tls-key-file "
              + config.tlsKeyFile()
              + " is not the key of the first certificate in"
              + " tls-cert-file "
              + config.tlsCertFile()
              + " ("
              + leaf.getSubjectX500Principal().getName()
              + ")");
    }
  }

  /** Puts TLS first in a new connection's pipeline; the connection's own handlers follow. */
  public void addTo(Channel channel) {
    ChannelPipeline pipeline = channel.pipeline();
    pipeline.addLast("tls", context.newHandler(channel.alloc()));
    pipeline.addLast("tls-failures", FAILURES);
  }
}
