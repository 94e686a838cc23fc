package dev.cellar.client.connection;

import dev.cellar.client.CellarClientException;
import dev.cellar.client.CellarConnectionException;
import dev.cellar.client.Reply;
import dev.cellar.client.protocol.Command;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The asynchronous client's connection: commands from any thread, pipelined on one connection,
 * replies matched to them in order.
 *
 * <p><b>Threads.</b> Two per channel, both daemons. The writer takes what callers have queued,
 * everything at once (up to {@link #MAX_BATCH} commands), and sends it in one flush: under load a
 * batch holds every command queued while the last one was being written, so the cost of a write is
 * shared. The reader waits for replies and completes the oldest command in flight with each; RESP
 * answers in order, so the queue of commands in flight is the whole matching. The transport is
 * blocking ({@link dev.cellar.client.transport.Transport}), so waiting for replies needs a thread
 * of its own, and the writer cannot be that thread; a selector would tie the design to sockets,
 * which the seam keeps out. Futures complete on the reader thread, so callbacks attached without an
 * executor run there and must not block.
 *
 * <p><b>Failures.</b> When the connection breaks, every command in flight on it fails with {@link
 * CellarConnectionException}: it may have run, and it is not sent again. The reader notices a close
 * by the server as soon as it arrives; the writer cannot look for one itself (the reader is blocked
 * in the transport's read), so a batch written in the moment between the close's arrival and the
 * reader's noticing it fails too. Commands still queued (never written) go on the next connection,
 * which the writer opens as {@link ConnectionFactory#connect} does for the synchronous client; if
 * that fails, so do they. A command that waits longer than the response timeout fails its future
 * with a {@link java.util.concurrent.TimeoutException}; its reply, if it comes, is then dropped.
 *
 * <p>The connection is opened with the response timeout as its read timeout, so a server that
 * accepts but never answers the handshake fails the connection instead of hanging the writer. The
 * reader waits again after a timeout between replies (nothing was consumed: the connection is idle
 * or a reply is slow, and order is kept), and drops the connection after one inside a reply.
 */
public final class AsyncChannel implements AutoCloseable {
  static final int MAX_BATCH = 4096;

  private static final Pending STOP = new Pending(null, null);

  private final ConnectionFactory factory;
  private final Duration responseTimeout;
  private final LinkedBlockingQueue<Pending> outbox = new LinkedBlockingQueue<>();
  private final Thread writer;
  private volatile boolean closed;
  private volatile Link link; // written by the writer only

  public AsyncChannel(ConnectionFactory factory, Duration responseTimeout) {
    this.factory = factory;
    this.responseTimeout = responseTimeout;
    this.writer = Thread.ofPlatform().daemon().name("cellar-client-writer").start(this::writeLoop);
  }

  @SuppressWarnings("unchecked")
  public <T> CompletableFuture<T> submit(Command<T> command) {
    CompletableFuture<Object> future = new CompletableFuture<>();
    if (closed) {
      future.completeExceptionally(closedException());
    } else {
      outbox.add(new Pending(command, future));
      if (closed && !writer.isAlive()) {
        failQueued(); // close() ran between the check and the add, and the writer is gone
      }
    }
    return (CompletableFuture<T>) future.orTimeout(responseTimeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void writeLoop() {
    List<Pending> batch = new ArrayList<>();
    boolean stop = false;
    while (!stop) {
      try {
        batch.add(outbox.take());
      } catch (InterruptedException e) {
        break;
      }
      outbox.drainTo(batch, MAX_BATCH - 1);
      stop = batch.remove(STOP);
      if (!batch.isEmpty()) {
        write(batch);
      }
      batch.clear();
    }
  }

  private void write(List<Pending> batch) {
    Link l;
    try {
      l = live();
    } catch (CellarClientException e) {
      batch.forEach(p -> p.future.completeExceptionally(e));
      return;
    }
    l.inFlight.addAll(batch); // before the bytes go: a reply may come back at once
    try {
      for (Pending p : batch) {
        l.connection.send(p.command);
      }
      l.connection.flush();
    } catch (IOException e) {
      l.fail(e);
    }
  }

  private Link live() {
    if (link == null || link.dead) {
      link = new Link(factory.connect(responseTimeout));
    }
    return link;
  }

  private void failQueued() {
    boolean stopSeen = false;
    Pending p;
    while ((p = outbox.poll()) != null) {
      if (p == STOP) {
        stopSeen = true;
      } else {
        p.future.completeExceptionally(closedException());
      }
    }
    if (stopSeen) {
      outbox.add(STOP); // a writer still running must still see it
    }
  }

  private CellarClientException closedException() {
    return new CellarClientException("the client is closed; connect a new one");
  }

  /**
   * Sends what is queued, waits up to the response timeout for the replies in flight, then closes
   * the connection; whatever is still unanswered fails.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    outbox.add(STOP);
    try {
      writer.join(responseTimeout.toMillis());
      if (writer.isAlive()) {
        writer.interrupt(); // still trying to connect: give up
      }
      Link l = link;
      if (l != null) {
        long deadline = System.nanoTime() + responseTimeout.toNanos();
        while (!l.inFlight.isEmpty() && !l.dead && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        l.fail(new IOException("the client was closed"));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    failQueued();
  }

  /** One command and its future. */
  private record Pending(Command<?> command, CompletableFuture<Object> future) {
    void complete(Reply reply) {
      try {
        future.complete(command.decode(reply));
      } catch (RuntimeException e) {
        future.completeExceptionally(e);
      }
    }
  }

  /** One connection, its commands in flight, and the thread that reads its replies. */
  private final class Link {
    final Connection connection;
    final ConcurrentLinkedQueue<Pending> inFlight = new ConcurrentLinkedQueue<>();
    volatile boolean dead;

    Link(Connection connection) {
      this.connection = connection;
      Thread.ofPlatform().daemon().name("cellar-client-reader").start(this::readLoop);
    }

    private void readLoop() {
      try {
        while (true) {
          try {
            connection.awaitReply();
          } catch (SocketTimeoutException idle) {
            continue; // nothing consumed: an idle connection, or a slow reply, still in order
          }
          Reply reply = connection.receive();
          Pending p = inFlight.poll();
          if (p == null) {
            throw new IOException("a reply came with no command waiting for it: " + reply);
          }
          p.complete(reply);
        }
      } catch (IOException | RuntimeException e) {
        fail(e);
      }
    }

    /** Closes the connection first, so a write racing with this fails and comes here too. */
    void fail(Exception cause) {
      dead = true;
      connection.close();
      Pending p;
      while ((p = inFlight.poll()) != null) {
        p.future.completeExceptionally(
            new CellarConnectionException(
                "connection to "
                    + connection.describe()
                    + " lost with the command in flight ("
                    + cause
                    + "); it may or may not have run and is not sent again",
                cause));
      }
    }
  }
}
