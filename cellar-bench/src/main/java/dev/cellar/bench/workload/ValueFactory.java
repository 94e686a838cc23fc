package dev.cellar.bench.workload;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Values of a fixed size whose bytes are a pure function of the key number and a version, so a
 * reader can check what it got without keeping a copy: version 0 is written by the load, version 1
 * by overwrites.
 *
 * <p>The bytes are pseudo-random (SplitMix64), hence incompressible: a store that compresses gains
 * nothing it would not gain on real, already-compact data, and pays its compressor's cost.
 */
public final class ValueFactory {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private final int size;

  public ValueFactory(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("value size " + size + " < 1");
    }
    this.size = size;
  }

  public int size() {
    return size;
  }

  /** A fresh array holding version {@code version} of key {@code n}'s value. */
  public byte[] value(long n, int version) {
    byte[] value = new byte[size];
    fill(value, n, version);
    return value;
  }

  /** Whether {@code value} is exactly version {@code version} of key {@code n}'s value. */
  public boolean matches(byte[] value, long n, int version) {
    if (value == null || value.length != size) {
      return false;
    }
    long state = seed(n, version);
    int i = 0;
    for (; i + Long.BYTES <= size; i += Long.BYTES) {
      state += GOLDEN_GAMMA;
      if ((long) LONGS.get(value, i) != mix(state)) {
        return false;
      }
    }
    long tail = mix(state + GOLDEN_GAMMA);
    for (; i < size; i++, tail >>>= 8) {
      if (value[i] != (byte) tail) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code value} is any version in {@code [0, versions)} of key {@code n}'s value. */
  public boolean matchesAny(byte[] value, long n, int versions) {
    for (int version = 0; version < versions; version++) {
      if (matches(value, n, version)) {
        return true;
      }
    }
    return false;
  }

  private void fill(byte[] value, long n, int version) {
    long state = seed(n, version);
    int i = 0;
    for (; i + Long.BYTES <= size; i += Long.BYTES) {
      state += GOLDEN_GAMMA;
      LONGS.set(value, i, mix(state));
    }
    long tail = mix(state + GOLDEN_GAMMA);
    for (; i < size; i++, tail >>>= 8) {
      value[i] = (byte) tail;
    }
  }

  private static long seed(long n, int version) {
    return mix(n * GOLDEN_GAMMA + version);
  }

  /** SplitMix64's finaliser. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
