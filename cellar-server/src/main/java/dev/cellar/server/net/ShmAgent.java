package dev.cellar.server.net;

import dev.cellar.ipc.Doorbell;
import dev.cellar.ipc.IpcDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A thread that serves shared-memory clients: a duty cycle over its connections' request rings, the
 * tasks other threads hand it, and (the first agent) connection requests and the discovery file's
 * heartbeat. One owner for everything of its connections, as an event loop is for sockets.
 *
 * <h2>Idle</h2>
 *
 * When a pass finds nothing to do, the agent waits on its doorbell ({@link Doorbell}): it spins
 * briefly, then sleeps on a futex until a client that publishes a request rings it, or 100 ms pass.
 * So a busy client's requests are picked up without a system call on either side, and an idle
 * server uses no CPU. The timeout bounds how late the housekeeping runs: a client that died without
 * a word is noticed within a second.
 */
final class ShmAgent implements Executor {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");
  private static final long IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long LIVENESS_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final int index;
  private final Doorbell doorbell;
  private final ShmEndpoint endpoint;
  private final long clientTimeoutMillis;
  private final List<ShmConnection> connections = new ArrayList<>();
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final Thread thread;
  private volatile boolean running = true;
  private long nextLivenessCheck;

  ShmAgent(int index, Doorbell doorbell, ShmEndpoint endpoint, long clientTimeoutMillis) {
    this.index = index;
    this.doorbell = doorbell;
    this.endpoint = endpoint;
    this.clientTimeoutMillis = clientTimeoutMillis;
    this.thread = Thread.ofPlatform().name("cellar-ipc-" + index).daemon().unstarted(this::run);
  }

  void start() {
    thread.start();
  }

  int index() {
    return index;
  }

  Doorbell doorbell() {
    return doorbell;
  }

  boolean inAgent() {
    return Thread.currentThread() == thread;
  }

  /** Runs {@code task} on this agent's thread, after its current pass. */
  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    if (!inAgent()) {
      doorbell.ring();
    }
  }

  /** Takes a new connection (on this agent's thread). */
  void adopt(ShmConnection connection) {
    connections.add(connection);
  }

  int connections() {
    return connections.size();
  }

  private void run() {
    try {
      while (running) {
        boolean busy = runTasks();
        for (int i = 0; i < connections.size(); i++) {
          busy |= connections.get(i).turn();
        }
        connections.removeIf(ShmConnection::closed);
        try {
          boolean second = housekeeping();
          if (index == 0) {
            busy |= endpoint.acceptRequests(second);
          }
        } catch (RuntimeException e) {
          // A file a client broke, say: that client is refused or closed; the agent goes on.
          LOG.log(System.Logger.Level.WARNING, "shared-memory agent " + index + ": " + e, e);
        }
        if (!busy) {
          doorbell.await(this::hasWork, IDLE_WAIT_NANOS);
        }
      }
    } catch (RuntimeException | Error e) {
      LOG.log(System.Logger.Level.ERROR, "shared-memory agent " + index + " failed", e);
    } finally {
      runTasks();
      for (ShmConnection c : connections) {
        c.close("the server stopped");
      }
      connections.clear();
    }
  }

  private boolean hasWork() {
    if (!tasks.isEmpty() || !running) {
      return true;
    }
    for (int i = 0; i < connections.size(); i++) {
      if (connections.get(i).readable()) {
        return true;
      }
    }
    return index == 0 && endpoint.requestsWaiting();
  }

  private boolean runTasks() {
    boolean any = false;
    for (Runnable task; (task = tasks.poll()) != null; ) {
      any = true;
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "shared-memory agent " + index + ": task failed", e);
      }
    }
    return any;
  }

  /**
   * Once a second (returns whether this was the time): the discovery file's heartbeat (first
   * agent), and every client checked for a close it asked for, a process that is gone, or a
   * heartbeat older than the timeout.
   */
  private boolean housekeeping() {
    long now = System.nanoTime();
    if (now - nextLivenessCheck < 0) {
      return false;
    }
    nextLivenessCheck = now + LIVENESS_NANOS;
    long millis = System.currentTimeMillis();
    if (index == 0) {
      endpoint.heartbeat(millis);
    }
    for (ShmConnection c : connections) {
      if (c.closed()) {
        continue;
      }
      int state = c.file().state();
      if (state == IpcDescriptor.RING_CLOSED_BY_CLIENT) {
        c.close("closed by the client");
      } else if (!c.client().alive()) {
        LOG.log(
            System.Logger.Level.INFO,
            "shared-memory client " + c.session().address() + " is gone (its process ended)");
        c.close("the client's process ended");
      } else if (clientTimeoutMillis > 0 && millis - c.file().heartbeat() > clientTimeoutMillis) {
        LOG.log(
            System.Logger.Level.WARNING,
            "closing shared-memory client "
                + c.session().address()
                + ": no heartbeat for "
                + (millis - c.file().heartbeat())
                + " ms");
        c.close("no heartbeat for over " + clientTimeoutMillis + " ms");
      }
    }
    connections.removeIf(ShmConnection::closed);
    return true;
  }

  /** Stops the loop; its connections are closed on its thread. Waits up to 5 s. */
  void stop() {
    running = false;
    doorbell.ring();
    tasks.add(() -> {});
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
