package dev.cellar;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * A typed view over the keys of a {@link Cellar} that start with {@code name + ":"}. Keys and
 * values go through the codecs given to {@link Cellar#map}; the view holds no state of its own. The
 * same view serves a remote store through any {@link TypedMapStore} (Cellar's Java client is one),
 * with the same keys and the same codecs.
 */
public final class TypedMap<K, V> {
  private final TypedMapStore cellar;
  private final byte[] prefix;
  private final Codec<K> keyCodec;
  private final Codec<V> valueCodec;

  TypedMap(TypedMapStore cellar, byte[] prefix, Codec<K> keyCodec, Codec<V> valueCodec) {
    this.cellar = cellar;
    this.prefix = prefix.clone();
    this.keyCodec = keyCodec;
    this.valueCodec = valueCodec;
  }

  /** Creates the view for {@code name}; used by {@link Cellar#map} implementations. */
  public static <K, V> TypedMap<K, V> of(
      Cellar cellar, String name, Codec<K> keyCodec, Codec<V> valueCodec) {
    return of(new CellarStore(cellar), name, keyCodec, valueCodec);
  }

  /** Creates the view for {@code name} over another store, such as a client of a server. */
  public static <K, V> TypedMap<K, V> of(
      TypedMapStore cellar, String name, Codec<K> keyCodec, Codec<V> valueCodec) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("a map needs a non-empty name");
    }
    return new TypedMap<>(cellar, Codecs.utf8().encode(name + ":"), keyCodec, valueCodec);
  }

  public void put(K key, V value) {
    cellar.put(rawKey(key), valueCodec.encode(value));
  }

  public void put(K key, V value, Duration ttl) {
    cellar.put(rawKey(key), valueCodec.encode(value), ttl);
  }

  /** The value, or null when absent or expired. */
  public V get(K key) {
    return cellar.read(rawKey(key), valueCodec::decode);
  }

  public boolean delete(K key) {
    return cellar.delete(rawKey(key));
  }

  public boolean containsKey(K key) {
    return cellar.contains(rawKey(key));
  }

  /** Iterates this map's entries; close the iteration when done. */
  public TypedCursor<K, V> scan() {
    return new TypedCursor<>(cellar.scan(prefix), prefix.length, keyCodec, valueCodec);
  }

  private byte[] rawKey(K key) {
    byte[] encoded = keyCodec.encode(key);
    byte[] raw = new byte[prefix.length + encoded.length];
    System.arraycopy(prefix, 0, raw, 0, prefix.length);
    System.arraycopy(encoded, 0, raw, prefix.length, encoded.length);
    return raw;
  }

  /** The engine as a typed map's store: each call is the {@link Cellar} method it names. */
  private record CellarStore(Cellar cellar) implements TypedMapStore {
    @Override
    public void put(byte[] key, byte[] value) {
      cellar.put(key, value);
    }

    @Override
    public void put(byte[] key, byte[] value, Duration ttl) {
      cellar.put(key, value, ttl);
    }

    @Override
    public <R> R read(byte[] key, Function<MemorySegment, R> reader) {
      return cellar.read(key, reader);
    }

    @Override
    public boolean delete(byte[] key) {
      return cellar.delete(key);
    }

    @Override
    public boolean contains(byte[] key) {
      return cellar.contains(key);
    }

    @Override
    public Cursor scan(byte[] prefix) {
      return cellar.scan(prefix);
    }
  }

  /** A decoding iteration over a typed map. */
  public static final class TypedCursor<K, V> implements Iterator<Map.Entry<K, V>>, AutoCloseable {
    private final Cursor raw;
    private final int prefixLength;
    private final Codec<K> keyCodec;
    private final Codec<V> valueCodec;

    TypedCursor(Cursor raw, int prefixLength, Codec<K> keyCodec, Codec<V> valueCodec) {
      this.raw = raw;
      this.prefixLength = prefixLength;
      this.keyCodec = keyCodec;
      this.valueCodec = valueCodec;
    }

    @Override
    public boolean hasNext() {
      return raw.hasNext();
    }

    @Override
    public Map.Entry<K, V> next() {
      if (!raw.hasNext()) {
        throw new NoSuchElementException();
      }
      Entry entry = raw.next();
      var keyBytes = java.lang.foreign.MemorySegment.ofArray(entry.key());
      K key = keyCodec.decode(keyBytes.asSlice(prefixLength));
      V value = valueCodec.decode(java.lang.foreign.MemorySegment.ofArray(entry.value()));
      return Map.entry(key, value);
    }

    @Override
    public void close() {
      raw.close();
    }
  }
}
