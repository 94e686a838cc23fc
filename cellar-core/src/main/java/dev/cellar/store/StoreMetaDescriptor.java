package dev.cellar.store;

import dev.cellar.CellarOptions;
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
 * {@code docs/format/meta.md}); the only class that knows its layout. Little-endian:
 *
 * <pre>
 *  0        8       10      12            16             24             32
 *  +--------+-------+-------+-------------+--------------+--------------+
 *  | magic  | major | minor | shard count | hash seed k0 | hash seed k1 |
 *  +--------+-------+-------+-------------+--------------+--------------+
 *  32             40                      60              64
 *  +--------------+-----------------------+---------------+
 *  | created (ms) | reserved (20, zeros)  | masked CRC32C |
 *  +--------------+-----------------------+---------------+
 * </pre>
 *
 * The CRC covers bytes 0 to 59. The hash seed is random per store and never reported anywhere, so
 * keys cannot be chosen to collide in the index; readers outside the store (the offline tools, via
 * {@code dev.cellar.inspect}) get only the other fields. The shard count is fixed here because
 * index positions depend on it.
 */
public record StoreMetaDescriptor(int shards, long seed0, long seed1, long createdMillis) {
  public static final String FILE_NAME = "cellar.meta";
  public static final int LENGTH = 64;
  public static final byte[] MAGIC = "CELLARMT".getBytes(StandardCharsets.US_ASCII);
  public static final short MAJOR_VERSION = 1;
  public static final short MINOR_VERSION = 0;

  public static final int MAGIC_OFFSET = 0;
  public static final int MAJOR_OFFSET = 8;
  public static final int MINOR_OFFSET = 10;
  public static final int SHARDS_OFFSET = 12;
  public static final int SEED0_OFFSET = 16;
  public static final int SEED1_OFFSET = 24;
  public static final int CREATED_OFFSET = 32;
  public static final int RESERVED_OFFSET = 40;
  public static final int CRC_OFFSET = 60;

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

  /** The file's 64 bytes, CRC included. */
  byte[] encode() {
    byte[] raw = new byte[LENGTH];
    MemorySegment s = MemorySegment.ofArray(raw);
    MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, s, MAGIC_OFFSET, MAGIC.length);
    s.set(SHORT, MAJOR_OFFSET, MAJOR_VERSION);
    s.set(SHORT, MINOR_OFFSET, MINOR_VERSION);
    s.set(INT, SHARDS_OFFSET, shards);
    s.set(LONG, SEED0_OFFSET, seed0);
    s.set(LONG, SEED1_OFFSET, seed1);
    s.set(LONG, CREATED_OFFSET, createdMillis);
    s.set(INT, CRC_OFFSET, Crc32c.masked(s, 0, CRC_OFFSET));
    return raw;
  }

  /** Writes the file crash-safely (temp name, fsync, rename, directory fsync). */
  void write(FileIO io, Path directory) throws IOException {
    Path temp = directory.resolve(FILE_NAME + ".tmp");
    try (StoreFile file = io.open(temp, true)) {
      file.truncate(0);
      file.write(ByteBuffer.wrap(encode()), 0);
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
    MemorySegment s = MemorySegment.ofArray(raw).asSlice(0, Math.max(0, n));
    String problem = validateFrame(s, path.toString());
    if (problem != null) {
      throw new CorruptStoreException(
          "the store's identity file is damaged; it holds the hash seed the index depends on",
          List.of(problem));
    }
    problem = validateShards(s, path.toString());
    if (problem != null) {
      throw new CorruptStoreException(
          "the store's identity file names an impossible shard count", List.of(problem));
    }
    return decode(s);
  }

  /**
   * Validates the file's bytes, {@code s} (the first {@link #LENGTH} or all of them; any bytes past
   * the 64th are ignored): length, magic, CRC, version and shard count, in that order. Returns null
   * when they are sound, or what is wrong, naming {@code fileName}.
   *
   * @throws IncompatibleFormatException when the bytes are sound but of another major version
   */
  public static String validate(MemorySegment s, String fileName) {
    String problem = validateFrame(s, fileName);
    return problem != null ? problem : validateShards(s, fileName);
  }

  /** The framing part of {@link #validate}: length, magic, CRC and version. */
  private static String validateFrame(MemorySegment s, String fileName) {
    if (s.byteSize() < LENGTH) {
      return fileName + " is " + s.byteSize() + " bytes, expected " + LENGTH;
    }
    if (MemorySegment.mismatch(
            s, MAGIC_OFFSET, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, MAGIC.length)
        != -1) {
      return fileName + ": bad magic, not a Cellar identity file";
    }
    if (s.get(INT, CRC_OFFSET) != Crc32c.masked(s, 0, CRC_OFFSET)) {
      return fileName + ": checksum mismatch";
    }
    if (major(s) != MAJOR_VERSION) {
      throw new IncompatibleFormatException(
          fileName
              + " was written by store format version "
              + major(s)
              + "."
              + minor(s)
              + "; this build reads version "
              + MAJOR_VERSION
              + ".x only. Use a newer Cellar.");
    }
    return null;
  }

  /**
   * The shard count must be a power of two up to {@link CellarOptions#MAX_SHARDS}: a sound CRC can
   * carry another only if the file was written wrongly, and every index position depends on it.
   */
  private static String validateShards(MemorySegment s, String fileName) {
    int shards = shardCount(s);
    if (shards < 1 || shards > CellarOptions.MAX_SHARDS || Integer.bitCount(shards) != 1) {
      return fileName
          + ": shard count "
          + shards
          + " is not a power of two in [1, "
          + CellarOptions.MAX_SHARDS
          + "]";
    }
    return null;
  }

  /** The fields of validated bytes. */
  static StoreMetaDescriptor decode(MemorySegment s) {
    return new StoreMetaDescriptor(
        shardCount(s), s.get(LONG, SEED0_OFFSET), s.get(LONG, SEED1_OFFSET), createdAt(s));
  }

  public static short major(MemorySegment s) {
    return s.get(SHORT, MAJOR_OFFSET);
  }

  public static short minor(MemorySegment s) {
    return s.get(SHORT, MINOR_OFFSET);
  }

  public static int shardCount(MemorySegment s) {
    return s.get(INT, SHARDS_OFFSET);
  }

  public static long createdAt(MemorySegment s) {
    return s.get(LONG, CREATED_OFFSET);
  }
}
