package dev.cellar.recovery;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Every checksummed PUT record found at any offset of some bytes, decoded without the engine's code
 * (only the layout in {@code docs/format/log.md} is shared): the values a store opened on those
 * bytes may serve. A value not found here was never written, or was damaged, and serving it is a
 * bug. A byte string with a valid CRC is indistinguishable from a written record, so records a
 * fuzzer forges (it can learn CRCs from the comparisons it observes) count as written.
 */
final class RecordOracle {
  private static final int PUT = 1;
  private static final int DELETE = 2;
  private static final int EXPIRY_BIT = 0x80;
  private static final int MASK_DELTA = 0xa282ead8;

  private final Map<String, Set<String>> values = new HashMap<>();

  private RecordOracle() {}

  /** Finds every valid PUT record in each of {@code files}. */
  static RecordOracle of(byte[]... files) {
    RecordOracle oracle = new RecordOracle();
    for (byte[] file : files) {
      for (int at = 0; at + 9 <= file.length; at++) {
        oracle.tryRecordAt(file, at);
      }
    }
    return oracle;
  }

  /** Whether a valid PUT record with this key and value exists somewhere. */
  boolean written(byte[] key, byte[] value) {
    Set<String> known = values.get(new String(key, ISO_8859_1));
    return known != null && known.contains(new String(value, ISO_8859_1));
  }

  private void tryRecordAt(byte[] b, int at) {
    int type = b[at + 4] & 0xff;
    if ((type & 0x0f) != PUT && (type & 0x0f) != DELETE || (type & 0x70) != 0) {
      return;
    }
    int[] pos = {at + 5};
    long keyLength = varint(b, pos, 5);
    long valueLength = varint(b, pos, 5);
    boolean seqEnds = varint(b, pos, 10) != NONE; // any value: only where it ends matters
    if (keyLength == NONE || keyLength < 1 || valueLength == NONE || !seqEnds) {
      return;
    }
    long keyAt = pos[0] + ((type & EXPIRY_BIT) != 0 ? 8L : 0);
    long end = keyAt + keyLength + valueLength;
    if (end > b.length) {
      return;
    }
    CRC32C crc = new CRC32C();
    crc.update(b, at + 4, (int) end - at - 4);
    int c = (int) crc.getValue();
    int masked = ((c >>> 15) | (c << 17)) + MASK_DELTA;
    int stored =
        (b[at] & 0xff)
            | (b[at + 1] & 0xff) << 8
            | (b[at + 2] & 0xff) << 16
            | (b[at + 3] & 0xff) << 24;
    if (masked != stored || (type & 0x0f) != PUT) {
      return;
    }
    String key = new String(b, (int) keyAt, (int) keyLength, ISO_8859_1);
    String value = new String(b, (int) (keyAt + keyLength), (int) valueLength, ISO_8859_1);
    values.computeIfAbsent(key, k -> new HashSet<>()).add(value);
  }

  private static final long NONE = Long.MIN_VALUE;

  /** An unsigned LEB128 of at most {@code maxBytes} bytes at {@code pos[0]}, or {@link #NONE}. */
  private static long varint(byte[] b, int[] pos, int maxBytes) {
    long value = 0;
    for (int i = 0; i < maxBytes && pos[0] < b.length; i++) {
      int x = b[pos[0]++] & 0xff;
      value |= (long) (x & 0x7f) << (7 * i);
      if ((x & 0x80) == 0) {
        return value;
      }
    }
    return NONE;
  }
}
