package dev.cellar.server.db;

import dev.cellar.Cellar;
import dev.cellar.CellarHealth;
import dev.cellar.CellarOptions;
import dev.cellar.CellarStats;
import dev.cellar.DurabilityListener;
import dev.cellar.server.collection.CollectionIds;
import dev.cellar.server.files.SmallFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The server's databases ({@code SELECT 0..databases-1}), each a store of its own.
 *
 * <h2>Design</h2>
 *
 * A database is a whole engine store in its own directory (a <em>slot</em>): database 0 starts in
 * the server's directory, as a server with one database always had it, and database i in {@code
 * db-i} beside the store's files. A database is opened at start-up if its directory exists, else at
 * its first use, so the ones nobody selects cost nothing; one that is used costs a store's threads
 * and a few megabytes.
 *
 * <p>Separate stores make {@code FLUSHDB}, {@code DBSIZE}, scans and recovery per database with no
 * change to the engine's formats, and {@code SWAPDB} O(1), as in Redis: it swaps two entries of
 * {@code databases.map} (docs/format/databases.md), replaced atomically and fsynced before the swap
 * is visible. The price is atomicity across databases: a unit of the engine is atomic within one
 * store, so a transaction or a script stays in one database, and {@code MOVE} makes its copy
 * durable before it deletes the original (a crash between them can leave the key in both, never in
 * neither).
 *
 * <p>Thread-safe: readers see the array of open databases through one volatile read; opening and
 * swapping are serialized.
 */
public final class Databases implements AutoCloseable {
  private final Path dir;
  private final CellarOptions options;
  private final Object lock = new Object();

  /** Database i's slot; replaced whole by a swap. Guarded by {@link #lock} for writes. */
  private volatile int[] slots;

  /** Database i, or null while it is not open; replaced whole when one opens or two swap. */
  private volatile Database[] open;

  /** Whether anything but database 0 was ever in use (see {@link #several}). */
  private volatile boolean several;

  private Databases(Path dir, CellarOptions options, int[] slots) {
    this.dir = dir;
    this.options = options;
    this.slots = slots;
    this.open = new Database[slots.length];
  }

  /**
   * Opens {@code count} databases in {@code dir}: database 0 always, the others whose directories
   * exist. Refuses, naming the directory, when a database that holds files would fall outside
   * {@code count}.
   */
  public static Databases open(Path dir, int count, CellarOptions options) {
    if (count < 1 || count > DatabaseMapDescriptor.MAX_DATABASES) {
      throw new IllegalArgumentException(
          "databases must be between 1 and " + DatabaseMapDescriptor.MAX_DATABASES);
    }
    int[] stored = readMap(dir);
    int[] slots = fit(dir, stored, count);
    Databases dbs = new Databases(dir, options, slots);
    try {
      if (stored != null && !Arrays.equals(stored, slots)) {
        dbs.writeMap(slots);
      }
      for (int i = 0; i < count; i++) {
        if (i == 0 || slots[i] == 0 || Files.isDirectory(dbs.slotDir(slots[i]))) {
          dbs.open[i] = dbs.openSlot(slots[i]); // not yet shared: no other thread sees it
          dbs.several |= i != 0;
        }
      }
    } catch (RuntimeException e) {
      dbs.closeQuietly();
      throw e;
    }
    return dbs;
  }

  /**
   * One database over a store opened elsewhere (an embedding, a test): {@code databases} is 1, and
   * nothing is read or written besides the store.
   */
  public static Databases single(Cellar store) {
    Databases dbs = new Databases(null, null, new int[] {0});
    dbs.open[0] = new Database(0, store, new CollectionIds(store));
    return dbs;
  }

  /** The stored map, or null if there is none (database i in slot i). */
  private static int[] readMap(Path dir) {
    Path file = dir.resolve(DatabaseMapDescriptor.FILE_NAME);
    try {
      return DatabaseMapDescriptor.decode(Files.readAllBytes(file));
    } catch (NoSuchFileException absent) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          file
              + " is damaged: "
              + e.getMessage()
              + "; it says which directory holds each database (docs/format/databases.md)."
              + " Restore it from a backup, or delete it if no SWAPDB was ever run"
              + " (then database i is in db-i)",
          e);
    }
  }

  /**
   * The map for {@code count} databases: the stored one (or database i in slot i) cut or grown. A
   * database may fall outside {@code count} only if its slot has no directory: no data is hidden.
   */
  private static int[] fit(Path dir, int[] stored, int count) {
    int length = stored == null ? count : stored.length;
    int[] slots = new int[count];
    boolean[] used = new boolean[2 * DatabaseMapDescriptor.MAX_DATABASES];
    for (int i = 0; i < Math.min(count, length); i++) {
      slots[i] = stored == null ? i : stored[i];
      used[slots[i]] = true;
    }
    int next = 0;
    for (int i = length; i < count; i++) {
      int slot = used[i] ? -1 : i;
      for (; slot < 0; next++) {
        if (!used[next]) {
          slot = next;
        }
      }
      used[slot] = true;
      slots[i] = slot;
    }
    if (!used[0]) {
      throw tooFew(dir, indexOf(stored, 0), count, 0);
    }
    for (int slot : existingSlots(dir)) {
      if (slot >= used.length || !used[slot]) {
        throw tooFew(dir, stored == null ? slot : indexOf(stored, slot), count, slot);
      }
    }
    return slots;
  }

  private static int indexOf(int[] slots, int slot) {
    for (int i = 0; slots != null && i < slots.length; i++) {
      if (slots[i] == slot) {
        return i;
      }
    }
    return slot;
  }

  /** The slots with a directory ({@code db-k}) in {@code dir}. */
  private static List<Integer> existingSlots(Path dir) {
    List<Integer> found = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return found;
    }
    try (var entries = Files.list(dir)) {
      entries.forEach(
          p -> {
            String name = p.getFileName().toString();
            if (name.matches("db-[1-9][0-9]{0,8}") && Files.isDirectory(p)) {
              found.add(Integer.parseInt(name.substring(3)));
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
    }
    return found;
  }

  private static IllegalStateException tooFew(Path dir, int index, int count, int slot) {
    String where = slot == 0 ? dir.toString() : dir.resolve("db-" + slot).toString();
    return new IllegalStateException(
        "database "
            + index
            + " has files in "
            + where
            + " but databases is "
            + count
            + ": raise databases to keep it, or move its directory away if its data is not wanted");
  }

  private Path slotDir(int slot) {
    return slot == 0 ? dir : dir.resolve(DatabaseMapDescriptor.directoryName(slot));
  }

  private Database openSlot(int slot) {
    Cellar store = Cellar.open(slotDir(slot), options);
    try {
      return new Database(slot, store, new CollectionIds(store));
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** How many databases there are ({@code databases}). */
  public int count() {
    return slots.length;
  }

  /** Database 0, always open. */
  public Database first() {
    return open[0];
  }

  /** Database {@code index}, opened (and its directory made) if it is not yet. */
  public Database get(int index) {
    Database db = open[index];
    return db != null ? db : openLazily(index);
  }

  private Database openLazily(int index) {
    synchronized (lock) {
      Database db = open[index];
      if (db == null) {
        db = openSlot(slots[index]);
        Database[] next = open.clone();
        next[index] = db;
        several = true;
        open = next;
      }
      return db;
    }
  }

  /** Database {@code index} if it is open, else null (it holds nothing). */
  public Database opened(int index) {
    return open[index];
  }

  /**
   * Bytes the open databases' writes have appended to their logs since each opened ({@link
   * Cellar#appendedBytes}): read per command by the {@code maxmemory} estimate, so a few field
   * reads, not the walk {@link #stats()} makes.
   */
  public long appendedBytes() {
    long sum = 0;
    for (Database db : open) {
      if (db != null) {
        sum += db.store().appendedBytes();
      }
    }
    return sum;
  }

  /** The open databases' indexes, ascending. */
  public List<Integer> openIndexes() {
    Database[] now = open;
    List<Integer> indexes = new ArrayList<>();
    for (int i = 0; i < now.length; i++) {
      if (now[i] != null) {
        indexes.add(i);
      }
    }
    return indexes;
  }

  /**
   * Whether anything but database 0 was ever in use: another was opened or selected, or two were
   * swapped. Until then a command needs no notion of a current database, and pays nothing for it.
   */
  public boolean several() {
    return several;
  }

  /** Marks that a client selected a database other than 0 (see {@link #several}). */
  public void useSeveral() {
    several = true;
  }

  /**
   * Swaps databases {@code a} and {@code b} ({@code SWAPDB}): the map is on disk before either
   * index names the other's data.
   *
   * @throws UncheckedIOException if the map could not be written (nothing changed)
   */
  public void swap(int a, int b) {
    synchronized (lock) {
      several = true;
      if (a == b) {
        return;
      }
      int[] nextSlots = slots.clone();
      nextSlots[a] = slots[b];
      nextSlots[b] = slots[a];
      writeMap(nextSlots);
      Database[] next = open.clone();
      next[a] = open[b];
      next[b] = open[a];
      slots = nextSlots;
      open = next;
    }
  }

  private void writeMap(int[] map) {
    try {
      SmallFiles.replace(
          dir.resolve(DatabaseMapDescriptor.FILE_NAME), DatabaseMapDescriptor.encode(map));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "the database map could not be written (" + e.getMessage() + "); nothing changed", e);
    }
  }

  /**
   * Calls {@code done} once every open database's writes so far are durable, with the first failure
   * or null ({@link Cellar#whenDurable}, across stores).
   */
  public void whenDurable(DurabilityListener done) {
    Database[] now = open;
    List<Cellar> stores = new ArrayList<>();
    for (Database db : now) {
      if (db != null) {
        stores.add(db.store());
      }
    }
    if (stores.size() == 1) {
      stores.get(0).whenDurable(done);
      return;
    }
    AtomicInteger left = new AtomicInteger(stores.size());
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    for (Cellar store : stores) {
      DurabilityListener one =
          f -> {
            if (f != null) {
              failure.compareAndSet(null, f);
            }
            if (left.decrementAndGet() == 0) {
              done.durable(failure.get());
            }
          };
      try {
        store.whenDurable(one);
      } catch (RuntimeException closed) {
        one.durable(closed);
      }
    }
  }

  /** Runs {@code action} on each open database's store, then throws the first failure if any. */
  public void forEachStore(Consumer<Cellar> action) {
    RuntimeException first = null;
    for (Database db : open) {
      if (db == null) {
        continue;
      }
      try {
        action.accept(db.store());
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** Every open store's counters added up: the server's figures for INFO and memory limits. */
  public CellarStats stats() {
    Database[] now = open;
    if (now.length == 1 || !several) {
      return now[0].store().stats();
    }
    long[] sum = new long[18];
    for (Database db : now) {
      if (db == null) {
        continue;
      }
      CellarStats s = db.store().stats();
      long[] one = {
        s.keys(),
        s.indexBytes(),
        s.logBytes(),
        s.garbageBytes(),
        s.segments(),
        s.puts(),
        s.deletes(),
        s.fsyncs(),
        s.fsyncNanos(),
        s.compactions(),
        s.compactedBytes(),
        s.checkpoints(),
        s.mappedBytes(),
        s.expiredKeys(),
        s.readCacheBytes(),
        s.readCacheHits(),
        s.readCacheMisses(),
        s.readCacheReadAhead()
      };
      for (int i = 0; i < sum.length; i++) {
        sum[i] += one[i];
      }
    }
    return new CellarStats(
        sum[0],
        sum[1],
        sum[2],
        sum[3],
        (int) sum[4],
        sum[5],
        sum[6],
        sum[7],
        sum[8],
        sum[9],
        sum[10],
        sum[11],
        sum[12],
        sum[13],
        sum[14],
        sum[15],
        sum[16],
        sum[17]);
  }

  /** Elements of collections in every open store. */
  public long elementCount() {
    long n = 0;
    for (Database db : open) {
      n += db == null ? 0 : db.store().elementCount();
    }
    return n;
  }

  /** The health of the first open store that refuses writes, else database 0's. */
  public CellarHealth health() {
    for (Database db : open) {
      if (db != null && !db.store().health().writable()) {
        return db.store().health();
      }
    }
    return first().store().health();
  }

  /** The first write failure of any open store, or null. */
  public Throwable writeFailure() {
    for (Database db : open) {
      if (db != null && db.store().health().writeFailure() != null) {
        return db.store().health().writeFailure();
      }
    }
    return null;
  }

  /** Closes every store (each syncs and checkpoints); throws the first failure after all closed. */
  @Override
  public void close() {
    synchronized (lock) {
      forEachStore(Cellar::close);
    }
  }

  private void closeQuietly() {
    for (Database db : open) {
      if (db != null) {
        try {
          db.store().close();
        } catch (RuntimeException ignored) {
          // already failing to open; the first failure is the one to report
        }
      }
    }
  }
}
