package dev.cellar.log;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Layout of the 64-byte cipher block that follows the header of an encrypted segment (the header's
 * ENCRYPTED flag; see {@code docs/format/encryption.md}). Written once, with the header, when the
 * file is created, and never rewritten: sealing rewrites only the header before it.
 *
 * <pre>
 *  0        8        12         16          32           48         60
 *  +--------+--------+----------+-----------+------------+----------+---------------+
 *  | magic  | key id | reserved | salt (16) | check (16) | reserved | masked CRC32C |
 *  +--------+--------+----------+-----------+------------+----------+---------------+
 * </pre>
 *
 * The salt is random; with the store key of {@code key id} it derives the file's own key. The check
 * is the authentication tag that the file key gives an empty message (see {@link
 * SegmentCipher#keyCheck()}): it tells a wrong key from damaged records at open.
 */
public final class CipherBlockDescriptor {
  public static final int LENGTH = 64;
  public static final byte[] MAGIC = "CELLARKY".getBytes(StandardCharsets.US_ASCII);
  public static final int MAGIC_OFFSET = 0;
  public static final int KEY_ID_OFFSET = 8;
  public static final int SALT_OFFSET = 16;
  public static final int SALT_BYTES = 16;
  public static final int CHECK_OFFSET = 32;
  public static final int CHECK_BYTES = 16;
  public static final int CRC_OFFSET = 60;

  private static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private CipherBlockDescriptor() {}

  /** Writes a complete block into {@code s} (64 bytes, zeroed before). */
  public static void write(MemorySegment s, int keyId, byte[] salt, byte[] check) {
    MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, s, MAGIC_OFFSET, MAGIC.length);
    s.set(INT, KEY_ID_OFFSET, keyId);
    MemorySegment.copy(MemorySegment.ofArray(salt), 0, s, SALT_OFFSET, SALT_BYTES);
    MemorySegment.copy(MemorySegment.ofArray(check), 0, s, CHECK_OFFSET, CHECK_BYTES);
    s.set(INT, CRC_OFFSET, Crc32c.masked(s, 0, CRC_OFFSET));
  }

  /** Null if the block in {@code s} is sound, else what is wrong with it. */
  public static String validate(MemorySegment s) {
    if (MemorySegment.mismatch(s, 0, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, MAGIC.length)
        != -1) {
      return "bad cipher block magic";
    }
    if (s.get(INT, CRC_OFFSET) != Crc32c.masked(s, 0, CRC_OFFSET)) {
      return "cipher block checksum mismatch";
    }
    if (keyId(s) < 1) {
      return "cipher block names key id " + keyId(s);
    }
    return null;
  }

  public static int keyId(MemorySegment s) {
    return s.get(INT, KEY_ID_OFFSET);
  }

  public static byte[] salt(MemorySegment s) {
    return s.asSlice(SALT_OFFSET, SALT_BYTES).toArray(ValueLayout.JAVA_BYTE);
  }

  public static byte[] check(MemorySegment s) {
    return s.asSlice(CHECK_OFFSET, CHECK_BYTES).toArray(ValueLayout.JAVA_BYTE);
  }
}
