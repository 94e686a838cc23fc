package dev.cellar.server.command;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Redis's listpack, the compact encoding of small collections and of a stream's nodes inside a
 * {@code DUMP} payload (docs/format/dump.md): a 6-byte header (total bytes, u32 little-endian;
 * entries, u16, 65535 when there are more), entries, and a 0xFF terminator. Each entry is an
 * encoding byte, its data, and its own length backwards ("backlen"), so that Redis can walk a
 * listpack in both directions. Integers and strings have the encodings of Redis's listpack.c; a
 * reader gets an integer back as its decimal text, as Redis's {@code lpGet} does.
 */
final class Listpack {
  private Listpack() {}

  private static final int HEADER = 6;
  private static final int END = 0xff;

  /** Appends the entries of {@code lp} to {@code out}, in order; throws BAD_DATA if malformed. */
  static void read(byte[] lp, List<byte[]> out) {
    if (lp.length < HEADER + 1 || (lp[lp.length - 1] & 0xff) != END || le(lp, 0, 4) != lp.length) {
      throw DumpPayload.BAD_DATA;
    }
    int at = HEADER;
    while (at < lp.length - 1) {
      int b = lp[at] & 0xff;
      int header;
      long length;
      byte[] entry;
      if ((b & 0x80) == 0) {
        entry = number(b);
        header = 1;
        length = 0;
      } else if ((b & 0xc0) == 0x80) {
        header = 1;
        length = b & 0x3f;
        entry = null;
      } else if ((b & 0xe0) == 0xc0) {
        long v = ((long) (b & 0x1f) << 8) | (lp[at + 1] & 0xff);
        entry = number((v << 51) >> 51);
        header = 2;
        length = 0;
      } else if ((b & 0xf0) == 0xe0) {
        header = 2;
        length = ((long) (b & 0x0f) << 8) | (lp[at + 1] & 0xff);
        entry = null;
      } else if (b == 0xf0) {
        header = 5;
        length = le(lp, at + 1, 4);
        entry = null;
      } else {
        int width =
            switch (b) {
              case 0xf1 -> 2;
              case 0xf2 -> 3;
              case 0xf3 -> 4;
              case 0xf4 -> 8;
              default -> throw DumpPayload.BAD_DATA;
            };
        long v = le(lp, at + 1, width);
        int shift = 64 - 8 * width;
        entry = number((v << shift) >> shift);
        header = 1 + width;
        length = 0;
      }
      if (entry == null) {
        if (at + header + length > lp.length - 1) {
          throw DumpPayload.BAD_DATA;
        }
        entry = java.util.Arrays.copyOfRange(lp, at + header, at + header + (int) length);
      }
      long size = header + length;
      at += (int) size + backlenBytes(size);
      out.add(entry);
    }
  }

  /** The integer an entry read by {@link #read} holds; BAD_DATA if it holds text. */
  static long integer(byte[] entry) {
    try {
      return Long.parseLong(new String(entry, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      throw DumpPayload.BAD_DATA;
    }
  }

  private static byte[] number(long v) {
    return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
  }

  /** Bytes of an empty listpack: its header and end marker. */
  static final int EMPTY_BYTES = HEADER + 1;

  /**
   * The bytes {@code s} takes as an entry, its backlen included, as {@link Writer#string} writes
   * it: a canonical integer in its smallest encoding, else a length header and the bytes.
   */
  static int entryBytes(byte[] s) {
    int entry =
        dev.cellar.server.resp.Numbers.isLong(s, 0, s.length)
            ? integerBytes(dev.cellar.server.resp.Numbers.parseLong(s, 0, s.length))
            : stringHeaderBytes(s.length) + s.length;
    return entry + backlenBytes(entry);
  }

  /** Bytes of an integer entry holding {@code v}, before its backlen: Redis's smallest encoding. */
  private static int integerBytes(long v) {
    if (v >= 0 && v <= 127) {
      return 1; // 7-bit unsigned
    }
    if (v >= -4096 && v <= 4095) {
      return 2; // 13-bit signed
    }
    return 1
        + (v >= -32768 && v <= 32767
            ? 2
            : v >= -8388608 && v <= 8388607 ? 3 : v == (int) v ? 4 : 8);
  }

  /** Bytes of a string entry's length header, for a string of {@code length} bytes. */
  private static int stringHeaderBytes(int length) {
    return length < 64 ? 1 : length < 4096 ? 2 : 5;
  }

  /** Bytes of the backlen of an entry of {@code size} bytes, as Redis's lpEncodeBacklen counts. */
  private static int backlenBytes(long size) {
    return size <= 127 ? 1 : size < 16383 ? 2 : size < 2097151 ? 3 : size < 268435455 ? 4 : 5;
  }

  private static long le(byte[] b, int at, int bytes) {
    long v = 0;
    for (int i = 0; i < bytes; i++) {
      v |= (long) (b[at + i] & 0xff) << (8 * i);
    }
    return v;
  }

  /** Builds one listpack, entry by entry, in the encodings Redis itself picks. */
  static final class Writer {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final byte[] entry = new byte[9];
    private int entries;

    Writer() {
      out.write(new byte[HEADER], 0, HEADER);
    }

    Writer integer(long v) {
      int n = integerBytes(v);
      if (n == 1) {
        entry[0] = (byte) v;
      } else if (n == 2) {
        long u = v < 0 ? (1 << 13) + v : v;
        entry[0] = (byte) (0xc0 | (u >>> 8));
        entry[1] = (byte) u;
      } else {
        int width = n - 1;
        entry[0] = (byte) (width == 2 ? 0xf1 : width == 3 ? 0xf2 : width == 4 ? 0xf3 : 0xf4);
        for (int i = 0; i < width; i++) {
          entry[1 + i] = (byte) (v >>> (8 * i));
        }
      }
      out.write(entry, 0, n);
      backlen(n);
      entries++;
      return this;
    }

    /** A string entry; text that is a canonical integer is stored as one, as Redis stores it. */
    Writer string(byte[] s) {
      if (dev.cellar.server.resp.Numbers.isLong(s, 0, s.length)) {
        return integer(dev.cellar.server.resp.Numbers.parseLong(s, 0, s.length));
      }
      int header = stringHeaderBytes(s.length);
      if (header == 1) {
        out.write(0x80 | s.length);
      } else if (header == 2) {
        out.write(0xe0 | (s.length >>> 8));
        out.write(s.length & 0xff);
      } else {
        out.write(0xf0);
        for (int i = 0; i < 4; i++) {
          out.write((s.length >>> (8 * i)) & 0xff);
        }
      }
      out.write(s, 0, s.length);
      backlen(header + s.length);
      entries++;
      return this;
    }

    private void backlen(long l) {
      if (l <= 127) {
        out.write((int) l);
      } else if (l < 16383) {
        out.write((int) (l >>> 7));
        out.write((int) (l & 127) | 128);
      } else if (l < 2097151) {
        out.write((int) (l >>> 14));
        out.write((int) ((l >>> 7) & 127) | 128);
        out.write((int) (l & 127) | 128);
      } else if (l < 268435455) {
        out.write((int) (l >>> 21));
        out.write((int) ((l >>> 14) & 127) | 128);
        out.write((int) ((l >>> 7) & 127) | 128);
        out.write((int) (l & 127) | 128);
      } else {
        out.write((int) (l >>> 28));
        out.write((int) ((l >>> 21) & 127) | 128);
        out.write((int) ((l >>> 14) & 127) | 128);
        out.write((int) ((l >>> 7) & 127) | 128);
        out.write((int) (l & 127) | 128);
      }
    }

    /** The finished listpack. */
    byte[] finish() {
      out.write(END);
      byte[] lp = out.toByteArray();
      int total = lp.length;
      for (int i = 0; i < 4; i++) {
        lp[i] = (byte) (total >>> (8 * i));
      }
      int count = Math.min(entries, 65535);
      lp[4] = (byte) count;
      lp[5] = (byte) (count >>> 8);
      return lp;
    }
  }
}
