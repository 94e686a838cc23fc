package dev.cellar.bench.crash;

import java.util.concurrent.atomic.AtomicBoolean;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * One client of a cycle: a thread with its own Jedis connection that writes its model's operations
 * one at a time (each marked in flight before it is sent, acknowledged when its reply arrives)
 * until the server dies under it.
 *
 * <p>A broken connection once the loop has said it is killing the server is the expected end;
 * anything else (an error reply, a broken connection before the kill) is kept as {@link #failure()}
 * and fails the run, since the checks after the restart would then rest on a model that stopped
 * early for a reason nobody looked at.
 */
final class CrashClient implements Runnable {
  /** Long enough for an fsync on a busy machine: a timeout would end the client before the kill. */
  private static final int SOCKET_TIMEOUT_MILLIS = 60_000;

  private final ClientModel model;
  private final int port;
  private final AtomicBoolean killing;
  private final Thread thread;
  private volatile Throwable failure;

  CrashClient(ClientModel model, int port, AtomicBoolean killing) {
    this.model = model;
    this.port = port;
    this.killing = killing;
    this.thread = Thread.ofPlatform().daemon().name("crash-client-" + model.id()).unstarted(this);
  }

  void start() {
    thread.start();
  }

  /** Waits for the thread to end; false if it has not ended within the time given. */
  boolean join(long millis) throws InterruptedException {
    return thread.join(java.time.Duration.ofMillis(millis));
  }

  /** Why the client stopped, if not because the server was killed. */
  Throwable failure() {
    return failure;
  }

  @Override
  public void run() {
    try (Jedis jedis = new Jedis("127.0.0.1", port, SOCKET_TIMEOUT_MILLIS)) {
      while (true) {
        Operation op = model.next();
        model.begin(op);
        String reply = op.send(jedis);
        model.acknowledge(op, reply);
      }
    } catch (JedisConnectionException e) {
      if (!killing.get()) {
        failure = e;
      }
    } catch (RuntimeException e) {
      failure = e;
    }
  }
}
