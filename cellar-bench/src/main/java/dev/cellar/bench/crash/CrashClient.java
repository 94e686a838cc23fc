package dev.cellar.bench.crash;

import io.lettuce.core.resource.ClientResources;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One client of a cycle: a thread with its own connection (Jedis or Lettuce, by {@link
 * ClientLibrary#forClient}) that writes its model's operations one at a time (each marked in flight
 * before it is sent, acknowledged when its reply arrives) until the server dies under it.
 *
 * <p>A broken connection once the loop has said it is killing the server is the expected end;
 * anything else (an error reply, a broken connection before the kill) is kept as {@link #failure()}
 * and fails the run, since the checks after the restart would then rest on a model that stopped
 * early for a reason nobody looked at.
 */
final class CrashClient implements Runnable {
  private final ClientModel model;
  private final int port;
  private final ClientResources resources;
  private final AtomicBoolean killing;
  private final Thread thread;
  private volatile Throwable failure;

  CrashClient(ClientModel model, int port, ClientResources resources, AtomicBoolean killing) {
    this.model = model;
    this.port = port;
    this.resources = resources;
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

  /** Whether the thread has ended (it only ends when its connection fails). */
  boolean ended() {
    return !thread.isAlive();
  }

  /** Why the client stopped, if not because the server was killed. */
  Throwable failure() {
    return failure;
  }

  @Override
  public void run() {
    ClientConnection connection = null;
    try {
      connection = ClientLibrary.forClient(model.id()).connect(port, resources);
      while (true) {
        Operation op = model.next();
        model.begin(op);
        String reply = op.send(connection);
        model.acknowledge(op, reply);
      }
    } catch (RuntimeException e) {
      if (!killing.get() || (connection != null && connection.isErrorReply(e))) {
        failure = e;
      }
    } finally {
      if (connection != null) {
        try {
          connection.close();
        } catch (RuntimeException closingDeadConnection) {
          // the server is gone; nothing to release on its side
        }
      }
    }
  }
}
