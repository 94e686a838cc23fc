package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.CellarHealth;
import dev.cellar.CellarStats;
import dev.cellar.ChangeStream;
import dev.cellar.Codec;
import dev.cellar.Cursor;
import dev.cellar.DurabilityListener;
import dev.cellar.Entry;
import dev.cellar.LimitExceededException;
import dev.cellar.RecoveryReport;
import dev.cellar.ScanPage;
import dev.cellar.StoreSnapshot;
import dev.cellar.TypedMap;
import dev.cellar.ValueSink;
import dev.cellar.WriteBatch;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * What the commands of one {@code EXEC} see as the store: the store's committed state with the
 * transaction's own writes laid over it, which nobody else sees until {@link #commit} writes them
 * as one atomic unit ({@link Cellar#write(WriteBatch)}). So a crash never leaves half a
 * transaction, and no reader sees part of one.
 *
 * <h2>Design</h2>
 *
 * Commands reach the store only through {@link ServerContext#store()}, which returns this view on
 * the thread running the {@code EXEC}: the command code is the same inside a transaction and out.
 * Reads of a key the transaction wrote answer from its pending write (with its expiry); every other
 * read goes to the store. Writes are kept on the heap until commit, so their bytes are bounded
 * ({@link #budget}, what one atomic unit may hold): a transaction that would write more fails its
 * command with an error, and then its commit too, writing nothing.
 *
 * <p>Scans pass the store's pages through, with written keys shown as the transaction has them, and
 * add the keys the transaction created on the last page. Counts add the transaction's creations and
 * subtract its deletions. Maintenance calls (checkpoint, compaction, snapshots, change streams) are
 * the store's own.
 *
 * <p>Used by the one thread that runs the transaction.
 */
final class TransactionView implements Cellar {
  private final Cellar store;
  private final long budget;

  /**
   * The transaction's writes of plain keys and headers by key, in first-write order; a null value
   * is a delete.
   */
  private final Map<ByteBuffer, Pending> writes = new LinkedHashMap<>();

  /** Its writes of elements, likewise (a keyspace of its own: the same bytes are another key). */
  private final Map<ByteBuffer, Pending> elements = new LinkedHashMap<>();

  private long bytes;
  private boolean overBudget;

  /**
   * @param header whether the value is a header ({@link WriteBatch#putHeader})
   */
  private record Pending(byte[] key, byte[] value, long expireAt, boolean header) {
    boolean liveAt(long now) {
      return value != null && (expireAt == NO_EXPIRY || expireAt > now);
    }

    /** Live as a plain value: what plain reads see. */
    boolean plainAt(long now) {
      return !header && liveAt(now);
    }
  }

  /**
   * @param budget the most bytes of keys and values the transaction may write
   */
  TransactionView(Cellar store, long budget) {
    this.store = store;
    this.budget = budget;
  }

  /**
   * Writes everything the transaction wrote as one atomic unit; returns whether it wrote anything.
   *
   * @throws LimitExceededException if it wrote more than its budget (nothing is written)
   */
  boolean commit() {
    if (overBudget) {
      throw new LimitExceededException(
          "the transaction writes more than " + budget + " bytes; nothing of it was applied");
    }
    if (writes.isEmpty() && elements.isEmpty()) {
      return false;
    }
    if (writes.size() == 1 && elements.isEmpty() && !writes.values().iterator().next().header) {
      // One record is atomic by itself: no unit to build (the common script, INCR in EVAL).
      Pending p = writes.values().iterator().next();
      if (p.value == null) {
        store.delete(p.key);
      } else {
        store.putWithExpiry(p.key, p.value, p.expireAt);
      }
      return true;
    }
    WriteBatch batch = new WriteBatch();
    for (Pending p : writes.values()) {
      if (p.value == null) {
        batch.delete(p.key);
      } else if (p.header) {
        batch.putHeader(p.key, p.value, p.expireAt);
      } else {
        batch.put(p.key, p.value, p.expireAt);
      }
    }
    for (Pending p : elements.values()) {
      if (p.value == null) {
        batch.deleteElement(p.key);
      } else {
        batch.putElement(p.key, p.value);
      }
    }
    store.write(batch);
    return true;
  }

  private Pending pending(byte[] key) {
    return writes.isEmpty() ? null : writes.get(ByteBuffer.wrap(key));
  }

  private Pending pending(MemorySegment source, long offset, long length) {
    if (writes.isEmpty()) {
      return null;
    }
    return pending(source.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
  }

  private void record(byte[] key, byte[] value, long expireAt) {
    record(writes, key, value, expireAt, false);
  }

  private void record(
      Map<ByteBuffer, Pending> into, byte[] key, byte[] value, long expireAt, boolean header) {
    if (value != null && expireAt != NO_EXPIRY && expireAt <= System.currentTimeMillis()) {
      value = null; // an expiry in the past deletes, as the store's put does
    }
    Pending before = into.put(ByteBuffer.wrap(key), new Pending(key, value, expireAt, header));
    bytes += key.length + (value == null ? 0 : value.length);
    if (before != null) {
      bytes -= before.key.length + (before.value == null ? 0 : before.value.length);
    }
    if (bytes > budget) {
      overBudget = true;
      throw new LimitExceededException(
          "the transaction writes more than "
              + budget
              + " bytes (one atomic unit of the log); nothing of it will be applied");
    }
  }

  private static byte[] bytesOf(MemorySegment source, long offset, long length) {
    return source.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
  }

  // ---------------------------------------------------------------- writes

  @Override
  public void put(byte[] key, byte[] value) {
    record(key.clone(), value.clone(), NO_EXPIRY);
  }

  @Override
  public void put(byte[] key, byte[] value, Duration ttl) {
    putWithExpiry(key, value, System.currentTimeMillis() + ttl.toMillis());
  }

  @Override
  public void putWithExpiry(byte[] key, byte[] value, long expireAtEpochMillis) {
    record(key.clone(), value.clone(), expireAtEpochMillis);
  }

  @Override
  public void put(MemorySegment key, MemorySegment value, long expireAtEpochMillis) {
    record(
        key.toArray(ValueLayout.JAVA_BYTE),
        value.toArray(ValueLayout.JAVA_BYTE),
        expireAtEpochMillis);
  }

  @Override
  public void put(
      MemorySegment keySource,
      long keyOffset,
      long keyLength,
      MemorySegment valueSource,
      long valueOffset,
      long valueLength,
      long expireAtEpochMillis) {
    record(
        bytesOf(keySource, keyOffset, keyLength),
        bytesOf(valueSource, valueOffset, valueLength),
        expireAtEpochMillis);
  }

  @Override
  public boolean delete(byte[] key) {
    boolean existed = contains(key);
    if (existed || pending(key) != null) {
      record(key.clone(), null, NO_EXPIRY);
    }
    return existed;
  }

  @Override
  public boolean delete(MemorySegment key) {
    return delete(key.toArray(ValueLayout.JAVA_BYTE));
  }

  @Override
  public void write(WriteBatch batch) {
    for (int i = 0; i < batch.size(); i++) {
      byte[] value = batch.value(i) == null ? null : batch.value(i).clone();
      int kind = batch.kind(i);
      record(
          kind == WriteBatch.ELEMENT ? elements : writes,
          batch.key(i).clone(),
          value,
          batch.expiry(i),
          kind == WriteBatch.HEADER);
    }
  }

  @Override
  public boolean deleteIfExpired(byte[] key) {
    return pending(key) == null && store.deleteIfExpired(key);
  }

  // ---------------------------------------------------------------- reads

  @Override
  public byte[] get(byte[] key) {
    Pending p = pending(key);
    if (p == null) {
      return store.get(key);
    }
    return p.plainAt(System.currentTimeMillis()) ? p.value.clone() : null;
  }

  @Override
  public <R> R read(byte[] key, Function<MemorySegment, R> reader) {
    Pending p = pending(key);
    if (p == null) {
      return store.read(key, reader);
    }
    return p.plainAt(System.currentTimeMillis())
        ? reader.apply(MemorySegment.ofArray(p.value).asReadOnly())
        : null;
  }

  @Override
  public <R> R read(MemorySegment key, Function<MemorySegment, R> reader) {
    return read(key.toArray(ValueLayout.JAVA_BYTE), reader);
  }

  @Override
  public boolean read(MemorySegment keySource, long keyOffset, long keyLength, ValueSink sink) {
    Pending p = pending(keySource, keyOffset, keyLength);
    if (p == null) {
      return store.read(keySource, keyOffset, keyLength, sink);
    }
    if (!p.plainAt(System.currentTimeMillis())) {
      return false;
    }
    sink.accept(MemorySegment.ofArray(p.value).asReadOnly(), 0, p.value.length);
    return true;
  }

  @Override
  public long expiryOf(byte[] key) {
    Pending p = pending(key);
    if (p == null) {
      return store.expiryOf(key);
    }
    return p.liveAt(System.currentTimeMillis()) ? p.expireAt : ABSENT;
  }

  @Override
  public long expiryOf(MemorySegment key) {
    return expiryOf(key.toArray(ValueLayout.JAVA_BYTE));
  }

  @Override
  public boolean contains(byte[] key) {
    return expiryOf(key) != ABSENT;
  }

  @Override
  public long version(byte[] key) {
    return store.version(key);
  }

  @Override
  public <R> R readHeader(MemorySegment key, Function<MemorySegment, R> reader) {
    Pending p = pending(key.toArray(ValueLayout.JAVA_BYTE));
    if (p == null) {
      return store.readHeader(key, reader);
    }
    return p.header && p.liveAt(System.currentTimeMillis())
        ? reader.apply(MemorySegment.ofArray(p.value).asReadOnly())
        : null;
  }

  @Override
  public <R> R readHeader(MemorySegment key, HeaderReader<R> reader) {
    // One lookup of the store for a key the transaction has not written (the default is two).
    Pending p = writes.isEmpty() ? null : pending(key.toArray(ValueLayout.JAVA_BYTE));
    if (p == null) {
      return store.readHeader(key, reader);
    }
    return p.header && p.liveAt(System.currentTimeMillis())
        ? reader.read(MemorySegment.ofArray(p.value).asReadOnly(), p.expireAt)
        : null;
  }

  private Pending pendingElement(byte[] key) {
    return elements.isEmpty() ? null : elements.get(ByteBuffer.wrap(key));
  }

  @Override
  public <R> R readElement(MemorySegment key, Function<MemorySegment, R> reader) {
    Pending p = pendingElement(key.toArray(ValueLayout.JAVA_BYTE));
    if (p == null) {
      return store.readElement(key, reader);
    }
    return p.value == null ? null : reader.apply(MemorySegment.ofArray(p.value).asReadOnly());
  }

  @Override
  public boolean readElement(
      MemorySegment keySource, long keyOffset, long keyLength, ValueSink sink) {
    Pending p =
        elements.isEmpty() ? null : pendingElement(bytesOf(keySource, keyOffset, keyLength));
    if (p == null) {
      return store.readElement(keySource, keyOffset, keyLength, sink);
    }
    if (p.value == null) {
      return false;
    }
    sink.accept(MemorySegment.ofArray(p.value).asReadOnly(), 0, p.value.length);
    return true;
  }

  /** The store's page: elements are only swept by the server, never inside a transaction. */
  @Override
  public ScanPage scanElements(long cursor, byte[] prefix, int count) {
    return store.scanElements(cursor, prefix, count);
  }

  @Override
  public long elementCount() {
    return store.elementCount();
  }

  @Override
  public long size() {
    long size = store.size();
    long now = System.currentTimeMillis();
    for (Pending p : writes.values()) {
      boolean before = store.contains(p.key);
      boolean after = p.liveAt(now);
      size += (after ? 1 : 0) - (before ? 1 : 0);
    }
    return Math.max(0, size);
  }

  @Override
  public byte[] randomKey() {
    long now = System.currentTimeMillis();
    for (int attempt = 0; attempt < 16; attempt++) {
      byte[] key = store.randomKey();
      if (key == null) {
        break;
      }
      Pending p = pending(key);
      if (p == null || p.liveAt(now)) {
        return key;
      }
    }
    for (Pending p : writes.values()) {
      if (p.liveAt(now)) {
        return p.key.clone();
      }
    }
    return store.randomKey();
  }

  /** The keys the transaction created (live in it, absent from the store) under {@code prefix}. */
  private List<byte[]> created(byte[] prefix) {
    List<byte[]> out = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (Pending p : writes.values()) {
      if (p.liveAt(now) && startsWith(p.key, prefix) && !store.contains(p.key)) {
        out.add(p.key.clone());
      }
    }
    return out;
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  @Override
  public ScanPage scanPage(long cursor, byte[] prefix, int count) {
    ScanPage page = store.scanPage(cursor, prefix, count);
    if (writes.isEmpty()) {
      return page;
    }
    long now = System.currentTimeMillis();
    List<byte[]> keys = new ArrayList<>();
    for (byte[] key : page.keys()) {
      Pending p = pending(key);
      if (p == null || p.liveAt(now)) {
        keys.add(key);
      }
    }
    if (page.complete()) {
      keys.addAll(created(prefix));
    }
    return new ScanPage(page.nextCursor(), keys);
  }

  @Override
  public ScanPage expiredKeys(long cursor, int count) {
    return store.expiredKeys(cursor, count);
  }

  @Override
  public Cursor scan(byte[] prefix) {
    Cursor base = store.scan(prefix);
    if (writes.isEmpty()) {
      return base;
    }
    Iterator<byte[]> extra = created(prefix).iterator();
    long now = System.currentTimeMillis();
    return new Cursor() {
      private Entry next;

      @Override
      public boolean hasNext() {
        while (next == null && base.hasNext()) {
          Entry e = base.next();
          Pending p = pending(e.key());
          if (p == null) {
            next = e;
          } else if (p.plainAt(now)) {
            next = new Entry(e.key(), p.value.clone(), p.expireAt);
          }
        }
        while (next == null && extra.hasNext()) {
          Pending p = pending(extra.next());
          if (!p.header) {
            next = new Entry(p.key.clone(), p.value.clone(), p.expireAt);
          }
        }
        return next != null;
      }

      @Override
      public Entry next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Entry e = next;
        next = null;
        return e;
      }

      @Override
      public void close() {
        base.close();
      }
    };
  }

  @Override
  public long prefetch(MemorySegment source, long[] offsets, long[] lengths, int count) {
    return store.prefetch(source, offsets, lengths, count);
  }

  // ---------------------------------------------------------------- the store's own

  @Override
  public void sync() {
    store.sync();
  }

  @Override
  public void whenDurable(DurabilityListener listener) {
    store.whenDurable(listener);
  }

  @Override
  public boolean durableOnReturn() {
    return store.durableOnReturn();
  }

  @Override
  public CellarHealth health() {
    return store.health();
  }

  @Override
  public void checkpoint() {
    store.checkpoint();
  }

  @Override
  public StoreSnapshot snapshot(Path directory) {
    return store.snapshot(directory);
  }

  @Override
  public long compact() {
    return store.compact();
  }

  @Override
  public ChangeStream changes(long fromSeq) {
    return store.changes(fromSeq);
  }

  @Override
  public long lastSeq() {
    return store.lastSeq();
  }

  @Override
  public long appendedBytes() {
    return store.appendedBytes();
  }

  @Override
  public CellarStats stats() {
    return store.stats();
  }

  @Override
  public RecoveryReport recoveryReport() {
    return store.recoveryReport();
  }

  @Override
  public <K, V> TypedMap<K, V> map(String name, Codec<K> keyCodec, Codec<V> valueCodec) {
    throw new UnsupportedOperationException("typed maps are not part of a server transaction");
  }

  @Override
  public void close() {
    throw new UnsupportedOperationException("a transaction does not close the store");
  }
}
