package dev.cellar.server.http;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.server.command.KeyLocks;
import dev.cellar.server.command.ServerContext;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * {@code GET, PUT, DELETE /v1/kv/{key}}: one key's value as raw bytes.
 *
 * <p>Writes behave as their RESP twins: {@code PUT} is {@code SET} (it replaces the value and any
 * expiry; {@code ttl} sets a new one), {@code DELETE} is {@code DEL}. Each write holds its key's
 * stripe lock ({@link KeyLocks}), so it cannot land inside a RESP read-modify-write of the same key
 * ({@code INCR}, {@code APPEND}). A {@code PUT} first asks the memory guard, as {@code denyoom}
 * commands do. Under {@code appendfsync always} the answer waits until the engine reports the write
 * durable ({@link Cellar#whenDurable}), so a 2xx means durable, as {@code +OK} does. The wait
 * shares the engine's group commit with every other writer, and runs on an HTTP worker thread, not
 * on an event loop.
 */
final class KvRoute {
  static final String PREFIX = "/v1/kv/";
  private static final String OOM =
      "used memory is over maxmemory and the eviction policy could not free enough:"
          + " delete keys, raise maxmemory, or choose an evicting maxmemory-policy";

  private final ServerContext server;

  KvRoute(ServerContext server) {
    this.server = server;
  }

  /**
   * A key over the engine's limit is refused as too large on every method, as docs/http.md says:
   * never "not found".
   */
  private static void checkKey(byte[] key) {
    if (key.length > CellarOptions.DEFAULT_MAX_KEY_BYTES) {
      throw HttpError.tooLarge(
          "key of "
              + key.length
              + " bytes is over the limit of "
              + CellarOptions.DEFAULT_MAX_KEY_BYTES
              + " bytes");
    }
  }

  HttpReply get(byte[] key) {
    checkKey(key);
    byte[] value =
        server.store().read(MemorySegment.ofArray(key), v -> v.toArray(ValueLayout.JAVA_BYTE));
    if (value == null) {
      server.stats().keyspaceMisses.increment();
      return keyNotFound();
    }
    server.stats().keyspaceHits.increment();
    return HttpReply.bytes(value);
  }

  HttpReply put(byte[] key, MemorySegment value, QueryParameters query) {
    checkKey(key);
    long max = server.config().maxBulkLength();
    if (value.byteSize() > max) {
      throw HttpError.tooLarge(
          "value of " + value.byteSize() + " bytes is over proto-max-bulk-len (" + max + " bytes)");
    }
    long expireAt = expiry(query);
    if (!server.memory().admit()) {
      return HttpReply.error(507, "out_of_memory", OOM);
    }
    int stripe = KeyLocks.stripe(key, 0, key.length);
    server.locks().lock(stripe);
    try {
      boolean created = server.creates(MemorySegment.ofArray(key));
      server.store().put(MemorySegment.ofArray(key), value, expireAt);
      server.keySet(key, created, expireAt != 0); // events, watchers, cached copies, as SET
    } finally {
      server.locks().unlock(stripe);
    }
    makeDurable();
    return HttpReply.noContent();
  }

  HttpReply delete(byte[] key) {
    checkKey(key);
    int stripe = KeyLocks.stripe(key, 0, key.length);
    boolean deleted;
    server.locks().lock(stripe);
    try {
      deleted = server.store().delete(MemorySegment.ofArray(key));
      if (deleted) {
        server.keyDeleted(key);
      }
    } finally {
      server.locks().unlock(stripe);
    }
    if (!deleted) {
      return keyNotFound();
    }
    makeDurable();
    return HttpReply.noContent();
  }

  /** The absolute expiry the {@code ttl} parameter (seconds) asks for, or none. */
  private static long expiry(QueryParameters query) {
    long ttl = query.integer("ttl", 1, Long.MAX_VALUE, 0);
    if (ttl == 0) {
      return Cellar.NO_EXPIRY;
    }
    try {
      return Math.addExact(Math.multiplyExact(ttl, 1000L), System.currentTimeMillis());
    } catch (ArithmeticException e) {
      throw HttpError.badRequest(
          "parameter 'ttl' is " + ttl + " seconds: the expiry would overflow; use a smaller ttl");
    }
  }

  /**
   * Waits until the engine says the write is durable under its policy (at once unless it is {@code
   * always}), outside the stripe lock: other writers of the stripe need not wait for this fsync.
   */
  private void makeDurable() {
    if (server.store().durableOnReturn()) {
      return;
    }
    CompletableFuture<Void> durable = new CompletableFuture<>();
    server
        .store()
        .whenDurable(
            failure -> {
              if (failure == null) {
                durable.complete(null);
              } else {
                durable.completeExceptionally(failure);
              }
            });
    try {
      durable.join();
    } catch (CompletionException e) {
      throw (RuntimeException) e.getCause();
    }
  }

  private static HttpReply keyNotFound() {
    return HttpReply.error(404, "not_found", "no such key (never set, deleted or expired)");
  }
}
