package dev.cellar.server.command;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis's {@code DUMP} payload (docs/format/dump.md): one value in RDB's serialization, then the
 * RDB version (u16 little-endian) and a CRC-64 (Jones, reflected, little-endian) of everything
 * before it. The one class that knows the bytes.
 *
 * <p>Written in RDB version 10 (Redis 7.0), with the plain encodings every Redis 7 reads: string,
 * list, set, sorted set (binary scores), hash; streams as Redis 7.0 writes them ({@link
 * StreamPayload}). Read: those, and the compact encodings Redis 7.0 to 7.2 writes for small values
 * (listpacks, intsets, quicklist 2, integer and LZF strings), and streams of Redis 5 to 7.2.
 */
final class DumpPayload {
  private DumpPayload() {}

  static final int RDB_VERSION = 10;

  /** The newest version read: Redis 7.2's, whose new type (a set as a listpack) is read too. */
  static final int MAX_READ_VERSION = 11;

  static final int STRING = 0;
  static final int LIST = 1;
  static final int SET = 2;
  static final int ZSET = 3;
  static final int HASH = 4;
  static final int ZSET_2 = 5;
  static final int SET_INTSET = 11;
  static final int HASH_LISTPACK = 16;
  static final int ZSET_LISTPACK = 17;
  static final int LIST_QUICKLIST_2 = 18;
  static final int SET_LISTPACK = 20;

  static final int STREAM_LISTPACKS = 15;
  static final int STREAM_LISTPACKS_2 = 19;
  static final int STREAM_LISTPACKS_3 = 21;

  /**
   * A value read from a payload: its RDB type and, by type, its parts ({@code stream} for {@link
   * #STREAM_LISTPACKS_2}, to which every stream type is read).
   */
  record Value(
      int type, byte[] string, List<byte[]> items, List<Double> scores, StreamPayload stream) {}

  static final CommandError BAD_PAYLOAD =
      new CommandError("ERR DUMP payload version or checksum are wrong");
  static final CommandError BAD_DATA = new CommandError("ERR Bad data format");

  // ------------------------------------------------------------------ writing

  static byte[] string(byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(STRING);
    writeString(out, value);
    return seal(out);
  }

  /** A list, set or hash (items alternate field and value) in its plain encoding. */
  static byte[] items(int type, List<byte[]> items) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(type);
    writeLength(out, type == HASH ? items.size() / 2 : items.size());
    for (byte[] item : items) {
      writeString(out, item);
    }
    return seal(out);
  }

  static byte[] sortedSet(List<byte[]> members, List<Double> scores) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(ZSET_2);
    writeLength(out, members.size());
    for (int i = 0; i < members.size(); i++) {
      writeString(out, members.get(i));
      long bits = Double.doubleToRawLongBits(scores.get(i));
      for (int b = 0; b < 8; b++) {
        out.write((int) (bits >>> (8 * b)) & 0xff);
      }
    }
    return seal(out);
  }

  static byte[] seal(ByteArrayOutputStream out) {
    out.write(RDB_VERSION & 0xff);
    out.write(RDB_VERSION >>> 8);
    long crc = Crc64.of(out.toByteArray(), 0, out.size());
    for (int b = 0; b < 8; b++) {
      out.write((int) (crc >>> (8 * b)) & 0xff);
    }
    return out.toByteArray();
  }

  /**
   * An RDB length: {@code n} as an unsigned 64-bit number (a stream's ids and counters use all).
   */
  static void writeLength(ByteArrayOutputStream out, long n) {
    if (n >= 0 && n < 64) {
      out.write((int) n);
    } else if (n >= 0 && n < 16384) {
      out.write(0x40 | (int) (n >>> 8));
      out.write((int) n & 0xff);
    } else if (n >= 0 && n <= 0xffffffffL) {
      out.write(0x80);
      for (int b = 3; b >= 0; b--) {
        out.write((int) (n >>> (8 * b)) & 0xff);
      }
    } else {
      out.write(0x81);
      for (int b = 7; b >= 0; b--) {
        out.write((int) (n >>> (8 * b)) & 0xff);
      }
    }
  }

  static void writeString(ByteArrayOutputStream out, byte[] s) {
    writeLength(out, s.length);
    out.write(s, 0, s.length);
  }

  // ------------------------------------------------------------------ reading

  /** Whether the footer is whole: a version this reads and the CRC-64 of what precedes it. */
  static boolean footerValid(byte[] p) {
    if (p.length < 10) {
      return false;
    }
    int end = p.length - 10;
    int version = (p[end] & 0xff) | (p[end + 1] & 0xff) << 8;
    long stored = 0;
    for (int b = 7; b >= 0; b--) {
      stored = (stored << 8) | (p[end + 2 + b] & 0xff);
    }
    return version <= MAX_READ_VERSION && Crc64.of(p, 0, end + 2) == stored;
  }

  /** Checks the footer; returns the value, or throws {@link #BAD_PAYLOAD} / {@link #BAD_DATA}. */
  static Value read(byte[] p) {
    if (p.length < 11 || !footerValid(p)) {
      throw BAD_PAYLOAD;
    }
    int end = p.length - 10;
    Reader r = new Reader(p, end);
    try {
      Value v = r.value();
      if (r.at != end) {
        throw BAD_DATA;
      }
      return v;
    } catch (IndexOutOfBoundsException | NegativeArraySizeException e) {
      throw BAD_DATA;
    }
  }

  static final class Reader {
    private final byte[] p;
    private final int end;
    private int at;

    Reader(byte[] p, int end) {
      this.p = p;
      this.end = end;
    }

    /** Where the next byte is read from. */
    int position() {
      return at;
    }

    int u8() {
      if (at >= end) {
        throw BAD_DATA;
      }
      return p[at++] & 0xff;
    }

    /** A length; -1 - n for the special string encoding n. */
    long length() {
      int b = u8();
      return switch (b >>> 6) {
        case 0 -> b & 0x3f;
        case 1 -> ((long) (b & 0x3f) << 8) | u8();
        case 2 -> {
          int bytes = b == 0x80 ? 4 : b == 0x81 ? 8 : -1;
          if (bytes < 0) {
            throw BAD_DATA;
          }
          long n = 0;
          for (int i = 0; i < bytes; i++) {
            n = (n << 8) | u8();
          }
          yield n;
        }
        default -> -1 - (b & 0x3f);
      };
    }

    int count() {
      long n = length();
      if (n < 0 || n > end - at) {
        throw BAD_DATA;
      }
      return (int) n;
    }

    byte[] bytes(long n) {
      if (n < 0 || n > end - at) {
        throw BAD_DATA;
      }
      byte[] out = java.util.Arrays.copyOfRange(p, at, at + (int) n);
      at += (int) n;
      return out;
    }

    long littleEndian(int bytes) {
      long v = 0;
      for (int i = 0; i < bytes; i++) {
        v |= (long) u8() << (8 * i);
      }
      return v;
    }

    byte[] string() {
      long n = length();
      if (n >= 0) {
        return bytes(n);
      }
      int encoding = (int) (-1 - n);
      return switch (encoding) {
        case 0 -> ascii((byte) u8());
        case 1 -> ascii((short) littleEndian(2));
        case 2 -> ascii((int) littleEndian(4));
        case 3 -> {
          long compressed = length();
          long length = length();
          // LZF expands at most 264 bytes from 3 (a back-reference): a declared length past that
          // ratio is a lie, refused before anything is allocated for it.
          if (compressed < 0 || length < 0 || length > compressed * 88 + 32) {
            throw BAD_DATA;
          }
          yield Lzf.decompress(bytes(compressed), (int) length);
        }
        default -> throw BAD_DATA;
      };
    }

    private static byte[] ascii(long n) {
      return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    Value value() {
      int type = u8();
      List<byte[]> items = new ArrayList<>();
      List<Double> scores = new ArrayList<>();
      switch (type) {
        case STRING -> {
          return new Value(STRING, string(), null, null, null);
        }
        case STREAM_LISTPACKS, STREAM_LISTPACKS_2, STREAM_LISTPACKS_3 -> {
          return new Value(STREAM_LISTPACKS_2, null, null, null, StreamPayload.read(this, type));
        }
        case LIST, SET -> {
          int n = count();
          for (int i = 0; i < n; i++) {
            items.add(string());
          }
        }
        case HASH -> {
          int n = count();
          for (int i = 0; i < 2 * n; i++) {
            items.add(string());
          }
        }
        case ZSET, ZSET_2 -> {
          int n = count();
          for (int i = 0; i < n; i++) {
            items.add(string());
            scores.add(type == ZSET_2 ? Double.longBitsToDouble(littleEndian(8)) : oldScore());
          }
        }
        case SET_INTSET -> intset(string(), items);
        case HASH_LISTPACK, SET_LISTPACK -> Listpack.read(string(), items);
        case ZSET_LISTPACK -> {
          List<byte[]> flat = new ArrayList<>();
          Listpack.read(string(), flat);
          for (int i = 0; i + 1 < flat.size(); i += 2) {
            items.add(flat.get(i));
            Double score = Scores.tryParse(flat.get(i + 1));
            if (score == null) {
              throw BAD_DATA;
            }
            scores.add(score);
          }
        }
        case LIST_QUICKLIST_2 -> {
          int nodes = count();
          for (int i = 0; i < nodes; i++) {
            long container = length();
            byte[] node = string();
            if (container == 1) {
              items.add(node);
            } else if (container == 2) {
              Listpack.read(node, items);
            } else {
              throw BAD_DATA;
            }
          }
        }
        default -> throw BAD_DATA;
      }
      int kind =
          switch (type) {
            case LIST, LIST_QUICKLIST_2 -> LIST;
            case SET, SET_INTSET, SET_LISTPACK -> SET;
            case HASH, HASH_LISTPACK -> HASH;
            default -> ZSET_2;
          };
      return new Value(kind, null, items, scores, null);
    }

    private double oldScore() {
      int n = u8();
      return switch (n) {
        case 253 -> Double.NaN;
        case 254 -> Double.POSITIVE_INFINITY;
        case 255 -> Double.NEGATIVE_INFINITY;
        default -> {
          Double d = Scores.tryParse(bytes(n));
          if (d == null) {
            throw BAD_DATA;
          }
          yield d;
        }
      };
    }

    private static void intset(byte[] blob, List<byte[]> out) {
      if (blob.length < 8) {
        throw BAD_DATA;
      }
      int width = (int) le(blob, 0, 4);
      long n = le(blob, 4, 4);
      if ((width != 2 && width != 4 && width != 8) || 8 + n * width != blob.length) {
        throw BAD_DATA;
      }
      for (int i = 0; i < n; i++) {
        long v = le(blob, 8 + i * width, width);
        int shift = 64 - 8 * width;
        out.add(Long.toString((v << shift) >> shift).getBytes(StandardCharsets.US_ASCII));
      }
    }

    private static long le(byte[] b, int at, int bytes) {
      long v = 0;
      for (int i = 0; i < bytes; i++) {
        v |= (long) (b[at + i] & 0xff) << (8 * i);
      }
      return v;
    }
  }

  /** LZF decompression (liblzf's format, which RDB strings may be compressed in). */
  private static final class Lzf {
    static byte[] decompress(byte[] in, int length) {
      byte[] out = new byte[length];
      int i = 0;
      int o = 0;
      while (i < in.length) {
        int ctrl = in[i++] & 0xff;
        if (ctrl < 32) {
          int n = ctrl + 1;
          if (o + n > length || i + n > in.length) {
            throw BAD_DATA;
          }
          System.arraycopy(in, i, out, o, n);
          i += n;
          o += n;
        } else {
          int n = ctrl >>> 5;
          if (n == 7) {
            n += in[i++] & 0xff;
          }
          int ref = o - ((ctrl & 0x1f) << 8) - 1 - (in[i++] & 0xff);
          n += 2;
          if (ref < 0 || o + n > length) {
            throw BAD_DATA;
          }
          for (int k = 0; k < n; k++) {
            out[o++] = out[ref++];
          }
        }
      }
      if (o != length) {
        throw BAD_DATA;
      }
      return out;
    }
  }

  /** CRC-64/Jones as Redis computes it: polynomial 0xad93d23594c935a9, reflected, init 0. */
  static final class Crc64 {
    private static final long[] TABLE = new long[256];

    static {
      long poly = 0x95ac9329ac4bc9b5L; // 0xad93d23594c935a9 reflected
      for (int n = 0; n < 256; n++) {
        long c = n;
        for (int k = 0; k < 8; k++) {
          c = (c & 1) != 0 ? (c >>> 1) ^ poly : c >>> 1;
        }
        TABLE[n] = c;
      }
    }

    static long of(byte[] b, int from, int to) {
      long crc = 0;
      for (int i = from; i < to; i++) {
        crc = TABLE[(int) ((crc ^ b[i]) & 0xff)] ^ (crc >>> 8);
      }
      return crc;
    }
  }
}
