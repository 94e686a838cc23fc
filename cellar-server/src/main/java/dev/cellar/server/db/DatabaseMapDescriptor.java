package dev.cellar.server.db;

import dev.cellar.server.files.SmallFiles;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Layout of {@code databases.map}, which says which directory holds each database ({@code SELECT}'s
 * index), so that {@code SWAPDB} is one small atomic file replacement. Specified in
 * docs/format/databases.md; this class is the only place that knows the offsets.
 *
 * <pre>
 *   magic "CELLARDB" (8) | version u16 = 1 | reserved u16 = 0 | count u32
 *   count x slot u32          (database i lives in slot slots[i]; slots are distinct)
 *   masked CRC32C u32 of every byte before it
 * </pre>
 *
 * All integers little-endian. Slot 0 is the server's directory itself; slot k &gt; 0 is its
 * subdirectory {@code db-k}. Without the file, database i lives in slot i.
 */
final class DatabaseMapDescriptor {
  private DatabaseMapDescriptor() {}

  static final String FILE_NAME = "databases.map";
  static final byte[] MAGIC = "CELLARDB".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  static final int HEADER_BYTES = 16;

  /** The most databases a server may have (config {@code databases}). */
  static final int MAX_DATABASES = 65_536;

  /** The directory name of slot {@code slot} inside the server's directory; "" for slot 0. */
  static String directoryName(int slot) {
    return slot == 0 ? "" : "db-" + slot;
  }

  static byte[] encode(int[] slots) {
    ByteBuffer b = SmallFiles.start(MAGIC, VERSION, HEADER_BYTES + 4 * slots.length + 4);
    b.putInt(slots.length);
    for (int slot : slots) {
      b.putInt(slot);
    }
    return SmallFiles.seal(b);
  }

  /**
   * The slots in {@code file}.
   *
   * @throws IllegalArgumentException naming what is wrong, if the bytes are not such a file
   */
  static int[] decode(byte[] file) {
    ByteBuffer b = SmallFiles.open(file, MAGIC, VERSION, HEADER_BYTES - SmallFiles.HEADER_BYTES);
    long count = Integer.toUnsignedLong(b.getInt());
    if (count > MAX_DATABASES || HEADER_BYTES + 4 * count + 4 != file.length) {
      throw new IllegalArgumentException(
          "it names " + count + " databases in " + file.length + " bytes");
    }
    int[] slots = new int[(int) count];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = b.getInt();
      if (slots[i] < 0 || slots[i] >= 2 * MAX_DATABASES) {
        throw new IllegalArgumentException("database " + i + " names slot " + slots[i]);
      }
    }
    if (Arrays.stream(slots).distinct().count() != slots.length) {
      throw new IllegalArgumentException("two databases name the same slot");
    }
    return slots;
  }
}
