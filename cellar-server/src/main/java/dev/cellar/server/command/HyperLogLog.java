package dev.cellar.server.command;

import java.util.Arrays;

/**
 * Redis's HyperLogLog string (specified in {@code docs/format/hyperloglog.md}; this class is the
 * only place that knows its layout): a 16-byte header, then 16,384 six-bit registers, either dense
 * (12,288 bytes) or sparse (run-length opcodes). The bytes are Redis 7.2's, byte for byte, so that
 * {@code GET}, {@code DUMP} and a copy between servers see the same value, and the count is Redis's
 * estimator, so that {@code PFCOUNT} gives the same number.
 *
 * <pre>
 * header, 16 bytes:
 *   0        4          5          8                16
 *   +--------+----------+----------+----------------+---------------------
 *   | "HYLL" | encoding | 3 zeroes | cardinality    | registers
 *   +--------+----------+----------+----------------+---------------------
 *   encoding: 0 dense, 1 sparse; cardinality: the last count, u64 little-endian, stale when the
 *   top bit of its last byte is set
 *
 * dense: register i at bit 6i, least significant bits first
 * sparse opcodes:
 *   00xxxxxx           ZERO:  xxxxxx + 1 registers (1 to 64) are 0
 *   01xxxxxx yyyyyyyy  XZERO: xxxxxxyyyyyyyy + 1 registers (1 to 16,384) are 0
 *   1vvvvvxx           VAL:   xx + 1 registers (1 to 4) are vvvvv + 1 (1 to 32)
 * </pre>
 *
 * An element goes to register {@code h & 16383} of its 64-bit MurmurHash64A ({@code h}, seed {@code
 * 0xadc83b19}), which is raised to one more than the number of zero bits of {@code h >>> 14} before
 * its first one (at most 51). A sparse sketch becomes dense when a register passes 32 or it would
 * grow past {@code hll-sparse-max-bytes}; the edits of the sparse form, and the merging of equal
 * neighbours after one, are those Redis makes, since the bytes must come out the same.
 *
 * <p>An instance is one sketch being read or changed; not thread-safe.
 */
final class HyperLogLog {
  static final int REGISTERS = 1 << 14;
  static final int HEADER = 16;
  static final int DENSE_SIZE = HEADER + (REGISTERS * 6 + 7) / 8;
  static final int DENSE = 0;
  static final int SPARSE = 1;

  private static final int P = 14;
  private static final int Q = 64 - P;
  private static final int ENCODING = 4;
  private static final int CARDINALITY = 8;
  private static final int VAL_MAX_VALUE = 32;
  private static final int VAL_MAX_LEN = 4;
  private static final int ZERO_MAX_LEN = 64;
  private static final int XZERO_MAX_LEN = 16384;
  private static final long SEED = 0xadc83b19L;
  private static final double ALPHA_INF = 0.721347520444481703680; // 0.5 / ln 2

  private byte[] b;
  private int length;

  private HyperLogLog(byte[] bytes, int length) {
    this.b = bytes;
    this.length = length;
  }

  /** A new, empty sketch, sparse, as {@code PFADD} creates one. */
  static HyperLogLog empty() {
    byte[] v = new byte[HEADER + 2];
    v[0] = 'H';
    v[1] = 'Y';
    v[2] = 'L';
    v[3] = 'L';
    v[ENCODING] = SPARSE;
    setXzero(v, HEADER, REGISTERS);
    return new HyperLogLog(v, v.length);
  }

  /**
   * Whether {@code value} is a sketch as Redis checks one: long enough, the magic, a known encoding
   * and, if dense, exactly the dense size. A sparse one's opcodes are checked when they are read.
   */
  static boolean valid(byte[] value) {
    return value.length >= HEADER
        && value[0] == 'H'
        && value[1] == 'Y'
        && value[2] == 'L'
        && value[3] == 'L'
        && (value[ENCODING] & 0xFF) <= SPARSE
        && (value[ENCODING] != DENSE || value.length == DENSE_SIZE);
  }

  /**
   * A sketch over {@code value} itself (which {@link #valid} accepted), to read or change: the
   * caller's own copy, as the store's reads hand one out, so nothing is copied again.
   */
  static HyperLogLog over(byte[] value) {
    return new HyperLogLog(value, value.length);
  }

  /** The sketch's bytes now. */
  byte[] bytes() {
    return Arrays.copyOf(b, length);
  }

  int encoding() {
    return b[ENCODING];
  }

  // ------------------------------------------------------------------ the cached cardinality

  boolean cacheValid() {
    return (b[CARDINALITY + 7] & 0x80) == 0;
  }

  long cached() {
    long card = 0;
    for (int i = 7; i >= 0; i--) {
      card = (card << 8) | (b[CARDINALITY + i] & 0xFF);
    }
    return card;
  }

  void cache(long card) {
    for (int i = 0; i < 8; i++) {
      b[CARDINALITY + i] = (byte) (card >>> (8 * i));
    }
  }

  void invalidateCache() {
    b[CARDINALITY + 7] |= (byte) 0x80;
  }

  // ------------------------------------------------------------------ adding

  /**
   * Adds an element: 1 if a register grew, 0 if not, -1 if the sparse form is corrupt.
   *
   * @param sparseMax {@code hll-sparse-max-bytes}
   */
  int add(byte[] element, int offset, int len, long sparseMax) {
    long hash = murmur64a(element, offset, len);
    int index = (int) (hash & (REGISTERS - 1));
    int count = Long.numberOfTrailingZeros((hash >>> P) | (1L << Q)) + 1;
    return set(index, count, sparseMax);
  }

  /** Raises register {@code index} to {@code count}: 1 if it grew, 0 if not, -1 if corrupt. */
  int set(int index, int count, long sparseMax) {
    if (b[ENCODING] == DENSE) {
      return denseSet(index, count);
    }
    return sparseSet(index, count, sparseMax);
  }

  private int denseSet(int index, int count) {
    if (count > register(index)) {
      setRegister(index, count);
      return 1;
    }
    return 0;
  }

  /** A dense sketch's register {@code index}. */
  int register(int index) {
    int bit = index * 6;
    int at = HEADER + (bit >> 3);
    int shift = bit & 7;
    int b0 = b[at] & 0xFF;
    int b1 = at + 1 < length ? b[at + 1] & 0xFF : 0;
    return ((b0 >>> shift) | (b1 << (8 - shift))) & 63;
  }

  /** Sets a dense sketch's register {@code index} to {@code value} (0 to 63), whatever it was. */
  void overwrite(int index, int value) {
    setRegister(index, value);
  }

  private void setRegister(int index, int value) {
    int bit = index * 6;
    int at = HEADER + (bit >> 3);
    int shift = bit & 7;
    b[at] = (byte) ((b[at] & ~(63 << shift)) | (value << shift));
    if (shift > 2) {
      b[at + 1] = (byte) ((b[at + 1] & ~(63 >>> (8 - shift))) | (value >>> (8 - shift)));
    }
  }

  /**
   * Redis's sparse update: find the opcode that covers the register; leave it if its value is at
   * least {@code count}; else split it into at most three opcodes, or make the sketch dense when
   * the value does not fit a VAL or the form would grow past {@code sparseMax}; then merge equal
   * VAL neighbours among the next five opcodes from the one before.
   */
  private int sparseSet(int index, int count, long sparseMax) {
    if (count > VAL_MAX_VALUE) {
      return promote(index, count);
    }
    int p = HEADER;
    int end = length;
    int first = 0;
    int prev = -1;
    int span = 0;
    while (p < end) {
      int op = b[p] & 0xFF;
      int oplen = 1;
      if (isZero(op)) {
        span = (op & 0x3F) + 1;
      } else if (isVal(op)) {
        span = (op & 3) + 1;
      } else {
        if (p + 1 >= end) {
          return -1;
        }
        span = xzeroLen(b, p);
        oplen = 2;
      }
      if (index <= first + span - 1) {
        break;
      }
      prev = p;
      p += oplen;
      first += span;
    }
    if (p >= end) {
      return -1;
    }
    int op = b[p] & 0xFF;
    boolean zero = isZero(op);
    boolean xzero = !zero && !isVal(op);
    boolean val = isVal(op);
    int runlen = zero ? (op & 0x3F) + 1 : val ? (op & 3) + 1 : xzeroLen(b, p);
    updated:
    {
      if (val) {
        int old = ((op >>> 2) & 0x1F) + 1;
        if (old >= count) {
          return 0;
        }
        if (runlen == 1) {
          b[p] = valOp(count, 1);
          break updated;
        }
      }
      if (zero && runlen == 1) {
        b[p] = valOp(count, 1);
        break updated;
      }
      byte[] seq = new byte[5];
      int n = 0;
      int last = first + span - 1;
      if (zero || xzero) {
        if (index != first) {
          n = zeros(seq, n, index - first);
        }
        seq[n++] = valOp(count, 1);
        if (index != last) {
          n = zeros(seq, n, last - index);
        }
      } else {
        int current = ((op >>> 2) & 0x1F) + 1;
        if (index != first) {
          seq[n++] = valOp(current, index - first);
        }
        seq[n++] = valOp(count, 1);
        if (index != last) {
          seq[n++] = valOp(current, last - index);
        }
      }
      int oldlen = xzero ? 2 : 1;
      int delta = n - oldlen;
      if (delta > 0 && (long) length + delta > sparseMax) {
        return promote(index, count);
      }
      int next = p + oldlen;
      if (delta > 0) {
        ensure(length + delta);
      }
      if (delta != 0 && next < end) {
        System.arraycopy(b, next, b, next + delta, end - next);
      }
      length += delta;
      System.arraycopy(seq, 0, b, p, n);
      end += delta;
    }
    mergeValues(prev >= 0 ? prev : HEADER, end);
    invalidateCache();
    return 1;
  }

  /** Step 4 of Redis's update: equal adjacent VALs merged, five opcodes from {@code p}. */
  private void mergeValues(int p, int end) {
    int scan = 5;
    while (p < end && scan-- != 0) {
      int op = b[p] & 0xFF;
      if (!isZero(op) && !isVal(op)) {
        p += 2;
        continue;
      } else if (isZero(op)) {
        p++;
        continue;
      }
      if (p + 1 < end && isVal(b[p + 1] & 0xFF)) {
        int next = b[p + 1] & 0xFF;
        int v1 = ((op >>> 2) & 0x1F) + 1;
        int v2 = ((next >>> 2) & 0x1F) + 1;
        if (v1 == v2) {
          int len = (op & 3) + 1 + (next & 3) + 1;
          if (len <= VAL_MAX_LEN) {
            b[p + 1] = valOp(v1, len);
            System.arraycopy(b, p + 1, b, p, end - p - 1);
            length--;
            end--;
            continue;
          }
        }
      }
      p++;
    }
  }

  private int promote(int index, int count) {
    if (!toDense()) {
      return -1;
    }
    denseSet(index, count);
    return 1;
  }

  /**
   * Makes a sparse sketch dense (the header, cached cardinality included, is kept); false if the
   * sparse form is corrupt (its runs do not cover exactly the 16,384 registers).
   */
  boolean toDense() {
    if (b[ENCODING] == DENSE) {
      return true;
    }
    int[] registers = sparseRegisters();
    if (registers == null) {
      return false;
    }
    byte[] dense = new byte[DENSE_SIZE];
    System.arraycopy(b, 0, dense, 0, HEADER);
    dense[ENCODING] = DENSE;
    b = dense;
    length = DENSE_SIZE;
    for (int i = 0; i < REGISTERS; i++) {
      if (registers[i] != 0) {
        setRegister(i, registers[i]);
      }
    }
    return true;
  }

  /** A sparse sketch's registers, or null if its runs do not cover exactly all of them. */
  private int[] sparseRegisters() {
    int[] registers = new int[REGISTERS];
    int idx = 0;
    int p = HEADER;
    while (p < length) {
      int op = b[p] & 0xFF;
      if (isZero(op)) {
        idx += (op & 0x3F) + 1;
        p++;
      } else if (isVal(op)) {
        int run = (op & 3) + 1;
        if (idx + run > REGISTERS) {
          return null;
        }
        Arrays.fill(registers, idx, idx + run, ((op >>> 2) & 0x1F) + 1);
        idx += run;
        p++;
      } else {
        if (p + 1 >= length) {
          return null;
        }
        idx += xzeroLen(b, p);
        p += 2;
      }
    }
    return idx == REGISTERS ? registers : null;
  }

  // ------------------------------------------------------------------ counting and merging

  /** Raises each of {@code max}'s registers to this sketch's; false if the sketch is corrupt. */
  boolean mergeInto(byte[] max) {
    if (b[ENCODING] == DENSE) {
      for (int i = 0; i < REGISTERS; i++) {
        int v = register(i);
        if (v > max[i]) {
          max[i] = (byte) v;
        }
      }
      return true;
    }
    int[] registers = sparseRegisters();
    if (registers == null) {
      return false;
    }
    for (int i = 0; i < REGISTERS; i++) {
      if (registers[i] > max[i]) {
        max[i] = (byte) registers[i];
      }
    }
    return true;
  }

  /** The estimate of this sketch's cardinality, or -1 if it is corrupt. */
  long count() {
    int[] histogram = new int[64];
    if (b[ENCODING] == DENSE) {
      for (int i = 0; i < REGISTERS; i++) {
        histogram[register(i)]++;
      }
    } else {
      int[] registers = sparseRegisters();
      if (registers == null) {
        return -1;
      }
      for (int r : registers) {
        histogram[r]++;
      }
    }
    return estimate(histogram);
  }

  /** The estimate for registers held one to a byte (a union of sketches). */
  static long countUnion(byte[] registers) {
    int[] histogram = new int[64];
    for (byte r : registers) {
      histogram[r]++;
    }
    return estimate(histogram);
  }

  /**
   * Redis's estimator (Ertl, "New cardinality estimation algorithms for HyperLogLog sketches",
   * 2017), in the same double arithmetic, so that the rounding comes out the same.
   */
  private static long estimate(int[] histogram) {
    double m = REGISTERS;
    double z = m * tau((m - histogram[Q + 1]) / m);
    for (int j = Q; j >= 1; --j) {
      z += histogram[j];
      z *= 0.5;
    }
    z += m * sigma(histogram[0] / m);
    return Math.round(ALPHA_INF * m * m / z);
  }

  private static double sigma(double x) {
    if (x == 1.0) {
      return Double.POSITIVE_INFINITY;
    }
    double zPrime;
    double y = 1;
    double z = x;
    do {
      x *= x;
      zPrime = z;
      z += x * y;
      y += y;
    } while (zPrime != z);
    return z;
  }

  private static double tau(double x) {
    if (x == 0.0 || x == 1.0) {
      return 0.0;
    }
    double zPrime;
    double y = 1.0;
    double z = 1 - x;
    do {
      x = Math.sqrt(x);
      zPrime = z;
      y *= 0.5;
      z -= (1 - x) * (1 - x) * y; // pow(1 - x, 2) in C: the square, rounded once
    } while (zPrime != z);
    return z / 3;
  }

  // ------------------------------------------------------------------ PFDEBUG DECODE

  /** The sparse opcodes as Redis's {@code PFDEBUG DECODE} prints them ({@code z:3 v:2,1 Z:100}). */
  String decode() {
    StringBuilder s = new StringBuilder();
    int p = HEADER;
    while (p < length) {
      int op = b[p] & 0xFF;
      if (s.length() > 0) {
        s.append(' ');
      }
      if (isZero(op)) {
        s.append("z:").append((op & 0x3F) + 1);
        p++;
      } else if (isVal(op)) {
        s.append("v:").append(((op >>> 2) & 0x1F) + 1).append(',').append((op & 3) + 1);
        p++;
      } else {
        int second = p + 1 < length ? b[p + 1] & 0xFF : 0;
        s.append("Z:").append((((op & 0x3F) << 8) | second) + 1);
        p += 2;
      }
    }
    return s.toString();
  }

  // ------------------------------------------------------------------ opcodes and the hash

  private static boolean isZero(int op) {
    return (op & 0xC0) == 0;
  }

  private static boolean isVal(int op) {
    return (op & 0x80) != 0;
  }

  private static int xzeroLen(byte[] v, int p) {
    return (((v[p] & 0x3F) << 8) | (v[p + 1] & 0xFF)) + 1;
  }

  private static byte valOp(int value, int len) {
    return (byte) (0x80 | ((value - 1) << 2) | (len - 1));
  }

  private static void setXzero(byte[] v, int p, int len) {
    v[p] = (byte) (0x40 | ((len - 1) >>> 8));
    v[p + 1] = (byte) (len - 1);
  }

  /** A run of {@code len} zero registers at {@code seq[n]}: ZERO if it fits one, else XZERO. */
  private static int zeros(byte[] seq, int n, int len) {
    if (len > ZERO_MAX_LEN) {
      setXzero(seq, n, len);
      return n + 2;
    }
    seq[n] = (byte) (len - 1);
    return n + 1;
  }

  private void ensure(int size) {
    if (size > b.length) {
      b = Arrays.copyOf(b, Math.max(size, Math.min(b.length * 2, size + 300)));
    }
  }

  /** MurmurHash64A (Austin Appleby) with Redis's seed, over little-endian 8-byte words. */
  static long murmur64a(byte[] data, int offset, int len) {
    final long m = 0xc6a4a7935bd1e995L;
    final int r = 47;
    long h = SEED ^ (len * m);
    int words = len >>> 3;
    int p = offset;
    for (int i = 0; i < words; i++, p += 8) {
      long k =
          (data[p] & 0xFFL)
              | (data[p + 1] & 0xFFL) << 8
              | (data[p + 2] & 0xFFL) << 16
              | (data[p + 3] & 0xFFL) << 24
              | (data[p + 4] & 0xFFL) << 32
              | (data[p + 5] & 0xFFL) << 40
              | (data[p + 6] & 0xFFL) << 48
              | (data[p + 7] & 0xFFL) << 56;
      k *= m;
      k ^= k >>> r;
      k *= m;
      h ^= k;
      h *= m;
    }
    int rest = len & 7;
    if (rest > 0) {
      for (int i = rest - 1; i >= 0; i--) {
        h ^= (data[p + i] & 0xFFL) << (8 * i);
      }
      h *= m;
    }
    h ^= h >>> r;
    h *= m;
    h ^= h >>> r;
    return h;
  }
}
