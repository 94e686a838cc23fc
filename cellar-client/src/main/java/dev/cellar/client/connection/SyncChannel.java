package dev.cellar.client.connection;

import dev.cellar.client.CellarClientException;
import dev.cellar.client.CellarConnectionException;
import dev.cellar.client.protocol.Command;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The synchronous client's connection: one at a time, shared by every calling thread, each call
 * holding it from its request's first byte to its reply's last (a pipeline holds it for its whole
 * batch).
 *
 * <p><b>Reconnection.</b> A call that finds no connection opens one ({@link
 * ConnectionFactory#connect}: attempts with backoff, bounded in time). A connection idle for a
 * while is first checked, without waiting, for a close by the server (a restart): if it was closed,
 * it is replaced before anything is sent on it, so the call goes to the new server. Once a
 * command's bytes may have been sent, a failure fails the call with {@link
 * CellarConnectionException} and drops the connection: the command may or may not have run, and it
 * is not sent again, whatever it is. The next call connects afresh.
 *
 * <p><b>Concurrency.</b> A fair lock orders the callers; the connection and its buffers are touched
 * only under it. Threads that want parallel round trips use the asynchronous client, which
 * pipelines them on a connection of its own.
 */
public final class SyncChannel implements AutoCloseable {
  private final ConnectionFactory factory;
  private final Duration responseTimeout;
  private final ReentrantLock lock = new ReentrantLock(true);
  private Connection connection;
  private boolean closed;

  /** Connects once, at once: a wrong address or password fails here. */
  public SyncChannel(ConnectionFactory factory, Duration responseTimeout) {
    this.factory = factory;
    this.responseTimeout = responseTimeout;
    this.connection = factory.connectOnce(responseTimeout);
  }

  /** Receives the replies of a batch, in order. */
  public interface ReplySink {
    /** The outcome of command {@code index}, for its {@link Command#complete}. */
    void accept(int index, Object outcome);
  }

  public <T> T execute(Command<T> command) {
    Object outcome;
    lock.lock();
    try {
      Connection c = live();
      try {
        c.send(command);
        c.flush();
        outcome = c.receive(command);
      } catch (IOException e) {
        throw lost(c, e, command.name(), 1);
      }
    } finally {
      lock.unlock();
    }
    return command.complete(outcome);
  }

  /**
   * Sends {@code commands} in one flush and hands their replies to {@code sink} in order; if the
   * connection fails, the replies received so far have been handed over and this throws.
   */
  public void executeAll(List<? extends Command<?>> commands, ReplySink sink) {
    if (commands.isEmpty()) {
      return;
    }
    lock.lock();
    try {
      Connection c = live();
      int received = 0;
      try {
        for (Command<?> command : commands) {
          c.send(command);
        }
        c.flush();
        for (; received < commands.size(); received++) {
          sink.accept(received, c.receive(commands.get(received)));
        }
      } catch (IOException e) {
        throw lost(c, e, "a pipeline", commands.size() - received);
      }
    } finally {
      lock.unlock();
    }
  }

  private Connection live() {
    if (closed) {
      throw new CellarClientException("the client is closed; connect a new one");
    }
    if (connection != null && connection.closedWhileIdle()) {
      connection.close(); // closed by the server before anything was sent: replace it
      connection = null;
    }
    if (connection == null) {
      connection = factory.connect(responseTimeout);
    }
    return connection;
  }

  private CellarConnectionException lost(Connection c, IOException e, String what, int unanswered) {
    c.close();
    connection = null;
    String why =
        e instanceof SocketTimeoutException
            ? "no reply within " + responseTimeout.toMillis() + " ms"
            : e.toString();
    return new CellarConnectionException(
        "connection to "
            + c.describe()
            + " lost during "
            + what
            + " ("
            + why
            + "); "
            + unanswered
            + " command(s) unanswered may or may not have run and are not sent again;"
            + " the next call connects again",
        e);
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      if (connection != null) {
        connection.close();
        connection = null;
      }
    } finally {
      lock.unlock();
    }
  }
}
