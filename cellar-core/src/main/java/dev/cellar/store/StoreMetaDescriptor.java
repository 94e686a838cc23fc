package dev.cellar.store;

import dev.cellar.CorruptStoreException;
import dev.cellar.IncompatibleFormatException;
import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import dev.cellar.log.Crc32c;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;

/**
 * The store's identity file, {@code cellar.meta}, written once when the store is created (see
 * {@code docs/format/meta.md}). Little-endian:
 *
 * <pre>
 *  0 magic "CELLARMT"  8 major u16  10 minor u16  12 shard count u32
 * 16 hash seed k0 u64  24 hash seed k1 u64  32 created (epoch ms) u64
 * 40 reserved (20 bytes, zero)                 60 masked CRC32C of bytes 0..59
 * </pre>
 *
 * The hash seed is random per store and never reported anywhere, so keys cannot be chosen to
 * collide in the index. The shard count is fixed here because index positions depend on it.
 */
record StoreMetaDescriptor(int shards, long seed0, long seed1, long createdMillis) {
  static final String FILE_NAME = "cellar.meta";
  static final int LENGTH = 64;
  static final byte[] MAGIC = "CELLARMT".getBytes(StandardCharsets.US_ASCII);
  static final short MAJOR_VERSION = 1;
  static final short MINOR_VERSION = 0;

  private static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfShort SHORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  static StoreMetaDescriptor createNew(int shards, long now) {
    SecureRandom random = new SecureRandom();
    return new StoreMetaDescriptor(shards, random.nextLong(), random.nextLong(), now);
  }

  /** Writes the file crash-safely (temp name, fsync, rename, directory fsync). */
  void write(FileIO io, Path directory) throws IOException {
    ByteBuffer bytes = ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    bytes.put(MAGIC).putShort(MAJOR_VERSION).putShort(MINOR_VERSION).putInt(shards);
    bytes.putLong(seed0).putLong(seed1).putLong(createdMillis);
    bytes.position(60);
    bytes.putInt(Crc32c.masked(MemorySegment.ofArray(bytes.array()), 0, 60));
    Path temp = directory.resolve(FILE_NAME + ".tmp");
    try (StoreFile file = io.open(temp, true)) {
      file.truncate(0);
      file.write(bytes.flip(), 0);
      file.force();
    }
    io.rename(temp, directory.resolve(FILE_NAME));
    io.syncDirectory(directory);
  }

  /** Reads and validates the file. */
  static StoreMetaDescriptor read(FileIO io, Path directory) throws IOException {
    Path path = directory.resolve(FILE_NAME);
    byte[] raw = new byte[LENGTH];
    int n;
    try (StoreFile file = io.openReadOnly(path)) {
      n = file.read(ByteBuffer.wrap(raw), 0);
    }
    MemorySegment s = MemorySegment.ofArray(raw);
    if (n != LENGTH
        || MemorySegment.mismatch(s, 0, 8, MemorySegment.ofArray(MAGIC), 0, 8) != -1
        || s.get(INT, 60) != Crc32c.masked(s, 0, 60)) {
      throw new CorruptStoreException(
          "the store's identity file is damaged; it holds the hash seed the index depends on",
          List.of(path + ": " + (n < 0 ? 0 : n) + " bytes read, bad magic, length or checksum"));
    }
    short major = s.get(SHORT, 8);
    if (major != MAJOR_VERSION) {
      throw new IncompatibleFormatException(
          path
              + " was written by store format version "
              + major
              + "."
              + s.get(SHORT, 10)
              + "; this build reads version "
              + MAJOR_VERSION
              + ".x only. Use a newer Cellar.");
    }
    int shards = s.get(INT, 12);
    if (shards < 1 || shards > 4096 || Integer.bitCount(shards) != 1) {
      throw new CorruptStoreException(
          "the store's identity file names an impossible shard count",
          List.of(
              path + " offset 12: shard count " + shards + " is not a power of two in [1, 4096]"));
    }
    return new StoreMetaDescriptor(shards, s.get(LONG, 16), s.get(LONG, 24), s.get(LONG, 32));
  }
}
