package dev.cellar.server.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * The server's own small files ({@code functions.dat}, {@code databases.map}): replaced whole and
 * atomically, and checked by a masked CRC32C, as docs/format/README.md describes for every file of
 * Cellar's.
 */
public final class SmallFiles {
  private SmallFiles() {}

  /**
   * Replaces {@code file} with {@code bytes}: written to a sibling {@code .tmp}, fsynced, renamed
   * over the file, and the directory fsynced, so a crash leaves the old file or the new one.
   */
  public static void replace(Path file, byte[] bytes) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  /**
   * The header every such file starts with: an 8-byte magic, a u16 version and a u16 reserved (0),
   * little-endian. The file ends with the masked CRC32C of everything before it.
   */
  public static final int HEADER_BYTES = 12;

  /**
   * A little-endian buffer for a file of {@code size} bytes (header and CRC included), its header
   * written: the caller puts its body, then {@link #seal}s it.
   */
  public static ByteBuffer start(byte[] magic, int version, int size) {
    ByteBuffer b = ByteBuffer.allocate(size).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    return b.put(magic).putShort((short) version).putShort((short) 0);
  }

  /** Ends a buffer {@link #start} made with its CRC; returns the file's bytes. */
  public static byte[] seal(ByteBuffer b) {
    b.putInt(maskedCrc(b.array(), b.position()));
    return b.array();
  }

  /**
   * Checks {@code file}'s header and CRC ({@code magic}, {@code version}, at least {@code minBody}
   * bytes of body) and returns it as a little-endian buffer positioned at its body, which ends 4
   * bytes before the end.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static ByteBuffer open(byte[] file, byte[] magic, int version, int minBody) {
    if (file.length < HEADER_BYTES + minBody + 4) {
      throw new IllegalArgumentException("it is " + file.length + " bytes, shorter than a header");
    }
    ByteBuffer b = ByteBuffer.wrap(file).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    if (java.nio.ByteBuffer.wrap(file, 0, magic.length).compareTo(ByteBuffer.wrap(magic)) != 0) {
      throw new IllegalArgumentException(
          "it does not start with "
              + new String(magic, java.nio.charset.StandardCharsets.US_ASCII));
    }
    if (b.getInt(file.length - 4) != maskedCrc(file, file.length - 4)) {
      throw new IllegalArgumentException("its checksum does not match its contents");
    }
    int found = Short.toUnsignedInt(b.getShort(magic.length));
    if (found != version) {
      throw new IllegalArgumentException(
          "it is version " + found + "; this build reads version " + version);
    }
    return b.position(HEADER_BYTES);
  }

  /** The masked CRC32C of the first {@code length} bytes of {@code bytes}. */
  public static int maskedCrc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    int c = (int) crc.getValue();
    return ((c >>> 15) | (c << 17)) + 0xa282ead8; // LevelDB's mask
  }
}
