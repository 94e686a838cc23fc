package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.CellarException;
import dev.cellar.ScanPage;
import dev.cellar.StoreClosedException;
import dev.cellar.WriteBatch;
import dev.cellar.server.collection.CollectionDescriptor;
import dev.cellar.server.collection.Header;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Removes the elements of collections that are gone: deleting, replacing or expiring a collection
 * removes only its header (O(1), as Kvrocks does, where Redis frees every element), and its
 * elements become orphans, which this sweep finds and deletes in the background.
 *
 * <h2>How an orphan is known</h2>
 *
 * Every element key starts with its collection's id, and the owner record ({@code id 'O'}) names
 * the key whose header holds that id; whatever moves a header (RENAME) rewrites the owner record in
 * the same unit. So an id is live exactly when the header under its owner's key has that id. The
 * check runs under the owner key's stripe lock, which every command changing that key holds: no
 * command can be moving or filling the collection meanwhile. Ids are never reused ({@link
 * dev.cellar.server.collection.CollectionIds}), so an id found dead stays dead, and its elements
 * are deleted without further locking.
 *
 * <h2>How much</h2>
 *
 * As {@link ActiveExpiry}: every 100 ms, on one event loop, the next stretch of the elements
 * ({@link Cellar#scanElements}, a cursor that survives growth and restarts), starting at {@link
 * #MIN_ENTRIES} entries and doubling while orphans are found, within {@link #TIME_BUDGET_NANOS}. A
 * store without orphans costs about 10,000 element reads a second; a deleted collection of a
 * million elements is gone within seconds.
 */
public final class OrphanSweeper {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  static final int MIN_ENTRIES = 1_000;
  static final int MAX_ENTRIES = 1 << 20;
  static final long TIME_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final int PAGE = 256;

  private final ServerContext server;
  private long cursor = ScanPage.START;
  private int entries = MIN_ENTRIES;
  private boolean failing;
  private long removed;

  OrphanSweeper(ServerContext server) {
    this.server = server;
  }

  /** Orphan elements deleted since start. */
  public long removed() {
    return removed;
  }

  /** One sweep; the server runs one every 100 ms, always on the same event loop. */
  public void sweep() {
    long start = System.nanoTime();
    int examined = 0;
    int found = 0;
    try {
      while (examined < entries && System.nanoTime() - start < TIME_BUDGET_NANOS) {
        ScanPage page = server.store().scanElements(cursor, new byte[0], PAGE);
        examined += PAGE;
        found += deleteOrphans(page.keys());
        cursor = page.nextCursor();
        if (page.complete() && found == 0) {
          break;
        }
      }
      failing = false;
    } catch (StoreClosedException closed) {
      return;
    } catch (CellarException e) {
      if (!failing) {
        LOG.log(
            System.Logger.Level.WARNING,
            "orphan sweep paused: " + e.getMessage() + "; deleted collections' elements stay");
      }
      failing = true;
      return;
    }
    removed += found;
    entries =
        found * 100 > examined
            ? Math.min(MAX_ENTRIES, entries * 2)
            : Math.max(MIN_ENTRIES, entries / 2);
  }

  /** Deletes the keys of {@code keys} whose collection is gone; returns how many. */
  int deleteOrphans(List<byte[]> keys) {
    Map<Long, Boolean> live = new HashMap<>();
    List<byte[]> orphans = new ArrayList<>();
    for (byte[] key : keys) {
      if (!CollectionDescriptor.isElementKey(key)) {
        continue;
      }
      long id = CollectionDescriptor.idOf(key);
      if (!live.computeIfAbsent(id, this::live)) {
        orphans.add(key);
      }
    }
    if (!orphans.isEmpty()) {
      WriteBatch batch = new WriteBatch();
      orphans.forEach(batch::deleteElement);
      server.store().write(batch);
    }
    return orphans.size();
  }

  /** Whether collection {@code id} still has its header (see the class notes). */
  boolean live(long id) {
    Cellar store = server.store();
    MemorySegment ownerKey = MemorySegment.ofArray(CollectionDescriptor.ownerKey(id));
    for (int attempt = 0; attempt < 8; attempt++) {
      byte[] owner = store.readElement(ownerKey, v -> v.toArray(ValueLayout.JAVA_BYTE));
      if (owner == null) {
        return false;
      }
      int stripe = KeyLocks.stripe(owner, 0, owner.length);
      server.locks().lock(stripe);
      try {
        byte[] now = store.readElement(ownerKey, v -> v.toArray(ValueLayout.JAVA_BYTE));
        if (now == null) {
          return false;
        }
        if (!java.util.Arrays.equals(now, owner)) {
          continue; // renamed meanwhile: check under the new owner's lock
        }
        Header h =
            store.readHeader(MemorySegment.ofArray(owner), CollectionDescriptor::decodeHeader);
        return h != null && h.id() == id;
      } finally {
        server.locks().unlock(stripe);
      }
    }
    return true; // renamed again and again: assume live, and look at it next pass
  }
}
