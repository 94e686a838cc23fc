package dev.cellar.server.cluster;

/**
 * Redis Cluster's key slots: CRC16 (XMODEM: polynomial 0x1021, initial value 0, no reflection) of
 * the key modulo 16384, where a key holding a hash tag, a non-empty {@code {...}} (the first {@code
 * '{'} and the first {@code '}'} after it), is hashed by the tag alone, so that keys sharing a tag
 * share a slot. The same function as Redis's {@code keyHashSlot}, so every cluster-aware client
 * computes the slot a node expects.
 */
public final class KeySlot {
  /** Slots in a cluster, as in Redis. */
  public static final int SLOTS = 16384;

  private static final int[] TABLE = new int[256];

  static {
    for (int b = 0; b < 256; b++) {
      int crc = b << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      TABLE[b] = crc & 0xFFFF;
    }
  }

  private KeySlot() {}

  /** The slot of {@code key}. */
  public static int of(byte[] key) {
    return of(key, 0, key.length);
  }

  /** The slot of the {@code length} bytes of {@code key} from {@code offset}. */
  public static int of(byte[] key, int offset, int length) {
    int end = offset + length;
    for (int open = offset; open < end; open++) {
      if (key[open] == '{') {
        for (int close = open + 1; close < end; close++) {
          if (key[close] == '}') {
            if (close > open + 1) { // an empty tag "{}" does not count: the whole key is hashed
              return crc16(key, open + 1, close) & (SLOTS - 1);
            }
            break;
          }
        }
        break; // only the first '{' is looked at
      }
    }
    return crc16(key, offset, end) & (SLOTS - 1);
  }

  /** CRC16-XMODEM of {@code key[from, to)}. */
  public static int crc16(byte[] key, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ key[i]) & 0xFF]) & 0xFFFF;
    }
    return crc;
  }
}
