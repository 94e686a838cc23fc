package dev.cellar;

import dev.cellar.store.Store;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;

/**
 * An embedded, persistent key-value store whose data lives below the Java heap: records in
 * memory-mapped log segments, the index in off-heap memory.
 *
 * <p>Keys and values are byte strings. All methods are thread-safe. A store directory can be open
 * in one {@code Cellar} at a time (enforced with a file lock, across processes too). Every method
 * throws {@link StoreClosedException} after {@link #close()}.
 *
 * <pre>{@code
 * try (Cellar db = Cellar.open(Path.of("data"), CellarOptions.defaults().fsync(Fsync.EVERYSEC))) {
 *     db.put(key, value);
 *     byte[] v = db.get(key);
 * }
 * }</pre>
 */
public interface Cellar extends AutoCloseable {

  /** Opens (creating if needed) the store in {@code directory} with default options. */
  static Cellar open(Path directory) {
    return open(directory, CellarOptions.defaults());
  }

  /** Opens (creating if needed) the store in {@code directory}. */
  static Cellar open(Path directory, CellarOptions options) {
    return Store.open(directory, options);
  }

  /** Stores {@code value} under {@code key}, replacing any earlier value and expiry. */
  void put(byte[] key, byte[] value);

  /** Stores {@code value} under {@code key}; it disappears once {@code ttl} has elapsed. */
  void put(byte[] key, byte[] value, Duration ttl);

  /**
   * Stores a value with an absolute expiry in epoch milliseconds ({@link #NO_EXPIRY} for none). A
   * time in the past stores nothing visible: the key reads as absent.
   */
  void putWithExpiry(byte[] key, byte[] value, long expireAtEpochMillis);

  /**
   * Stores the bytes of {@code value} (copied once, into the log) under the bytes of {@code key}.
   */
  void put(MemorySegment key, MemorySegment value, long expireAtEpochMillis);

  /**
   * {@link #put(MemorySegment, MemorySegment, long)} with the key and the value given as ranges of
   * larger segments: the key is the {@code keyLength} bytes of {@code keySource} from {@code
   * keyOffset}, the value likewise. For a caller that parses requests out of a buffer of its own,
   * as the server does: no slice object is made per call.
   */
  void put(
      MemorySegment keySource,
      long keyOffset,
      long keyLength,
      MemorySegment valueSource,
      long valueOffset,
      long valueLength,
      long expireAtEpochMillis);

  /** Returns a copy of the value, or {@code null} when the key is absent or expired. */
  byte[] get(byte[] key);

  /**
   * Zero-copy read: calls {@code reader} with a read-only view of the value in the log and returns
   * its result, or returns {@code null} without calling it when the key is absent or expired. The
   * view is valid only during the call; do not keep it. If compaction moves the value while the
   * reader runs, the reader is called again on the value's new place.
   */
  <R> R read(byte[] key, Function<MemorySegment, R> reader);

  /**
   * {@link #read(byte[], Function)} with the key given as the bytes of a segment (heap or native),
   * so a caller that parsed the key out of a buffer need not copy it into an array first.
   */
  <R> R read(MemorySegment key, Function<MemorySegment, R> reader);

  /**
   * Zero-copy read that allocates nothing: calls {@code sink} with the range of the log that holds
   * the value of the key in {@code keySource[keyOffset, keyOffset + keyLength)} and returns true,
   * or returns false without calling it when the key is absent or expired. The range is valid only
   * during the call. If compaction moves the value while the sink runs, the sink is called again
   * with its new place, as with {@link #read(MemorySegment, Function)}.
   */
  boolean read(MemorySegment keySource, long keyOffset, long keyLength, ValueSink sink);

  /**
   * A hint that reads or writes of {@code count} keys follow, key {@code i} being the {@code
   * lengths[i]} bytes of {@code source} from {@code offsets[i]}: reads, for all of them at once,
   * the memory those operations will read first (the index slot, then the record it points at).
   * Each operation alone waits for its own cache misses in turn; a batch of prefetched keys has
   * them in flight together. Takes no lock, changes nothing, allocates nothing and never fails; a
   * key that is absent or moves meanwhile merely gains nothing.
   *
   * @return a digest of the words read, meaningless except that a caller who keeps it (in a field
   *     of its own) stops the compiler from discarding the reads as unused
   */
  default long prefetch(MemorySegment source, long[] offsets, long[] lengths, int count) {
    return 0;
  }

  // ---------------------------------------------------------------- batches

  /**
   * Reads many keys at once: element {@code i} of the result is a copy of the value of {@code
   * keys[i]}, or null when that key is absent or expired, as {@link #get(byte[])} would return.
   * Faster than a loop of gets for random keys: the batch's cache misses (the index slots, then the
   * records) are in flight together instead of one after another. Each key is read at some instant
   * during the call; the batch is not a snapshot.
   */
  default byte[][] getAll(byte[][] keys) {
    byte[][] values = new byte[keys.length][];
    for (int i = 0; i < keys.length; i++) {
      values[i] = get(keys[i]);
    }
    return values;
  }

  /** {@link #getAll(byte[][])} for a list: the values (null for an absent key) in its order. */
  default java.util.List<byte[]> getAll(java.util.List<byte[]> keys) {
    return java.util.Arrays.asList(getAll(keys.toArray(new byte[0][])));
  }

  /**
   * Zero-copy {@link #getAll(byte[][])} that allocates nothing per key: key {@code i} is the {@code
   * lengths[i]} bytes of {@code source} from {@code offsets[i]} (as {@link #prefetch} takes them),
   * and for each key in order {@code sink} is called with its value's range of the log, or told
   * that it is absent. The ranges are valid only during each call, as with {@link
   * #read(MemorySegment, long, long, ValueSink)}, and a value that compaction moves while the sink
   * runs is passed again from its new place.
   *
   * @return how many of the keys had a value
   */
  default int readAll(
      MemorySegment source, long[] offsets, long[] lengths, int count, BatchValueSink sink) {
    int found = 0;
    for (int i = 0; i < count; i++) {
      int index = i;
      if (read(source, offsets[i], lengths[i], (s, o, l) -> sink.accept(index, s, o, l))) {
        found++;
      } else {
        sink.absent(i);
      }
    }
    return found;
  }

  /**
   * Stores {@code values[i]} under {@code keys[i]} for every {@code i}, each expiring at {@code
   * expireAtEpochMillis} ({@link #NO_EXPIRY} for never; a time in the past deletes the keys, as
   * {@link #putWithExpiry} does). A key given twice ends with its last value.
   *
   * <p>Every key and value is checked against the limits before anything is written: one that is
   * too long, or null, fails the call with nothing written. The batch is not atomic otherwise: a
   * failure while writing (a full disk, a failed fsync) may leave some of its keys written and not
   * others, and a concurrent reader may see some before the others. Under {@link Fsync#ALWAYS} the
   * call waits once, for one group commit that covers the whole batch.
   *
   * @throws LimitExceededException if a key or value exceeds its limit (nothing is written)
   */
  default void putAll(byte[][] keys, byte[][] values, long expireAtEpochMillis) {
    long[] expiries = new long[keys.length];
    java.util.Arrays.fill(expiries, expireAtEpochMillis);
    putAll(keys, values, expiries);
  }

  /** {@link #putAll(byte[][], byte[][], long)} with an expiry of its own for each key. */
  default void putAll(byte[][] keys, byte[][] values, long[] expireAtEpochMillis) {
    if (keys.length != values.length || keys.length != expireAtEpochMillis.length) {
      throw new IllegalArgumentException(
          "putAll needs as many values and expiries as keys: "
              + keys.length
              + " keys, "
              + values.length
              + " values, "
              + expireAtEpochMillis.length
              + " expiries");
    }
    for (int i = 0; i < keys.length; i++) {
      putWithExpiry(keys[i], values[i], expireAtEpochMillis[i]);
    }
  }

  /**
   * {@link #putAll(byte[][], byte[][], long)} with keys and values given as ranges of one segment,
   * as a server holds them in its input buffer: key {@code i} is the {@code keyLengths[i]} bytes of
   * {@code source} from {@code keyOffsets[i]}, its value likewise. No object is made per key.
   */
  default void putAll(
      MemorySegment source,
      long[] keyOffsets,
      long[] keyLengths,
      long[] valueOffsets,
      long[] valueLengths,
      int count,
      long expireAtEpochMillis) {
    for (int i = 0; i < count; i++) {
      put(
          source,
          keyOffsets[i],
          keyLengths[i],
          source,
          valueOffsets[i],
          valueLengths[i],
          expireAtEpochMillis);
    }
  }

  /**
   * Applies every operation of {@code batch} as one atomic unit: its records go into the log as one
   * contiguous unit that recovery applies whole or not at all (docs/format/log.md, "Atomic units"),
   * and they reach the index under the write locks of all their keys at once, so no reader sees
   * some of them before the others. Under {@link Fsync#ALWAYS} it returns once the whole unit is
   * durable. Deletes of absent keys and puts whose expiry is past (which delete) write what single
   * calls would.
   *
   * @throws LimitExceededException if a key or value exceeds its limit, or the unit's records do
   *     not fit in one log segment; nothing is written
   */
  void write(WriteBatch batch);

  /**
   * The header stored under {@code key} ({@link WriteBatch#putHeader}), given to {@code reader} as
   * {@link #read(MemorySegment, Function)} gives a value; null without calling it when the key is
   * absent, expired, or holds a plain value. Plain reads treat a header as absent, while {@link
   * #contains}, {@link #expiryOf}, {@link #version}, {@link #delete}, scans and {@link #size()}
   * treat it as any key.
   */
  <R> R readHeader(MemorySegment key, Function<MemorySegment, R> reader);

  /** Receives a header's value and its key's expiry. */
  @FunctionalInterface
  interface HeaderReader<R> {
    /**
     * Called with the header's value (read-only, valid only during the call) and its expiry in
     * epoch milliseconds, {@link #NO_EXPIRY} for none.
     */
    R read(MemorySegment value, long expireAt);
  }

  /**
   * {@link #readHeader(MemorySegment, Function)}, giving the reader the key's expiry as well: one
   * lookup, where {@code readHeader} and {@link #expiryOf} are two (a collection command that
   * rewrites its header keeps the expiry it read).
   */
  default <R> R readHeader(MemorySegment key, HeaderReader<R> reader) {
    long expireAt = expiryOf(key);
    return expireAt == ABSENT ? null : readHeader(key, value -> reader.read(value, expireAt));
  }

  /** Receives a header's bytes in place, and its key's expiry. */
  @FunctionalInterface
  interface HeaderSink {
    /**
     * Called with the header's value at {@code source[offset, offset + length)} (read-only, valid
     * only during the call) and its expiry in epoch milliseconds, {@link #NO_EXPIRY} for none. The
     * sink must not read the store.
     */
    void accept(MemorySegment source, long offset, long length, long expireAt);
  }

  /**
   * {@link #readHeader(MemorySegment, HeaderReader)} for a key on the heap, through a sink that is
   * handed the header where it lies: returns whether the key holds a header (false without calling
   * the sink when it is absent, expired or a plain value). Allocates nothing, where the segments
   * over the key and the value cost a collection command four objects.
   */
  default boolean readHeader(byte[] key, HeaderSink sink) {
    return readHeader(
            MemorySegment.ofArray(key),
            (value, expireAt) -> {
              sink.accept(value, 0, value.byteSize(), expireAt);
              return Boolean.TRUE;
            })
        != null;
  }

  /**
   * The value of {@code key} in the keyspace of elements ({@link WriteBatch#putElement}), given to
   * {@code reader} as {@link #read(MemorySegment, Function)} does; null if it is absent.
   */
  <R> R readElement(MemorySegment key, Function<MemorySegment, R> reader);

  /** {@link #readElement(MemorySegment, Function)} through a sink, allocating nothing. */
  boolean readElement(MemorySegment keySource, long keyOffset, long keyLength, ValueSink sink);

  /**
   * A copy of the value of {@code key} in the keyspace of elements, or null if it is absent: {@link
   * #get(byte[])} for elements, whose copy is its only allocation (a collection command reads its
   * elements this way, one or more a command).
   */
  default byte[] getElement(byte[] key) {
    return readElement(
        MemorySegment.ofArray(key), v -> v.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
  }

  /**
   * {@link #scanPage(long, byte[], int)} over the keyspace of elements: the element keys starting
   * with {@code prefix}, with the same cursor and guarantees.
   */
  ScanPage scanElements(long cursor, byte[] prefix, int count);

  /** How many elements the store holds; not part of {@link #size()}. */
  long elementCount();

  /**
   * A number that changes whenever {@code key}'s value does: the sequence number of the record
   * holding its current value, or 0 if it is absent or expired. For optimistic concurrency (the
   * server's {@code WATCH}): a key whose version is unchanged has not been written since, except
   * that a value may also stop being current by expiring, which reads as 0.
   */
  long version(byte[] key);

  /** {@link #expiryOf(byte[])} with the key given as the bytes of a segment. */
  long expiryOf(MemorySegment key);

  /** {@link #delete(byte[])} with the key given as the bytes of a segment. */
  boolean delete(MemorySegment key);

  /**
   * Returns the expiry of {@code key} in epoch milliseconds, {@link #NO_EXPIRY} if it has none, or
   * {@link #ABSENT} if the key is absent or expired.
   */
  long expiryOf(byte[] key);

  /** Removes {@code key}; returns whether a live value was removed. */
  boolean delete(byte[] key);

  /** Whether {@code key} has a live (present, unexpired) value. */
  boolean contains(byte[] key);

  /**
   * Number of keys in the index. Like Redis's {@code DBSIZE}, keys that have expired but are not
   * yet reclaimed may still be counted.
   */
  long size();

  /** Iterates every live entry; see {@link #scan(byte[])}. */
  default Cursor scan() {
    return scan(new byte[0]);
  }

  /**
   * Iterates the live entries whose key starts with {@code prefix}, in no particular order. The
   * iteration is stable under concurrent writes: each shard is captured at a point in time when the
   * cursor reaches it, so a key present for the whole scan is returned exactly once. Close the
   * cursor: it pins the log segments it reads.
   */
  Cursor scan(byte[] prefix);

  /**
   * One page of a resumable iteration over the live keys that start with {@code prefix}, for
   * Redis's {@code SCAN cursor [MATCH] [COUNT]}. Start with {@link ScanPage#START} and pass each
   * page's {@link ScanPage#nextCursor()} to the next call until it is {@code START} again. Nothing
   * is held between calls, so an iteration may be abandoned at any point.
   *
   * <p>Guarantee: a full iteration returns every key that was present (live and unexpired) from its
   * start to its end, whatever other threads insert, delete or compact meanwhile, and never returns
   * a key that was absent throughout. A key added or removed during the iteration may or may not be
   * returned. Redis allows duplicates; here each key is returned at most once per iteration,
   * because the iteration walks the keys' fixed hashes, not their positions. Keys come in no
   * particular order.
   *
   * <p>{@code count} is a hint, as in Redis: a page examines about {@code count} keys of the index
   * before filtering by prefix and expiry, so it may return more or fewer, none at all with a
   * non-zero cursor. The cursor is an opaque number below 2^34 (see {@code docs/format/index.md});
   * it stays valid when the store is reopened.
   *
   * @throws CellarException of category {@code INVALID_ARGUMENT} if {@code cursor} is not one this
   *     store returns or {@code count} is below 1
   */
  ScanPage scanPage(long cursor, byte[] prefix, int count);

  /** {@link #scanPage(long, byte[], int)} over every key. */
  default ScanPage scanPage(long cursor, int count) {
    return scanPage(cursor, new byte[0], count);
  }

  /**
   * Active expiry, first half: the keys whose values have expired but are still in the index (so
   * still counted by {@link #size()}), among about {@code count} index entries after {@code
   * cursor}. The cursor is {@link #scanPage}'s, with the same guarantees: a full iteration visits
   * every key once. Nothing is changed; pass each key to {@link #deleteIfExpired} to reclaim it.
   * Keys expire lazily otherwise: reads treat them as absent, and compaction reclaims them when it
   * rewrites their segment.
   *
   * @throws CellarException of category {@code INVALID_ARGUMENT} as {@link #scanPage} does
   */
  ScanPage expiredKeys(long cursor, int count);

  /**
   * Active expiry, second half: removes {@code key} if, at this moment, its value has expired,
   * writing a tombstone as {@link #delete} does (but without waiting for it to be durable under
   * {@code fsync always}: a lost tombstone leaves a value that is expired anyway). Returns whether
   * it removed the key; false when the key is absent, lives, or was written again since it was
   * found expired, so a caller can never delete a live value by mistake. Counted in {@link
   * CellarStats#expiredKeys()}.
   */
  boolean deleteIfExpired(byte[] key);

  /**
   * A live key chosen at random, for Redis's {@code RANDOMKEY} and for eviction sampling, or {@code
   * null} if the store is empty. Costs a few reads of the index (2 to 3 on average), however many
   * keys there are. Every key is about equally likely (exactly, while all shards' index tables have
   * the same size), except in a sparse index (under 1/8 full, as when {@link
   * CellarOptions#expectedKeys} is far above the actual count), where a key after a long run of
   * free slots is likelier. Gives up after a bounded number of draws that found only expired keys,
   * so it may also return {@code null} when nearly every key has expired but is not yet reclaimed.
   */
  byte[] randomKey();

  /**
   * A typed view of the keys that start with {@code name + ":"}: the usual Redis naming convention,
   * so the same entries are visible to the server and to raw scans.
   */
  <K, V> TypedMap<K, V> map(String name, Codec<K> keyCodec, Codec<V> valueCodec);

  /**
   * Forces every write acknowledged so far to stable storage, whatever the fsync mode.
   *
   * @throws StoreIOException if the fsync fails; writes are then disabled until the store is
   *     reopened (docs/durability.md, "When fsync fails")
   */
  void sync();

  /**
   * Tells {@code listener} once every write this store has appended before the call is durable
   * under its {@link Fsync} policy: under {@link Fsync#ALWAYS}, after a group-commit fsync that
   * covers them (one fsync serves every caller waiting at once, and the callers of {@link #sync()}
   * and of waiting writes); under {@link Fsync#EVERYSEC} and {@link Fsync#NO}, at once, in the
   * calling thread, since those policies acknowledge writes before their fsync. The one way for a
   * caller that acknowledges writes itself (see {@link CellarOptions#writesAwaitDurability}) to
   * know when it may: the engine is the only place that decides about fsync.
   *
   * <p>Under {@code always} the listener runs on the engine's sync thread and must not block. If
   * the fsync fails it is told so; writes are then refused until the store is reopened.
   */
  void whenDurable(DurabilityListener listener);

  /**
   * Whether a write is as durable as the {@link Fsync} policy promises by the time it returns: true
   * unless the policy is {@link Fsync#ALWAYS} and writes do not wait ({@link
   * CellarOptions#writesAwaitDurability}), when the caller must wait for {@link #whenDurable}
   * before it acknowledges them.
   */
  boolean durableOnReturn();

  /** Whether writes are accepted, and how background work went; see {@link CellarHealth}. */
  CellarHealth health();

  /**
   * Writes an index checkpoint now, so the next open replays little or nothing.
   *
   * @throws DiskFullException if there is no room for it (nothing changes; retry once space is
   *     freed), or {@link StoreIOException} for another I/O failure
   */
  void checkpoint();

  /**
   * Writes a snapshot of the store, as it is at one instant during the call, into {@code directory}
   * (new, or empty), which {@link #open(Path)} then opens as a store of its own: a checkpoint, then
   * hard links to the files that no longer change (sealed segments, the checkpoint) and copies of
   * the log segments still being written, up to their end at that instant. Best on the store's own
   * file system, where links cost nothing; elsewhere every file is copied. Writes go on meanwhile;
   * compaction and checkpoints wait for it. For online backups ({@code BGSAVE} with a backup
   * target).
   *
   * @throws StoreIOException if the directory is not empty or a file cannot be written
   */
  StoreSnapshot snapshot(Path directory);

  /**
   * Runs one compaction pass now, in the calling thread; returns the bytes reclaimed.
   *
   * @throws DiskFullException if there is no room for its output (nothing changes), or {@link
   *     StoreIOException} for another I/O failure
   */
  long compact();

  /**
   * The store's changes from sequence number {@code fromSeq} on, as an ordered stream: every put
   * and delete with a sequence number of at least {@code fromSeq}, in order, each once; {@code 0}
   * or {@code 1} for every change since the store was created, {@link #lastSeq()} {@code + 1} for
   * new changes only. See {@link ChangeStream} and {@code docs/change-stream.md}.
   *
   * @throws ChangesRemovedException if compaction has already removed changes from {@code fromSeq}
   *     on (start from a snapshot instead)
   * @throws CellarException of category {@code INVALID_ARGUMENT} if {@code fromSeq} is negative or
   *     past {@link #lastSeq()} {@code + 1}
   */
  ChangeStream changes(long fromSeq);

  /**
   * The sequence number of the newest change appended to the log, 0 if none ever was. Under {@link
   * Fsync#ALWAYS} it may not be durable yet (a {@link ChangeStream} waits until it is).
   */
  long lastSeq();

  /**
   * Bytes of records this store's writes have appended to its log since it opened (compaction's
   * copies are not counted); it only grows. One field read, no lock and no walk over shards and
   * segments as {@link #stats()} makes: for following how fast a store grows between samples of its
   * sizes (a server's {@code maxmemory} estimate does).
   */
  long appendedBytes();

  /** A snapshot of counters and sizes. */
  CellarStats stats();

  /** What this open found on disk and did about it: checkpoint used, records replayed, damage. */
  RecoveryReport recoveryReport();

  /**
   * Syncs, checkpoints and releases the store; idempotent. On a full disk the checkpoint is skipped
   * (the next open replays the log); after a failed fsync nothing more is written.
   */
  @Override
  void close();

  /** {@link #expiryOf} result and {@link #putWithExpiry} argument for "never expires". */
  long NO_EXPIRY = 0L;

  /** {@link #expiryOf} result for an absent or expired key. */
  long ABSENT = -1L;
}
