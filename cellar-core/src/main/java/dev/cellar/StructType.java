package dev.cellar;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A fixed-size record described once as an FFM {@link StructLayout}: makes {@link Struct}
 * flyweights of one class over it, and derives their field accessors from the layout's names.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>The layout is the format.</b> A struct's bytes are its layout's bytes and nothing else: no
 * header, no length, no version (see {@code docs/format/struct.md}). The layout the user gives
 * fixes every offset; {@link MemoryLayout#structLayout} already refuses a member that is not at a
 * multiple of its alignment, so padding is explicit and the same on every machine.
 *
 * <p><b>Little-endian, unaligned access.</b> Accessors are made from a copy of the layout in which
 * every value is little-endian and 1-byte aligned. Little-endian because it is the native order of
 * every machine Cellar runs on (x86-64, AArch64), so a field is one plain load or store, and
 * because Cellar's other formats are little-endian too; big-endian would only help a struct used as
 * a key whose bytes should sort, which is not what a struct is for. A field declared big-endian is
 * therefore refused rather than silently stored otherwise (native order is accepted and stored
 * little-endian, so the bytes are the same on a big-endian machine, which merely swaps). Unaligned
 * because a value in the log starts wherever its record put it, and a heap {@code byte[]} has no
 * alignment at all; an aligned {@link VarHandle} would throw there, and on x86-64 and AArch64 an
 * unaligned access costs the same as an aligned one.
 *
 * <p><b>Why the accessors are records.</b> A {@link VarHandle} is fast only when the JIT sees it as
 * a constant. Held in a {@code static final} field it is; held in an object in a {@code static
 * final} field it is only if the JIT trusts that object's final fields, which HotSpot does for
 * records (and not for ordinary classes). So each {@link StructField} is a record wrapping its
 * handle, and a struct class keeps its fields in {@code static final}s.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <T> the struct class
 */
public final class StructType<T extends Struct> {
  private final Supplier<T> factory;
  private final StructLayout layout;
  private final StructLayout access;
  private final String name;
  private final long byteSize;

  private StructType(Supplier<T> factory, StructLayout layout) {
    this.factory = factory;
    this.layout = layout;
    this.access = (StructLayout) accessLayout(layout, "");
    T probe = Objects.requireNonNull(factory.get(), "the struct factory returned null");
    this.name = probe.getClass().getSimpleName();
    this.byteSize = layout.byteSize();
    if (byteSize == 0 || byteSize > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "a struct is 1 to " + Integer.MAX_VALUE + " bytes, " + name + " has " + byteSize);
    }
  }

  /**
   * The type of structs made by {@code factory} (a no-argument constructor, e.g. {@code User::new})
   * and laid out by {@code layout}.
   *
   * @throws IllegalArgumentException if the layout holds an address, a big-endian value, or no
   *     bytes
   */
  public static <T extends Struct> StructType<T> of(Supplier<T> factory, StructLayout layout) {
    return new StructType<>(Objects.requireNonNull(factory), Objects.requireNonNull(layout));
  }

  /** The layout as given. */
  public StructLayout layout() {
    return layout;
  }

  /** Bytes of one struct. */
  public long byteSize() {
    return byteSize;
  }

  /** The struct class's simple name, for messages. */
  public String name() {
    return name;
  }

  /** A new struct over zeroed heap memory of its own. */
  public T allocate() {
    return over(MemorySegment.ofArray(new byte[(int) byteSize]), 0);
  }

  /**
   * A new struct over {@code bytes} in place (no copy), which must be exactly one struct long: for
   * a value read inside {@link Cellar#read(byte[], java.util.function.Function)}, where the view is
   * valid only until the reader returns.
   *
   * @throws IllegalArgumentException if {@code bytes} is not {@link #byteSize()} long
   */
  public T wrap(MemorySegment bytes) {
    checkLength(bytes.byteSize());
    return over(bytes, 0);
  }

  private T over(MemorySegment segment, long offset) {
    T struct = factory.get();
    struct.type = this;
    struct.segment = segment;
    struct.offset = offset;
    return struct;
  }

  void checkLength(long length) {
    if (length != byteSize) {
      throw new IllegalArgumentException(
          "a "
              + name
              + " struct is "
              + byteSize
              + " bytes, the value has "
              + length
              + " (written with another layout? see docs/format/struct.md, Versioning)");
    }
  }

  // ---------------------------------------------------------------- fields

  /** The {@code byte} field at {@code path} (a member name, then names inside nested structs). */
  public StructField.OfByte byteField(String... path) {
    return new StructField.OfByte(handle(path, byte.class));
  }

  public StructField.OfShort shortField(String... path) {
    return new StructField.OfShort(handle(path, short.class));
  }

  public StructField.OfInt intField(String... path) {
    return new StructField.OfInt(handle(path, int.class));
  }

  public StructField.OfLong longField(String... path) {
    return new StructField.OfLong(handle(path, long.class));
  }

  public StructField.OfFloat floatField(String... path) {
    return new StructField.OfFloat(handle(path, float.class));
  }

  public StructField.OfDouble doubleField(String... path) {
    return new StructField.OfDouble(handle(path, double.class));
  }

  /** The fixed-size byte array at {@code path}: a sequence layout of bytes. */
  public StructField.OfBytes bytesField(String... path) {
    return new StructField.OfBytes(String.join(".", path), offset(path), byteSequence(path));
  }

  /** The fixed-size byte array at {@code path} read as UTF-8, padded with NUL bytes. */
  public StructField.OfString stringField(String... path) {
    return new StructField.OfString(String.join(".", path), offset(path), byteSequence(path));
  }

  private VarHandle handle(String[] path, Class<?> carrier) {
    MemoryLayout field = select(path);
    if (!(field instanceof ValueLayout value) || value.carrier() != carrier) {
      throw new IllegalArgumentException(
          name + "." + String.join(".", path) + " is " + field + ", not a " + carrier);
    }
    return access.varHandle(elements(path));
  }

  private int byteSequence(String[] path) {
    MemoryLayout field = select(path);
    if (!(field instanceof SequenceLayout sequence)
        || !(sequence.elementLayout() instanceof ValueLayout.OfByte)) {
      throw new IllegalArgumentException(
          name + "." + String.join(".", path) + " is " + field + ", not a sequence of bytes");
    }
    return (int) sequence.byteSize();
  }

  private long offset(String[] path) {
    return access.byteOffset(elements(path));
  }

  private MemoryLayout select(String[] path) {
    if (path.length == 0) {
      throw new IllegalArgumentException("a field needs a name");
    }
    try {
      return access.select(elements(path));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          name
              + " has no field "
              + String.join(".", path)
              + "; its fields are "
              + memberNames(access),
          e);
    }
  }

  private static PathElement[] elements(String[] path) {
    return Arrays.stream(path).map(PathElement::groupElement).toArray(PathElement[]::new);
  }

  private static String memberNames(GroupLayout group) {
    return group.memberLayouts().stream()
        .flatMap(member -> member.name().stream())
        .collect(Collectors.joining(", "));
  }

  // ---------------------------------------------------------------- the access layout

  /** {@code layout} with every value little-endian and unaligned; see the class notes. */
  private static MemoryLayout accessLayout(MemoryLayout layout, String where) {
    String here = where + layout.name().map(n -> (where.isEmpty() ? "" : ".") + n).orElse("");
    MemoryLayout copy =
        switch (layout) {
          case AddressLayout address ->
              throw new IllegalArgumentException(
                  "struct field "
                      + here
                      + " is an address; a struct is stored and shared, where an address"
                      + " means nothing: store an offset or an id instead");
          case ValueLayout value -> {
            if (value.order() == ByteOrder.BIG_ENDIAN && ByteOrder.nativeOrder() != value.order()) {
              throw new IllegalArgumentException(
                  "struct field "
                      + here
                      + " is big-endian; struct fields are stored little-endian"
                      + " (docs/format/struct.md): declare it in native order, e.g. JAVA_LONG");
            }
            yield value.withOrder(ByteOrder.LITTLE_ENDIAN).withByteAlignment(1);
          }
          case StructLayout struct -> MemoryLayout.structLayout(members(struct, here));
          case UnionLayout union -> MemoryLayout.unionLayout(members(union, here));
          case SequenceLayout sequence ->
              MemoryLayout.sequenceLayout(
                  sequence.elementCount(), accessLayout(sequence.elementLayout(), here + "[]"));
          case PaddingLayout padding -> padding;
        };
    return layout.name().map(copy::withName).orElse(copy);
  }

  private static MemoryLayout[] members(GroupLayout group, String where) {
    return group.memberLayouts().stream()
        .map(member -> accessLayout(member, where))
        .toArray(MemoryLayout[]::new);
  }

  @Override
  public String toString() {
    return "StructType[" + name + ", " + byteSize + " bytes, " + layout + "]";
  }
}
