package dev.cellar.server.command;

import dev.cellar.CellarException;
import dev.cellar.ScanPage;
import dev.cellar.StoreClosedException;
import dev.cellar.server.config.KeyspaceEventFlags;
import java.util.concurrent.TimeUnit;

/**
 * Redis's active expiry: keys whose time has passed are reclaimed in the background, so that they
 * stop counting in {@code DBSIZE} and announce themselves with an {@code expired} keyspace event,
 * instead of lingering until a compaction rewrites their segment.
 *
 * <h2>How</h2>
 *
 * Every 100 ms (Redis's {@code hz 10}), on one event loop as in Redis's main thread, a sweep walks
 * the next stretch of the engine's index ({@link dev.cellar.Cellar#expiredKeys}, a cursor that
 * survives growth and reopening) and reclaims each expired key it finds with {@link
 * dev.cellar.Cellar#deleteIfExpired}, under the key's stripe lock: a command on that key sees the
 * key either before or after, and its keyspace events and the {@code expired} event come in the
 * order the changes happened. {@code deleteIfExpired} checks again at that moment, so a key written
 * again since it was found is never deleted.
 *
 * <h2>How much</h2>
 *
 * The engine keeps no list of the keys that have an expiry (Redis's {@code expires} dictionary), so
 * a sweep examines index entries, reading each record's header. What a sweep examines adapts, as
 * Redis's effort does: it starts at {@link #MIN_ENTRIES}, doubles after a sweep in which more than
 * 1% of the entries examined had expired, and halves after one in which fewer did; each sweep also
 * stops after {@link #TIME_BUDGET_NANOS}. A store without expiring keys thus costs about 10,000
 * header reads a second (a millisecond of CPU), and one full of them is swept as fast as 10% of a
 * core allows. A key's {@code expired} event comes at most one full pass after its time: a fraction
 * of a second for a small store, longer for a large one that rarely expires anything.
 */
public final class ActiveExpiry {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  static final int MIN_ENTRIES = 1_000;
  static final int MAX_ENTRIES = 1 << 20;
  static final long TIME_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final int PAGE = 256;

  private final ServerContext server;
  private long cursor = ScanPage.START;
  private int entries = MIN_ENTRIES;
  private boolean failing;

  ActiveExpiry(ServerContext server) {
    this.server = server;
  }

  /** One sweep; the server runs one every 100 ms, always on the same event loop. */
  public void sweep() {
    long start = System.nanoTime();
    int examined = 0;
    int reclaimed = 0;
    try {
      while (examined < entries && System.nanoTime() - start < TIME_BUDGET_NANOS) {
        ScanPage page = server.store().expiredKeys(cursor, PAGE);
        examined += PAGE;
        for (byte[] key : page.keys()) {
          reclaimed += reclaim(key) ? 1 : 0;
        }
        cursor = page.nextCursor();
        if (page.complete() && reclaimed == 0) {
          break; // a whole pass found nothing: no need to start the next one in this sweep
        }
      }
      failing = false;
    } catch (StoreClosedException closed) {
      return; // the server is stopping
    } catch (CellarException e) {
      // A full disk or disabled writes: the keys stay (expired, so invisible) until it passes.
      if (!failing) {
        LOG.log(
            System.Logger.Level.WARNING,
            "active expiry paused: " + e.getMessage() + "; expired keys stay until it can write");
      }
      failing = true;
      return;
    }
    entries =
        reclaimed * 100 > examined
            ? Math.min(MAX_ENTRIES, entries * 2)
            : Math.max(MIN_ENTRIES, entries / 2);
    // Expired keys are deletions: a group reader blocked on one is told, as after DEL.
    server.blocked().serveReady();
  }

  private boolean reclaim(byte[] key) {
    int stripe = KeyLocks.stripe(key, 0, key.length);
    server.locks().lock(stripe);
    try {
      if (!server.store().deleteIfExpired(key)) {
        return false;
      }
      KeyspaceEvents.notify(server, KeyspaceEventFlags.EXPIRED, "expired", key);
      return true;
    } finally {
      server.locks().unlock(stripe);
    }
  }
}
