package dev.cellar;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A typed accessor for one field of a {@link Struct}, made once by its {@link StructType} from the
 * field's name in the layout and kept in a {@code static final} field of the struct class:
 *
 * <pre>{@code
 * private static final StructField.OfLong ID = TYPE.longField("id");
 * long id() { return ID.get(this); }
 * }</pre>
 *
 * <p>Reading or writing a field is one bounds-checked access to the memory under the struct, with
 * no object made (except by {@link OfBytes#get} and {@link OfString}, which return new arrays and
 * strings). Numeric fields are little-endian; see {@code docs/format/struct.md}. The accessors are
 * records so that the JIT trusts their handles as constants (see {@link StructType}'s notes).
 */
public sealed interface StructField {

  /** A {@code byte} field. */
  record OfByte(VarHandle handle) implements StructField {
    public OfByte {
      checkShape(handle, byte.class);
    }

    public byte get(Struct struct) {
      return (byte) handle.get(struct.segment, struct.offset);
    }

    public void set(Struct struct, byte value) {
      handle.set(struct.segment, struct.offset, value);
    }
  }

  /** A {@code short} field. */
  record OfShort(VarHandle handle) implements StructField {
    public OfShort {
      checkShape(handle, short.class);
    }

    public short get(Struct struct) {
      return (short) handle.get(struct.segment, struct.offset);
    }

    public void set(Struct struct, short value) {
      handle.set(struct.segment, struct.offset, value);
    }
  }

  /** An {@code int} field. */
  record OfInt(VarHandle handle) implements StructField {
    public OfInt {
      checkShape(handle, int.class);
    }

    public int get(Struct struct) {
      return (int) handle.get(struct.segment, struct.offset);
    }

    public void set(Struct struct, int value) {
      handle.set(struct.segment, struct.offset, value);
    }
  }

  /** A {@code long} field. */
  record OfLong(VarHandle handle) implements StructField {
    public OfLong {
      checkShape(handle, long.class);
    }

    public long get(Struct struct) {
      return (long) handle.get(struct.segment, struct.offset);
    }

    public void set(Struct struct, long value) {
      handle.set(struct.segment, struct.offset, value);
    }
  }

  /** A {@code float} field. */
  record OfFloat(VarHandle handle) implements StructField {
    public OfFloat {
      checkShape(handle, float.class);
    }

    public float get(Struct struct) {
      return (float) handle.get(struct.segment, struct.offset);
    }

    public void set(Struct struct, float value) {
      handle.set(struct.segment, struct.offset, value);
    }
  }

  /** A {@code double} field. */
  record OfDouble(VarHandle handle) implements StructField {
    public OfDouble {
      checkShape(handle, double.class);
    }

    public double get(Struct struct) {
      return (double) handle.get(struct.segment, struct.offset);
    }

    public void set(Struct struct, double value) {
      handle.set(struct.segment, struct.offset, value);
    }
  }

  /**
   * A fixed-size byte array, {@code length} bytes from {@code offset} in the struct: {@link #get}
   * copies it out, {@link #set} copies in and pads a shorter array with zeros.
   */
  record OfBytes(String name, long offset, int length) implements StructField {
    public byte[] get(Struct struct) {
      byte[] out = new byte[length];
      MemorySegment.copy(
          struct.segment, ValueLayout.JAVA_BYTE, struct.offset + offset, out, 0, length);
      return out;
    }

    /** Writes {@code value}, at most {@link #length()} bytes, and zeros after it. */
    public void set(Struct struct, byte[] value) {
      if (value.length > length) {
        throw new IllegalArgumentException(
            "field " + name + " holds " + length + " bytes, got " + value.length);
      }
      long at = struct.offset + offset;
      MemorySegment.copy(value, 0, struct.segment, ValueLayout.JAVA_BYTE, at, value.length);
      struct.segment.asSlice(at + value.length, length - value.length).fill((byte) 0);
    }
  }

  /**
   * A fixed-size byte array holding a UTF-8 string padded with NUL bytes; a string that fills the
   * array has no NUL. A string holding U+0000 is refused, since it would read back cut short.
   */
  record OfString(String name, long offset, int length) implements StructField {
    /** The string: the bytes before the first NUL (or all of them), decoded as UTF-8. */
    public String get(Struct struct) {
      MemorySegment segment = struct.segment;
      long start = struct.offset + offset;
      int n = 0;
      while (n < length && segment.get(ValueLayout.JAVA_BYTE, start + n) != 0) {
        n++;
      }
      byte[] utf8 = new byte[n];
      MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, start, utf8, 0, n);
      return new String(utf8, StandardCharsets.UTF_8);
    }

    /**
     * Writes {@code value} as UTF-8 and pads it with NUL bytes.
     *
     * @throws IllegalArgumentException if its UTF-8 is longer than {@link #length()} bytes, or it
     *     holds U+0000
     */
    public void set(Struct struct, String value) {
      if (value.indexOf('\0') >= 0) {
        throw new IllegalArgumentException(
            "field " + name + " is NUL-padded, so it cannot hold U+0000; got \"" + value + "\"");
      }
      byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
      if (utf8.length > length) {
        throw new IllegalArgumentException(
            "field "
                + name
                + " holds "
                + length
                + " bytes of UTF-8, \""
                + value
                + "\" needs "
                + utf8.length);
      }
      new OfBytes(name, offset, length).set(struct, utf8);
    }
  }

  /** Refuses any handle but the (segment, offset) to value handle a layout gives. */
  private static void checkShape(VarHandle handle, Class<?> carrier) {
    if (handle.varType() != carrier
        || !handle.coordinateTypes().equals(List.of(MemorySegment.class, long.class))) {
      throw new IllegalArgumentException(
          "a "
              + carrier
              + " struct field needs a (MemorySegment, long) -> "
              + carrier
              + " handle, got "
              + handle);
    }
  }
}
