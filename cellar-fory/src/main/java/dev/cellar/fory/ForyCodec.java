package dev.cellar.fory;

import dev.cellar.CellarException;
import dev.cellar.Codec;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.fory.Fory;
import org.apache.fory.ThreadSafeFory;
import org.apache.fory.config.ForyBuilder;
import org.apache.fory.exception.ForyException;
import org.apache.fory.memory.MemoryBuffer;

/**
 * A {@link Codec} that stores objects in Apache Fory's Java-native binary format.
 *
 * <pre>{@code
 * record User(String name, String email, int age, List<Long> friendIds) {}
 *
 * try (Cellar db = Cellar.open(dir)) {
 *   TypedMap<String, User> users = db.map("users", Codecs.utf8(), ForyCodec.of(User.class));
 *   users.put("ada", new User("Ada", "ada@example.com", 36, List.of(2L, 3L)));
 * }
 * }</pre>
 *
 * <p>Instances are immutable and thread-safe; make one per value type and keep it, since each
 * builds a pool of Fory instances and generates its serializers up front (about a second in a fresh
 * JVM, less once Fory's own classes are warm).
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Format.</b> Fory's native mode ({@code withXlang(false)}): Cellar values are written and
 * read by Java, and native mode is Fory's fastest and covers the most of Java (records, JDK
 * collections, {@code Externalizable}). Fory's cross-language mode, its default since 1.x, would
 * buy portability to other languages that Cellar's Java API does not offer. Compatible mode (Fory's
 * default in native mode) is kept by default: a store outlives the class that wrote it, so a reader
 * whose class has since gained or lost fields must still read the old values. It costs bytes, as
 * the field names travel with each value (the tests' four-field user takes 114 bytes, 76 without
 * evolution, 57 without evolution and with a numeric id), but measured no slower. {@link
 * Builder#schemaConsistent()} trades it away for those who never change a stored class without
 * rewriting the data.
 *
 * <p><b>Registration.</b> Required, as Fory recommends: stored bytes can come from a file somebody
 * else wrote, and an unregistered class in them must not get instantiated. Classes are registered
 * by <em>name</em> by default, not by Fory's automatic ids, because automatic ids follow the order
 * of registration: every stored value would then depend on the order of a list in the source, and
 * reordering it would silently misread the store. {@link Builder#register(Class, int)} takes
 * explicit ids for the smallest payloads, when the caller keeps that mapping stable.
 *
 * <p><b>Threads.</b> A {@code Fory} is not thread-safe, and Cellar calls codecs from any thread:
 * server event loops, application threads, virtual threads. The codec holds a fixed pool of
 * instances, Fory's {@code ThreadPoolFory}, which its documentation makes the default choice and
 * which, unlike its thread-local alternative, does not build a Fory per virtual thread. A borrow
 * and return cost about 10-20 ns per call here.
 *
 * <p><b>Decoding.</b> {@link #decode} is handed a view of the value inside a log segment. {@link
 * SegmentInput} copies it to the heap in one bulk copy before Fory reads it: Fory could read the
 * native memory in place, but on JDK 25 that measured slower than the copy (figures there). A
 * writable heap segment is read in place. Everything Fory decodes is copied into new objects except
 * {@link java.nio.ByteBuffer}s, which Fory decodes as views of its input: views that could outlive
 * the caller's bytes. {@link OwnedByteBufferSerializer} replaces Fory's for every buffer class,
 * with the same bytes on the wire, and copies instead.
 *
 * <p><b>References.</b> Reference tracking is off by default: stored values are usually trees, and
 * tracking costs a map operation per object. Values with shared or cyclic references need {@link
 * Builder#trackReferences(boolean) trackReferences(true)}: untracked, a shared object is written
 * once per reference and read back as copies, and a cycle fails to encode.
 *
 * @param <T> the type encoded
 */
public final class ForyCodec<T> implements Codec<T> {
  private final Class<T> type;
  private final ThreadSafeFory fory;

  private ForyCodec(Class<T> type, ThreadSafeFory fory) {
    this.type = type;
    this.fory = fory;
  }

  /** A codec for {@code type} with the default settings; {@code type} is registered by name. */
  public static <T> ForyCodec<T> of(Class<T> type) {
    return builder(type).build();
  }

  /**
   * A codec for {@code type} whose values also contain instances of {@code others} (nested classes,
   * enums, subclasses); each is registered by name.
   */
  public static <T> ForyCodec<T> of(Class<T> type, Class<?>... others) {
    Builder<T> builder = builder(type);
    for (Class<?> other : others) {
      builder.register(other);
    }
    return builder.build();
  }

  /** Starts a codec for {@code type} with the default settings, which the builder can change. */
  public static <T> Builder<T> builder(Class<T> type) {
    return new Builder<>(type);
  }

  /** The class this codec encodes. */
  public Class<T> type() {
    return type;
  }

  @Override
  public byte[] encode(T value) {
    if (value == null) {
      // Fory would write a null marker, which would read back as null: the same as "absent".
      throw new CellarException(
          CellarException.Category.INVALID_ARGUMENT,
          "ForyCodec<" + type.getName() + "> cannot store null; delete the key instead");
    }
    try {
      return fory.serialize(value);
    } catch (ForyException | IllegalArgumentException | IllegalStateException e) {
      String why = String.valueOf(e.getMessage());
      String hint =
          why.contains("not registered")
              ? " (register every class found inside values: ForyCodec.of("
                  + type.getSimpleName()
                  + ".class, Other.class...))"
              : "";
      throw new CellarException(
          CellarException.Category.INVALID_ARGUMENT,
          "cannot encode a " + value.getClass().getName() + " with " + this + ": " + why + hint,
          e);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads without telling Fory the expected type and checks the result instead: told the type,
   * Fory's compatible mode reads another class's value field by field into it and returns an empty
   * object, where the caller should hear that the codec does not fit the data.
   */
  @Override
  public T decode(MemorySegment bytes) {
    MemoryBuffer input = SegmentInput.of(bytes);
    Object value;
    try {
      value = fory.deserialize(input);
    } catch (RuntimeException e) {
      // Bytes that are not what this codec wrote can fail anywhere inside Fory, in any way.
      throw undecodable(bytes, e.toString(), e);
    }
    if (!type.isInstance(value)) {
      // Fory reads a value of a class this codec did not register into a placeholder, not an error.
      String found = value == null ? "null" : "a " + value.getClass().getName();
      throw undecodable(bytes, "found " + found, null);
    }
    return type.cast(value);
  }

  private CellarException undecodable(MemorySegment bytes, String why, Throwable cause) {
    return new CellarException(
        CellarException.Category.INVALID_ARGUMENT,
        "cannot decode "
            + bytes.byteSize()
            + " bytes as "
            + type.getName()
            + " with ForyCodec: "
            + why
            + " (was the value written by another codec, or with other registrations?)",
        cause);
  }

  @Override
  public String toString() {
    return "ForyCodec<" + type.getName() + ">";
  }

  /**
   * Settings for a {@link ForyCodec}. Registrations and settings are part of the stored format:
   * readers must use the same ones as the writers of the data they read.
   *
   * @param <T> the type encoded
   */
  public static final class Builder<T> {
    private final Class<T> type;

    /** By class, in registration order; the root type is registered by name unless overridden. */
    private final Map<Class<?>, Registration> registrations = new LinkedHashMap<>();

    private boolean compatible = true;
    private boolean trackReferences;

    /** 0 for Fory's default pool: four instances per available processor. */
    private int poolSize;

    private Builder(Class<T> type) {
      this.type = Objects.requireNonNull(type, "type");
      register(type);
    }

    /** Registers {@code other} under its class name; needed for every class inside the values. */
    public Builder<T> register(Class<?> other) {
      return register(other, Objects.requireNonNull(other, "class").getName());
    }

    /**
     * Registers {@code other} (or the root type itself) under {@code name}: a class renamed since
     * it was stored keeps reading its old values under its old name.
     */
    public Builder<T> register(Class<?> other, String name) {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("a registration name must not be empty");
      }
      registrations.put(Objects.requireNonNull(other, "class"), new Registration(name, -1));
      return this;
    }

    /**
     * Registers {@code other} (or the root type itself) under an explicit numeric id: smaller
     * values than by name, but the id must stay bound to this class for as long as data lives.
     */
    public Builder<T> register(Class<?> other, int id) {
      if (id < 0) {
        throw new IllegalArgumentException("a Fory type id must be non-negative, got " + id);
      }
      registrations.put(Objects.requireNonNull(other, "class"), new Registration(null, id));
      return this;
    }

    /**
     * Drops schema evolution for speed and size: values can then only be read by exactly the class
     * definitions that wrote them. A field added later makes old values unreadable.
     */
    public Builder<T> schemaConsistent() {
      this.compatible = false;
      return this;
    }

    /** Whether to preserve shared and cyclic references inside a value (default: no). */
    public Builder<T> trackReferences(boolean track) {
      this.trackReferences = track;
      return this;
    }

    /**
     * How many Fory instances the codec pools: the number of threads that can encode or decode at
     * once before others wait. Defaults to Fory's choice, four per available processor.
     */
    public Builder<T> poolSize(int size) {
      if (size < 1) {
        throw new IllegalArgumentException("a Fory pool needs at least 1 instance, got " + size);
      }
      this.poolSize = size;
      return this;
    }

    public ForyCodec<T> build() {
      ForyBuilder settings =
          Fory.builder()
              .withXlang(false)
              .requireClassRegistration(true)
              .withCompatible(compatible)
              .withRefTracking(trackReferences)
              .withSerializerFactory(OwnedByteBufferSerializer.FACTORY);
      ThreadSafeFory fory =
          poolSize == 0
              ? settings.buildThreadSafeFory()
              : settings.buildThreadSafeForyPool(poolSize);
      registrations.forEach((cls, registration) -> registration.applyTo(fory, cls));
      // Generate the registered classes' serializers now, so that the store's first put or get
      // does not stall for them; Fory's async compilation would instead leave a compiler thread
      // that complains when the JVM exits under it.
      fory.ensureSerializersCompiled();
      return new ForyCodec<>(type, fory);
    }
  }

  /** How one class is known in stored values: by name, or by explicit id when name is null. */
  private record Registration(String name, int id) {
    void applyTo(ThreadSafeFory fory, Class<?> cls) {
      if (name != null) {
        fory.register(cls, name);
      } else {
        fory.register(cls, id);
      }
    }
  }
}
