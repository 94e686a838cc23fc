package dev.cellar.bench.crash;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.Map;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * The client libraries the crash loop writes through: Jedis (blocking, RESP2) and Lettuce (Netty,
 * RESP3 after {@code HELLO 3}). Clients alternate between them.
 *
 * <p>Lettuce reconnects and resends queued commands by default; that would turn a write in flight
 * at the kill into a write replayed against the restarted server, which the model cannot tell from
 * a recovered one, so reconnecting is off: the connection fails, as Jedis's does.
 */
enum ClientLibrary {
  JEDIS,
  LETTUCE;

  /** Long enough for an fsync on a busy machine: a timeout would end the client before the kill. */
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  static ClientLibrary forClient(int id) {
    return values()[id % values().length];
  }

  /** Opens a connection (Lettuce's on {@code resources}, which the caller owns and shuts down). */
  ClientConnection connect(int port, ClientResources resources) {
    return switch (this) {
      case JEDIS -> new JedisConnection(new Jedis("127.0.0.1", port, (int) TIMEOUT.toMillis()));
      case LETTUCE -> LettuceConnection.open(port, resources);
    };
  }

  private record JedisConnection(Jedis jedis) implements ClientConnection {
    public String set(String key, String value) {
      return jedis.set(key, value);
    }

    public String setEx(String key, String value, long seconds) {
      return jedis.set(key, value, SetParams.setParams().ex(seconds));
    }

    public long del(String key) {
      return jedis.del(key);
    }

    public long incr(String key) {
      return jedis.incr(key);
    }

    public long append(String key, String suffix) {
      return jedis.append(key, suffix);
    }

    public String mset(String key1, String value1, String key2, String value2) {
      return jedis.mset(key1, value1, key2, value2);
    }

    public boolean isErrorReply(RuntimeException e) {
      return e instanceof JedisDataException;
    }

    public void close() {
      jedis.close();
    }
  }

  private record LettuceConnection(
      RedisClient client,
      StatefulRedisConnection<String, String> connection,
      RedisCommands<String, String> sync)
      implements ClientConnection {
    static LettuceConnection open(int port, ClientResources resources) {
      RedisClient client =
          RedisClient.create(
              resources,
              RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(TIMEOUT).build());
      client.setOptions(ClientOptions.builder().autoReconnect(false).build());
      try {
        StatefulRedisConnection<String, String> connection = client.connect();
        return new LettuceConnection(client, connection, connection.sync());
      } catch (RuntimeException e) {
        client.shutdown();
        throw e;
      }
    }

    public String set(String key, String value) {
      return sync.set(key, value);
    }

    public String setEx(String key, String value, long seconds) {
      return sync.set(key, value, SetArgs.Builder.ex(seconds));
    }

    public long del(String key) {
      return sync.del(key);
    }

    public long incr(String key) {
      return sync.incr(key);
    }

    public long append(String key, String suffix) {
      return sync.append(key, suffix);
    }

    public String mset(String key1, String value1, String key2, String value2) {
      return sync.mset(Map.of(key1, value1, key2, value2));
    }

    public boolean isErrorReply(RuntimeException e) {
      return e instanceof RedisCommandExecutionException;
    }

    public void close() {
      try {
        connection.close();
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }
}
