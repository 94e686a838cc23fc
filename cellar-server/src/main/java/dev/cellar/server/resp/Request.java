package dev.cellar.server.resp;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One parsed command: its arguments as (offset, length) pairs into the connection's input buffer.
 * Nothing is copied while parsing; a command copies an argument only when it must keep it. Valid
 * until the next request is parsed into it, as the buffer is compacted between reads.
 *
 * <p>Owned by one connection, so not thread-safe.
 */
public final class Request {
  private byte[] buffer = new byte[0];
  private MemorySegment bufferSegment = MemorySegment.ofArray(buffer);
  private int count;
  private int[] offsets = new int[8];
  private int[] lengths = new int[8];

  void reset(byte[] buffer) {
    if (this.buffer != buffer) {
      this.buffer = buffer;
      this.bufferSegment = MemorySegment.ofArray(buffer);
    }
    count = 0;
  }

  /**
   * The input moved by {@code delta} bytes, into {@code buffer}: the arguments so far move with it.
   */
  void moved(byte[] buffer, int delta) {
    int keep = count;
    reset(buffer);
    count = keep;
    for (int i = 0; i < count; i++) {
      offsets[i] += delta;
    }
  }

  void add(int offset, int length) {
    if (count == offsets.length) {
      offsets = Arrays.copyOf(offsets, count * 2);
      lengths = Arrays.copyOf(lengths, count * 2);
    }
    offsets[count] = offset;
    lengths[count] = length;
    count++;
  }

  /** Removes everything; used when a command is built by hand (tests, HTTP). */
  public void clear() {
    count = 0;
  }

  /** Number of arguments, the command name included. */
  public int argc() {
    return count;
  }

  public byte[] buffer() {
    return buffer;
  }

  public int offset(int i) {
    return offsets[i];
  }

  public int length(int i) {
    return lengths[i];
  }

  /** The bytes of argument {@code i}, copied. */
  public byte[] bytes(int i) {
    return Arrays.copyOfRange(buffer, offsets[i], offsets[i] + lengths[i]);
  }

  /**
   * The input buffer as a segment: argument {@code i} is its {@link #length(int)} bytes from {@link
   * #offset(int)}. The hot commands hand the engine these ranges rather than a {@link
   * #segment(int)} slice each, so that they allocate nothing.
   */
  public MemorySegment input() {
    return bufferSegment;
  }

  /** Argument {@code i} as a segment over the input buffer: no copy, valid like the request. */
  public MemorySegment segment(int i) {
    return bufferSegment.asSlice(offsets[i], lengths[i]);
  }

  /** Argument {@code i} decoded as UTF-8 (for names, options and numbers, not keys). */
  public String string(int i) {
    return new String(buffer, offsets[i], lengths[i], StandardCharsets.UTF_8);
  }

  /** Whether argument {@code i} equals the ASCII word {@code lowerCase}, ignoring case. */
  public boolean is(int i, String lowerCase) {
    int length = lengths[i];
    if (length != lowerCase.length()) {
      return false;
    }
    int offset = offsets[i];
    for (int j = 0; j < length; j++) {
      int c = buffer[offset + j];
      if (c >= 'A' && c <= 'Z') {
        c += 'a' - 'A';
      }
      if (c != lowerCase.charAt(j)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Argument {@code i} as a signed 64-bit decimal, exactly as Redis's {@code string2ll} accepts it
   * (no spaces, no plus sign, no leading zeros); {@code Long.MIN_VALUE} is not a valid reply here,
   * so callers test {@link #isLong} first.
   */
  public boolean isLong(int i) {
    return Numbers.isLong(buffer, offsets[i], lengths[i]);
  }

  public long longValue(int i) {
    return Numbers.parseLong(buffer, offsets[i], lengths[i]);
  }

  /** Sets the request to the given arguments (for callers that are not the RESP parser). */
  public void set(byte[][] args) {
    int total = 0;
    for (byte[] a : args) {
      total += a.length;
    }
    byte[] joined = new byte[total];
    reset(joined);
    int at = 0;
    for (byte[] a : args) {
      System.arraycopy(a, 0, joined, at, a.length);
      add(at, a.length);
      at += a.length;
    }
  }
}
