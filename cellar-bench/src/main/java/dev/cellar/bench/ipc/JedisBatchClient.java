package dev.cellar.bench.ipc;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * Jedis against {@code redis-server} over loopback TCP, batched the way its users batch: {@code
 * pipelined()}, the commands, {@code sync()}. The row a reader compares Cellar's client with.
 */
final class JedisBatchClient implements BatchClient {
  private static final int TIMEOUT_MILLIS = 60_000;

  private final Jedis jedis;
  private final int port;
  private final List<Response<byte[]>> gets = new ArrayList<>();

  JedisBatchClient(int port) {
    this.jedis = new Jedis("127.0.0.1", port, TIMEOUT_MILLIS);
    this.port = port;
  }

  @Override
  public void run(Op op, Mode mode, byte[][] keys, byte[] value) {
    if (mode != Mode.COPY) {
      throw new IllegalArgumentException("Jedis hands values over as copies only");
    }
    Pipeline pipeline = jedis.pipelined();
    if (op == Op.SET) {
      for (byte[] key : keys) {
        pipeline.set(key, value);
      }
      pipeline.sync();
      return;
    }
    gets.clear();
    for (byte[] key : keys) {
      gets.add(pipeline.get(key));
    }
    pipeline.sync();
    for (int i = 0; i < keys.length; i++) {
      CellarBatchClient.checkHit(keys[i], gets.get(i).get(), value.length);
    }
  }

  @Override
  public String describe() {
    return "jedis tcp://127.0.0.1:" + port;
  }

  @Override
  public void close() {
    jedis.close();
  }
}
