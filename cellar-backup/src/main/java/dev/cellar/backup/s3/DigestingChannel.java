package dev.cellar.backup.s3;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A channel that writes to another and keeps the SHA-256 of what it wrote, so that a download is
 * checked as it arrives rather than by reading the file again.
 */
final class DigestingChannel implements WritableByteChannel {
  private final WritableByteChannel target;
  private final MessageDigest digest;

  DigestingChannel(WritableByteChannel target) {
    this.target = target;
    try {
      this.digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  @Override
  public int write(ByteBuffer source) throws IOException {
    int start = source.position();
    int n = target.write(source);
    digest.update(source.duplicate().position(start).limit(start + n));
    return n;
  }

  /** The SHA-256 of everything written, in lower-case hex. */
  String sha256() {
    return HexFormat.of().formatHex(digest.digest());
  }

  @Override
  public boolean isOpen() {
    return target.isOpen();
  }

  @Override
  public void close() throws IOException {
    target.close();
  }
}
