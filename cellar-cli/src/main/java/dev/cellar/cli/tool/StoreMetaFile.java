package dev.cellar.cli.tool;

import dev.cellar.log.Crc32c;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;

/**
 * A read-only parse of the store's identity file, {@code cellar.meta}, for the offline tools.
 *
 * <p>The core's {@code dev.cellar.store.StoreMetaDescriptor} owns this layout but is
 * package-private (the file holds the index hash seed, which nothing outside the store should see),
 * so the few fields a tool needs are read here, from the layout that class documents:
 *
 * <pre>
 *  0 magic "CELLARMT"  8 major u16  10 minor u16  12 shard count u32
 * 16 hash seed k0 u64  24 hash seed k1 u64  32 created (epoch ms) u64
 * 40 reserved (20 bytes)                       60 masked CRC32C of bytes 0..59
 * </pre>
 *
 * The seed is deliberately not read. Keep this class in step with the descriptor.
 *
 * @param shards index shard count, which every checkpoint must match
 */
public record StoreMetaFile(int major, int minor, int shards, Instant created) {
  public static final String FILE_NAME = "cellar.meta";
  static final int LENGTH = 64;
  private static final byte[] MAGIC = "CELLARMT".getBytes(StandardCharsets.US_ASCII);
  private static final int MAJOR_OFFSET = 8;
  private static final int MINOR_OFFSET = 10;
  private static final int SHARDS_OFFSET = 12;
  private static final int CREATED_OFFSET = 32;
  private static final int CRC_OFFSET = 60;
  private static final int KNOWN_MAJOR = 1;
  private static final int MAX_SHARDS = 4096;

  private static final ValueLayout.OfShort SHORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** Why the file cannot be used; the message names the file and the problem. */
  public static final class Unusable extends Exception {
    Unusable(String message) {
      super(message);
    }
  }

  /** Reads and checks {@code path}. */
  public static StoreMetaFile read(Path path) throws IOException, Unusable {
    byte[] raw;
    try {
      raw = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      throw new Unusable(
          path.getFileName()
              + " is missing: not a Cellar store directory, or its identity file was lost");
    }
    if (raw.length != LENGTH) {
      throw new Unusable(path.getFileName() + " is " + raw.length + " bytes, expected " + LENGTH);
    }
    MemorySegment s = MemorySegment.ofArray(raw);
    if (MemorySegment.mismatch(s, 0, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, MAGIC.length)
        != -1) {
      throw new Unusable(path.getFileName() + ": bad magic, not a Cellar identity file");
    }
    if (s.get(INT, CRC_OFFSET) != Crc32c.masked(s, 0, CRC_OFFSET)) {
      throw new Unusable(path.getFileName() + ": checksum mismatch");
    }
    int major = s.get(SHORT, MAJOR_OFFSET);
    int minor = s.get(SHORT, MINOR_OFFSET);
    if (major != KNOWN_MAJOR) {
      throw new Unusable(
          path.getFileName()
              + " is store format version "
              + major
              + "."
              + minor
              + "; this tool reads version "
              + KNOWN_MAJOR
              + ".x only. Use a newer Cellar.");
    }
    int shards = s.get(INT, SHARDS_OFFSET);
    if (shards < 1 || shards > MAX_SHARDS || Integer.bitCount(shards) != 1) {
      throw new Unusable(
          path.getFileName()
              + ": shard count "
              + shards
              + " is not a power of two in [1, "
              + MAX_SHARDS
              + "]");
    }
    return new StoreMetaFile(
        major, minor, shards, Instant.ofEpochMilli(s.get(LONG, CREATED_OFFSET)));
  }
}
