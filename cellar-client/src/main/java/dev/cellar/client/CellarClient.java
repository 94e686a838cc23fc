package dev.cellar.client;

import dev.cellar.Codec;
import dev.cellar.Cursor;
import dev.cellar.TypedMap;
import dev.cellar.TypedMapStore;
import dev.cellar.client.connection.AsyncChannel;
import dev.cellar.client.connection.ConnectionFactory;
import dev.cellar.client.connection.SyncChannel;
import dev.cellar.client.transport.Connector;
import dev.cellar.client.transport.TcpConnector;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * A client of a Cellar server, speaking RESP3.
 *
 * <pre>{@code
 * try (CellarClient client = CellarClient.connect("cellar://localhost:6379")) {
 *   client.set(key, value);
 *   byte[] v = client.get(key);
 *   try (Pipeline p = client.pipeline()) { ... }
 *   CompletableFuture<byte[]> f = client.async().get(key);
 *   TypedMap<UserId, User> users = client.map("users", userIdCodec, valueCodec);
 * }
 * }</pre>
 *
 * <p><b>Design.</b> Three layers, each knowing only the one below: the API (this class, {@link
 * Pipeline}, {@link AsyncCommands}, which build the same typed commands and differ in when they
 * send them); the connections (the synchronous one, shared by every thread under a lock, and the
 * asynchronous one, opened on the first {@link #async()}, with a writer and a reader thread), which
 * hold RESP3's encoder and decoder, the handshake and reconnection; and the transport, a blocking
 * byte stream to one server ({@code dev.cellar.client.transport.Transport}), TCP today. Same-host
 * shared memory will be a second transport under the same two upper layers: nothing above the
 * transport knows it is a socket.
 *
 * <p><b>Reconnection and retries.</b> After a connection is lost, the next call connects again,
 * trying for up to {@link ClientOptions#reconnectTimeout()} with a doubling wait between attempts;
 * until then, or if that fails, calls fail with {@link CellarConnectionException}. Opening a
 * connection is retried; a command never is: once its bytes may have been sent, a lost connection
 * fails it, whether or not it is idempotent, since it may have run. A connection that the server
 * closed while it sat idle (a restart) is noticed before a command is sent on it, and replaced.
 *
 * <p>Thread-safe. The synchronous calls of all threads take turns on one connection; the
 * asynchronous API has its own. Also the {@link TypedMapStore} of typed maps: {@link #map} gives
 * the engine's own {@link TypedMap}, so the same code and codecs work embedded and remote.
 */
public final class CellarClient implements TypedMapStore, AutoCloseable {
  private final ConnectionFactory factory;
  private final ClientOptions options;
  private final SyncChannel sync;
  private AsyncChannel asyncChannel;
  private AsyncCommands async;

  private CellarClient(Connector connector, ClientOptions options) {
    this.factory = new ConnectionFactory(connector, options);
    this.options = options;
    this.sync = new SyncChannel(factory, options.responseTimeout());
  }

  /** Connects to {@code cellar://[user:password@]host[:port]} with the default options. */
  public static CellarClient connect(String uri) {
    return connect(uri, ClientOptions.defaults());
  }

  /**
   * Connects to {@code uri}; credentials in {@code options} win over those in the URI.
   *
   * @throws CellarConnectionException if the server cannot be reached (one attempt)
   * @throws CellarServerException if it refuses the handshake (a wrong password)
   */
  public static CellarClient connect(String uri, ClientOptions options) {
    ClientUri target = ClientUri.parse(uri);
    if (options.password() == null && target.password() != null) {
      options = options.withCredentials(target.user(), target.password());
    }
    Connector tcp = new TcpConnector(target.host(), target.port(), options.connectTimeout());
    Connector chosen =
        switch (options.transport()) {
          case TCP -> tcp;
          case AUTO -> SharedMemoryRoute.choose(tcp, options, false);
          case SHARED_MEMORY -> SharedMemoryRoute.choose(tcp, options, true);
        };
    return new CellarClient(chosen, options);
  }

  /**
   * Where this client's connections go: {@code tcp://host:port}, or {@code shm:<discovery file>}
   * when it uses shared memory.
   */
  public String transport() {
    return factory.describe();
  }

  /** Over any transport: for the shared-memory connector to come, and for tests. */
  static CellarClient connect(Connector connector, ClientOptions options) {
    return new CellarClient(connector, options);
  }

  // ---------------------------------------------------------------- strings and keys

  /** The value of {@code key}, or null when it is absent or expired. */
  public byte[] get(byte[] key) {
    return sync.execute(Commands.get(key));
  }

  /** Stores {@code value}, replacing any value and expiry. */
  public void set(byte[] key, byte[] value) {
    sync.execute(Commands.set(key, value));
  }

  /** Stores {@code value} to expire after {@code ttl} (whole milliseconds, at least 1). */
  public void set(byte[] key, byte[] value, Duration ttl) {
    sync.execute(Commands.set(key, value, ttl));
  }

  /** Deletes the keys; returns how many existed. */
  public long del(byte[]... keys) {
    return sync.execute(Commands.del(keys));
  }

  /** How many of the keys exist (a key given twice counts twice, as in Redis). */
  public long exists(byte[]... keys) {
    return sync.execute(Commands.exists(keys));
  }

  /** The values of the keys in their order, null for an absent key. */
  public List<byte[]> mget(byte[]... keys) {
    return sync.execute(Commands.mget(keys));
  }

  /** Stores each value under the key before it: {@code mset(k1, v1, k2, v2)}. */
  public void mset(byte[]... keysAndValues) {
    sync.execute(Commands.mset(keysAndValues));
  }

  /** Adds one to the decimal value of {@code key} (0 if absent); returns the new value. */
  public long incr(byte[] key) {
    return sync.execute(Commands.incr(key));
  }

  /** Adds {@code delta}; returns the new value. */
  public long incrBy(byte[] key, long delta) {
    return sync.execute(Commands.incrBy(key, delta));
  }

  public long decr(byte[] key) {
    return sync.execute(Commands.decr(key));
  }

  /** Appends {@code value}; returns the new length. */
  public long append(byte[] key, byte[] value) {
    return sync.execute(Commands.append(key, value));
  }

  /** Sets the key to expire after {@code ttl}; false if it does not exist. */
  public boolean expire(byte[] key, Duration ttl) {
    return sync.execute(Commands.expire(key, ttl));
  }

  /** Removes the key's expiry; false if it had none or does not exist. */
  public boolean persist(byte[] key) {
    return sync.execute(Commands.persist(key));
  }

  /** Seconds to live, as {@code TTL}: -1 without an expiry, -2 when absent. */
  public long ttl(byte[] key) {
    return sync.execute(Commands.ttl(key));
  }

  /** Milliseconds to live, as {@code PTTL}: -1 without an expiry, -2 when absent. */
  public long pttl(byte[] key) {
    return sync.execute(Commands.pttl(key));
  }

  /** {@code PONG}. */
  public String ping() {
    return sync.execute(Commands.ping());
  }

  /** The number of keys ({@code DBSIZE}). */
  public long dbSize() {
    return sync.execute(Commands.dbSize());
  }

  /**
   * Every key matching the glob {@code pattern} (null for all), fetched page by page with {@code
   * SCAN} as the iteration goes: each key present for the whole iteration comes once.
   */
  public Iterable<byte[]> scanKeys(String pattern) {
    byte[] glob = pattern == null ? null : pattern.getBytes(StandardCharsets.UTF_8);
    return () -> new KeyIterator(glob);
  }

  /**
   * Any command: {@code command("GETRANGE", key, "0".getBytes(), "3".getBytes())}. Returns the
   * decoded reply.
   *
   * @throws CellarServerException if the server answers with an error
   */
  public Reply command(String name, byte[]... args) {
    return sync.execute(Commands.raw(name, args));
  }

  // ---------------------------------------------------------------- batches and futures

  /** A new pipeline on this client's connection; see {@link Pipeline}. */
  public Pipeline pipeline() {
    return new Pipeline(sync);
  }

  /** The asynchronous API; its connection and threads start on the first call. */
  public synchronized AsyncCommands async() {
    if (async == null) {
      asyncChannel = new AsyncChannel(factory, options.responseTimeout());
      async = new AsyncCommands(asyncChannel);
    }
    return async;
  }

  // ---------------------------------------------------------------- typed maps

  /**
   * A typed view of the keys that start with {@code name + ":"}, the engine's own {@link TypedMap}
   * over this client: the same keys, codecs and methods as {@code Cellar.map} embedded.
   */
  public <K, V> TypedMap<K, V> map(String name, Codec<K> keyCodec, Codec<V> valueCodec) {
    return TypedMap.of(this, name, keyCodec, valueCodec);
  }

  @Override
  public void put(byte[] key, byte[] value) {
    set(key, value);
  }

  @Override
  public void put(byte[] key, byte[] value, Duration ttl) {
    set(key, value, ttl);
  }

  /**
   * Zero-copy {@code GET}: calls {@code reader} on a read-only view of the value where it arrived
   * and returns its result, or null without calling it when the key is absent. Over shared memory
   * the view is the value's bytes in the response ring, so nothing copies it on this side; over TCP
   * it is the client's receive buffer. The view is valid only during the call: keep what it
   * computes, not the view. The call runs while this client's connection is held, so it should be
   * short. A flyweight ({@code Codecs.struct}) reads its fields straight from the view.
   */
  @Override
  public <R> R read(byte[] key, Function<MemorySegment, R> reader) {
    return sync.execute(Commands.read(key, reader));
  }

  @Override
  public boolean delete(byte[] key) {
    return del(key) == 1;
  }

  @Override
  public boolean contains(byte[] key) {
    return exists(key) == 1;
  }

  /** The entries whose keys start with {@code prefix}; see the engine's {@code scan}. */
  @Override
  public Cursor scan(byte[] prefix) {
    return new PrefixCursor(this, prefix);
  }

  Commands.ScanPage scanPage(String cursor, byte[] pattern, int count) {
    return sync.execute(Commands.scan(cursor, pattern, count));
  }

  /** Closes both connections; asynchronous commands queued are sent and awaited first. */
  @Override
  public void close() {
    synchronized (this) {
      if (asyncChannel != null) {
        asyncChannel.close();
      }
    }
    sync.close();
  }

  /** Pages of {@code SCAN}, fetched when the last is used up. */
  private final class KeyIterator implements Iterator<byte[]> {
    private final byte[] pattern;
    private final ArrayDeque<byte[]> ready = new ArrayDeque<>();
    private String cursor = "0";
    private boolean started;

    KeyIterator(byte[] pattern) {
      this.pattern = pattern;
    }

    @Override
    public boolean hasNext() {
      while (ready.isEmpty() && (!started || !cursor.equals("0"))) {
        started = true;
        Commands.ScanPage page = scanPage(cursor, pattern, 256);
        cursor = page.cursor();
        ready.addAll(page.keys());
      }
      return !ready.isEmpty();
    }

    @Override
    public byte[] next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return ready.poll();
    }
  }
}
