package dev.cellar.server.tls;

import dev.cellar.server.config.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Reads the PEM files named by the {@code tls-*-file} settings with the JDK alone: certificates
 * through {@link CertificateFactory}, private keys as PKCS#8 ({@code BEGIN PRIVATE KEY}, or {@code
 * BEGIN ENCRYPTED PRIVATE KEY} with {@code tls-key-file-pass}).
 *
 * <p>Why not let Netty read the files: without Bouncy Castle on the class path Netty reports a
 * PKCS#1 or SEC1 key ({@code BEGIN RSA PRIVATE KEY}, {@code BEGIN EC PRIVATE KEY}, what older
 * {@code openssl} commands write) as a bare parse failure. Reading them here lets each failure name
 * the setting, the file and the {@code openssl} command that fixes it, and keeps a passphrase out
 * of every message. Bouncy Castle itself was rejected: a 9 MB dependency for a conversion that
 * {@code openssl pkcs8} does once.
 */
final class PemReader {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\R(.*?)-----END \\1-----", Pattern.DOTALL);

  /**
   * Key algorithms tried in turn: PKCS#8 names its algorithm by OID, which the JDK does not map for
   * us.
   */
  private static final List<String> KEY_ALGORITHMS =
      List.of("RSA", "EC", "EdDSA", "RSASSA-PSS", "DSA");

  private PemReader() {}

  /** The certificates in {@code file}, in order (leaf first for a chain). */
  static List<X509Certificate> certificates(String setting, Path file) {
    byte[] bytes = read(setting, file);
    String text = new String(bytes, StandardCharsets.US_ASCII);
    if (!text.contains("-----BEGIN CERTIFICATE-----")) {
      throw new ConfigException(
          setting
              + " "
              + file
              + " holds no certificate (expected -----BEGIN CERTIFICATE-----)"
              + (text.contains("PRIVATE KEY-----")
                  ? "; it holds a private key: are tls-cert-file and tls-key-file swapped?"
                  : ""));
    }
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      for (var c : factory.generateCertificates(new ByteArrayInputStream(bytes))) {
        out.add((X509Certificate) c);
      }
    } catch (CertificateException e) {
      throw new ConfigException(
          setting + " " + file + " is not a PEM certificate file (" + e.getMessage() + ")");
    }
    if (out.isEmpty()) {
      throw new ConfigException(
          setting + " " + file + " holds no certificate (expected -----BEGIN CERTIFICATE-----)");
    }
    return out;
  }

  /** The private key in {@code file}, decrypted with {@code passphrase} (null: not encrypted). */
  static PrivateKey privateKey(String setting, Path file, String passphrase) {
    String text = new String(read(setting, file), StandardCharsets.US_ASCII);
    Matcher m = BLOCK.matcher(text);
    if (!m.find()) {
      throw new ConfigException(
          setting
              + " "
              + file
              + " holds no PEM block; expected a PKCS#8 key"
              + " (-----BEGIN PRIVATE KEY-----). From DER: openssl pkcs8 -topk8 -nocrypt -inform DER -in KEY -out key.pem");
    }
    String type = m.group(1);
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(m.group(2));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          setting + " " + file + ": the " + type + " block is not valid base64");
    }
    return switch (type) {
      case "PRIVATE KEY" -> {
        if (passphrase != null) {
          throw new ConfigException(
              setting
                  + " "
                  + file
                  + " is not encrypted, but tls-key-file-pass is set: remove the passphrase setting");
        }
        yield decode(setting, file, new PKCS8EncodedKeySpec(der));
      }
      case "ENCRYPTED PRIVATE KEY" ->
          decode(setting, file, decrypt(setting, file, der, passphrase));
      case "RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY" ->
          throw new ConfigException(
              setting
                  + " "
                  + file
                  + " holds a PKCS#1/SEC1 key (-----BEGIN "
                  + type
                  + "-----, as older openssl writes); Cellar reads PKCS#8."
                  + " Convert it with:"
                  + " openssl pkcs8 -topk8 -nocrypt -in "
                  + file
                  + " -out key.pem (or -v2 aes-256-cbc instead of -nocrypt to"
                  + " keep it encrypted, with tls-key-file-pass)");
      case "CERTIFICATE" ->
          throw new ConfigException(
              setting
                  + " "
                  + file
                  + " holds a certificate, not a private key: are tls-cert-file and tls-key-file swapped?");
      default ->
          throw new ConfigException(
              setting
                  + " "
                  + file
                  + " holds a '"
                  + type
                  + "' block; expected a PKCS#8 key (-----BEGIN PRIVATE KEY-----), as openssl genpkey writes");
    };
  }

  private static PKCS8EncodedKeySpec decrypt(
      String setting, Path file, byte[] der, String passphrase) {
    if (passphrase == null) {
      throw new ConfigException(
          setting + " " + file + " is encrypted: set tls-key-file-pass to its passphrase");
    }
    EncryptedPrivateKeyInfo info;
    try {
      info = new EncryptedPrivateKeyInfo(der);
    } catch (IOException e) {
      throw new ConfigException(
          setting
              + " "
              + file
              + ": the ENCRYPTED PRIVATE KEY block is malformed ("
              + e.getMessage()
              + ")");
    }
    try {
      SecretKeyFactory factory = SecretKeyFactory.getInstance(info.getAlgName());
      return info.getKeySpec(factory.generateSecret(new PBEKeySpec(passphrase.toCharArray())));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new ConfigException(
          setting
              + " "
              + file
              + " is encrypted with "
              + info.getAlgName()
              + ", which this JDK cannot"
              + " decrypt; re-encrypt it with: openssl pkcs8 -topk8 -v2 aes-256-cbc -in KEY -out key.pem");
    } catch (GeneralSecurityException e) {
      // Deliberately no detail: the message is about the passphrase and must not echo it.
      throw new ConfigException(
          "cannot decrypt " + setting + " " + file + ": wrong tls-key-file-pass?");
    }
  }

  private static PrivateKey decode(String setting, Path file, PKCS8EncodedKeySpec spec) {
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
        // not this algorithm; try the next
      }
    }
    throw new ConfigException(
        setting
            + " "
            + file
            + ": the PKCS#8 key is of an algorithm this JDK cannot read"
            + " (tried "
            + String.join(", ", KEY_ALGORITHMS)
            + ")");
  }

  private static byte[] read(String setting, Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(setting + " " + file + " does not exist");
    } catch (IOException e) {
      throw new ConfigException("cannot read " + setting + " " + file + ": " + e);
    }
  }
}
