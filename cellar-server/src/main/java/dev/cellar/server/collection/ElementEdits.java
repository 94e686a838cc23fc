package dev.cellar.server.collection;

import dev.cellar.Cellar;
import dev.cellar.LimitExceededException;
import dev.cellar.WriteBatch;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * One command's changes to one or more collections, read back by the command as it makes them and
 * written at the end as one atomic unit ({@link Cellar#write(WriteBatch)}): element puts and
 * deletes, and each collection's new header (or its deletion). A crash or a reader sees a command
 * that changed a collection's elements and its count all or not at all.
 *
 * <p>Used by the one thread running the command, under the stripe locks of its keys.
 */
public final class ElementEdits {
  private static final Function<MemorySegment, byte[]> COPY = v -> v.toArray(ValueLayout.JAVA_BYTE);

  /**
   * The most bytes of element keys and values one command may change: a command that would write
   * more (LTRIM of millions, COPY of a huge collection) fails before it gathers them on the heap,
   * rather than after, when the engine would refuse so large a unit anyway.
   */
  public static final long LIMIT_BYTES = 64L << 20;

  /** What the heap spends on each change besides its bytes. */
  private static final long OVERHEAD_BYTES = 96;

  private final Cellar store;
  private final PackLimits limits;
  private long bytes;

  /** Element writes by key; a null value is a delete. */
  private final Map<ByteBuffer, byte[]> elements = new LinkedHashMap<>();

  /** Header writes by key, with their expiries; a null header is a delete. */
  private final Map<ByteBuffer, HeaderWrite> headers = new LinkedHashMap<>();

  private record HeaderWrite(byte[] key, Header header, long expireAt) {}

  /** Edits under Redis's default encoding thresholds (streams, tools: nothing they pack). */
  public ElementEdits(Cellar store) {
    this(store, PackLimits.REDIS_DEFAULTS);
  }

  public ElementEdits(Cellar store, PackLimits limits) {
    this.store = store;
    this.limits = limits;
  }

  public Cellar store() {
    return store;
  }

  /** The encoding thresholds the collections this command changes pack under. */
  public PackLimits limits() {
    return limits;
  }

  /** The element's value as this command left it, or null. */
  public byte[] get(byte[] key) {
    ByteBuffer k = ByteBuffer.wrap(key);
    if (elements.containsKey(k)) {
      return elements.get(k);
    }
    return store.readElement(MemorySegment.ofArray(key), COPY);
  }

  public void put(byte[] key, byte[] value) {
    count(key.length + value.length);
    elements.put(ByteBuffer.wrap(key), value);
  }

  public void delete(byte[] key) {
    count(key.length);
    elements.put(ByteBuffer.wrap(key), null);
  }

  private void count(long length) {
    bytes += length + OVERHEAD_BYTES;
    if (bytes > LIMIT_BYTES) {
      throw new LimitExceededException(
          "one command would change more than "
              + (LIMIT_BYTES >> 20)
              + " MiB of a collection at once; nothing was written (change it in smaller steps)");
    }
  }

  /**
   * Sets the header the collection under {@code key} will have ({@code null}: the collection is
   * gone), with {@code expireAt} as its expiry.
   */
  public void header(byte[] key, Header header, long expireAt) {
    headers.put(ByteBuffer.wrap(key), new HeaderWrite(key, header, expireAt));
  }

  /** Whether anything was changed. */
  public boolean isEmpty() {
    return elements.isEmpty() && headers.isEmpty();
  }

  /** Writes every change as one unit, and forgets them. */
  public void commit() {
    if (isEmpty()) {
      return;
    }
    WriteBatch batch = new WriteBatch();
    for (HeaderWrite h : headers.values()) {
      if (h.header == null) {
        batch.delete(h.key);
      } else {
        batch.putHeader(h.key, h.header.encode(), h.expireAt);
      }
    }
    for (Map.Entry<ByteBuffer, byte[]> e : elements.entrySet()) {
      byte[] key = e.getKey().array();
      if (e.getValue() == null) {
        batch.deleteElement(key);
      } else {
        batch.putElement(key, e.getValue());
      }
    }
    store.write(batch);
    elements.clear();
    headers.clear();
    bytes = 0;
  }
}
