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

  /** The masked CRC32C of the first {@code length} bytes of {@code bytes}. */
  public static int maskedCrc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    int c = (int) crc.getValue();
    return ((c >>> 15) | (c << 17)) + 0xa282ead8; // LevelDB's mask
  }
}
