package dev.cellar;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/**
 * A flyweight over a fixed-size record laid out by a {@link StructType}: its fields are read and
 * written in place, in whatever memory it is over (a heap array, a value in the store's log, a
 * shared-memory ring), with no object per field. Subclasses add typed accessors through the type's
 * {@link StructField}s:
 *
 * <pre>{@code
 * final class User extends Struct {
 *   static final StructType<User> TYPE = StructType.of(User::new, MemoryLayout.structLayout(
 *       JAVA_LONG.withName("id"), JAVA_INT.withName("age"), MemoryLayout.paddingLayout(4),
 *       MemoryLayout.sequenceLayout(32, JAVA_BYTE).withName("name")));
 *   private static final StructField.OfLong ID = TYPE.longField("id");
 *   private static final StructField.OfInt AGE = TYPE.intField("age");
 *   private static final StructField.OfString NAME = TYPE.stringField("name");
 *
 *   long id() { return ID.get(this); }
 *   User id(long id) { ID.set(this, id); return this; }
 *   ...
 * }
 * }</pre>
 *
 * <p>A struct is made by its type ({@link StructType#allocate()}, {@link StructType#wrap}) and can
 * be moved over other bytes with {@link #wrap(MemorySegment, long, long)}, so that one flyweight
 * reads any number of values without allocating. It is not thread-safe: a flyweight is a cursor,
 * owned by one thread; the memory under it may be shared, with whatever ordering its owner
 * arranges. Over read-only memory (a value read in place from the store) its setters throw {@link
 * IllegalArgumentException} ("Attempt to write a read-only segment"). The byte format is in {@code
 * docs/format/struct.md}.
 */
public abstract class Struct {
  // Package-private, so that StructField reads them directly and subclasses cannot reassign them.
  StructType<?> type;
  MemorySegment segment = MemorySegment.NULL;
  long offset;

  /** For subclasses; a struct is usable once its {@link StructType} has made or wrapped it. */
  protected Struct() {}

  /**
   * Moves this flyweight over the {@code length} bytes of {@code source} from {@code offset}: the
   * shape of a {@link ValueSink}, so a sink can read a value in place with one reused flyweight.
   *
   * @throws IllegalArgumentException if {@code length} is not the type's size
   * @throws IndexOutOfBoundsException if the range is not inside {@code source}
   */
  public final Struct wrap(MemorySegment source, long offset, long length) {
    StructType<?> known = type();
    known.checkLength(length);
    if (offset < 0 || offset > source.byteSize() - length) {
      throw new IndexOutOfBoundsException(
          "a "
              + known.name()
              + " struct needs "
              + length
              + " bytes at offset "
              + offset
              + ", the segment has "
              + source.byteSize());
    }
    this.segment = source;
    this.offset = offset;
    return this;
  }

  /** Moves this flyweight over {@code bytes}, which must be exactly one struct long. */
  public final Struct wrap(MemorySegment bytes) {
    return wrap(bytes, 0, bytes.byteSize());
  }

  /** The struct's type. */
  public final StructType<?> type() {
    if (type == null) {
      throw new IllegalStateException(
          getClass().getSimpleName()
              + " was made with 'new'; make structs with their StructType (allocate or wrap)");
    }
    return type;
  }

  /** The struct's bytes where they lie (a slice: read-only if the memory under it is). */
  public final MemorySegment segment() {
    return segment.asSlice(offset, type().byteSize());
  }

  /** A copy of the struct's bytes: what {@link Codecs#struct} stores. */
  public final byte[] toBytes() {
    byte[] out = new byte[Math.toIntExact(type().byteSize())];
    MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, out, 0, out.length);
    return out;
  }

  /** Copies every byte of {@code other}, a struct of the same type, into this one. */
  public final void copyFrom(Struct other) {
    if (other.type() != type()) {
      throw new IllegalArgumentException(
          "cannot copy a " + other.type().name() + " struct into a " + type().name() + " struct");
    }
    MemorySegment.copy(other.segment, other.offset, segment, offset, type.byteSize());
  }

  /** The type's name and the bytes in hex, for messages and debugging. */
  @Override
  public String toString() {
    if (type == null) {
      return getClass().getSimpleName() + "[not made by its StructType]";
    }
    return type.name() + "[" + HexFormat.of().formatHex(toBytes()) + "]";
  }
}
