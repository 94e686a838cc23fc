package dev.cellar.server.command;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * {@code maxmemory-clients}: one budget for the memory that all clients' buffers hold, so that no
 * number of clients, each within its own limits, can take the heap. Redis 7 calls this client
 * eviction, and Cellar counts what Redis counts: query buffers, reply buffers and output not yet
 * sent, plus HTTP bodies being received.
 *
 * <p>Why a server-wide cap. Each client's own limits (a 64 MiB query buffer, 16 MiB bulks) are fine
 * alone; twelve unauthenticated clients each sending most of a 56 MB MSET and stalling had taken a
 * 1 GiB heap to {@code OutOfMemoryError}. Per-client limits bound one client; only a shared budget
 * bounds their sum.
 *
 * <p>How. Each connection has an {@link Account}, set to the bytes it holds whenever a buffer of it
 * grows or shrinks (not per request: buffers change size rarely). While the total is over the
 * limit, the client holding the most is disconnected, with its address, its bytes and the limit
 * logged. When the client asking for more is itself the largest, it is not evicted here: {@link
 * #set} refuses its growth and leaves the choice to the caller (a connection whose request would
 * not fit closes; a reply that would not fit is refused with an error and the client stays).
 * Evicted clients' bytes count as released from the moment they are chosen, so one large client
 * going does not take the next largest with it while its close is on the way.
 *
 * <p>Concurrency. Accounts are updated by their connection's event loop or HTTP worker; the total
 * is an atomic counter, so the common case (growth within the budget) takes no lock. Choosing whom
 * to evict, rare, is synchronized.
 */
public final class ClientMemory {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  /**
   * One client's share: what its buffers hold now, and how to disconnect it (callable from any
   * thread).
   */
  public static final class Account {
    private final String client;
    private final Runnable disconnect;
    private final AtomicLong bytes = new AtomicLong();
    private volatile boolean evicted;
    private volatile boolean closed;
    private volatile boolean noEvict;
    private long releasing; // guarded by the ClientMemory

    private Account(String client, Runnable disconnect) {
      this.client = client;
      this.disconnect = disconnect;
    }

    public long bytes() {
      return bytes.get();
    }

    /** {@code CLIENT NO-EVICT on}: never chosen for eviction (its bytes still count). */
    public void noEvict(boolean on) {
      noEvict = on;
    }

    /** Whether this client was chosen for eviction (its disconnect is on the way). */
    public boolean evicted() {
      return evicted;
    }
  }

  private final LongSupplier limit;
  private final Set<Account> accounts = ConcurrentHashMap.newKeySet();
  private final AtomicLong used = new AtomicLong();

  /** Bytes of evicted clients not yet disconnected. */
  private final AtomicLong releasing = new AtomicLong();

  private final LongAdder evictions = new LongAdder();

  public ClientMemory(LongSupplier limit) {
    this.limit = limit;
  }

  /** Opens an account for {@code client} (an address, for the log). */
  public Account open(String client, Runnable disconnect) {
    Account account = new Account(client, disconnect);
    accounts.add(account);
    return account;
  }

  /** The client is gone: its bytes are free. */
  public void close(Account account) {
    account.closed = true;
    if (accounts.remove(account)) {
      used.addAndGet(-account.bytes.getAndSet(0));
      synchronized (this) {
        releasing.addAndGet(-account.releasing);
        account.releasing = 0;
      }
    }
  }

  /**
   * Sets {@code account} to hold {@code total} bytes. Returns false, leaving the account as it was,
   * when growing to that would take all clients over the limit and this client would then hold the
   * most; otherwise true, after disconnecting larger clients as needed.
   */
  public boolean set(Account account, long total) {
    if (account.closed) {
      return true;
    }
    long delta = total - account.bytes.getAndSet(total);
    long now = used.addAndGet(delta);
    if (delta <= 0 || now - releasing.get() <= limit.getAsLong()) {
      return true;
    }
    if (evictLargerThan(account)) {
      return true;
    }
    account.bytes.addAndGet(-delta);
    used.addAndGet(-delta);
    return false;
  }

  /**
   * Evicts the largest clients until under the limit; false if {@code asking} is the largest first.
   */
  private synchronized boolean evictLargerThan(Account asking) {
    long max = limit.getAsLong();
    while (used.get() - releasing.get() > max) {
      Account largest = null;
      for (Account a : accounts) {
        if (!a.evicted && !a.noEvict && (largest == null || a.bytes.get() > largest.bytes.get())) {
          largest = a;
        }
      }
      if (largest == null || largest == asking || asking.bytes.get() >= largest.bytes.get()) {
        return false;
      }
      largest.evicted = true;
      largest.releasing = largest.bytes.get();
      releasing.addAndGet(largest.releasing);
      evictions.increment();
      LOG.log(
          System.Logger.Level.WARNING,
          "closing client "
              + largest.client
              + ": its buffers hold "
              + largest.releasing
              + " bytes, the most of any client, and all clients' buffers were over maxmemory-clients ("
              + max
              + " bytes)");
      largest.disconnect.run();
    }
    return true;
  }

  /** Bytes all clients' buffers hold. */
  public long used() {
    return used.get();
  }

  /** Clients disconnected by this budget ({@code evicted_clients} in INFO). */
  public long evictions() {
    return evictions.sum();
  }

  /** Counts a client that disconnected itself because its own request would not fit. */
  public void evictedSelf(Account account, String why) {
    evictions.increment();
    LOG.log(
        System.Logger.Level.WARNING,
        "closing client "
            + account.client
            + ": "
            + why
            + "; all clients' buffers hold "
            + used.get()
            + " bytes of maxmemory-clients "
            + limit.getAsLong());
  }
}
