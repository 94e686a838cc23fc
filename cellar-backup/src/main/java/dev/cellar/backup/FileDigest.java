package dev.cellar.backup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A file's SHA-256 and length, read once in large sequential reads. */
record FileDigest(long size, String sha256) {
  private static final int CHUNK = 1 << 20;

  static FileDigest of(Path file) throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
    long size = 0;
    byte[] buffer = new byte[CHUNK];
    try (InputStream in = Files.newInputStream(file)) {
      int n;
      while ((n = in.read(buffer)) > 0) {
        digest.update(buffer, 0, n);
        size += n;
      }
    }
    return new FileDigest(size, HexFormat.of().formatHex(digest.digest()));
  }
}
