package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;

/**
 * What commands may do to a client's connection from any thread: push output it did not ask for
 * ({@code MONITOR}'s feed), close it ({@code CLIENT KILL}), and shield it from client eviction
 * ({@code CLIENT NO-EVICT}). RESP connections provide one; other sessions (HTTP) have {@link
 * #NONE}.
 */
public interface ClientChannel {
  ClientChannel NONE =
      new ClientChannel() {
        @Override
        public boolean canPush() {
          return false;
        }

        @Override
        public void push(byte[] bytes) {}

        @Override
        public void deliver(long bytes, java.util.function.Consumer<ReplyWriter> message) {}

        @Override
        public void close() {}

        @Override
        public void noEvict(boolean on) {}
      };

  /** Whether {@link #push} reaches a client (false for HTTP). */
  boolean canPush();

  /**
   * Writes {@code bytes} to the client, after anything already written; callable from any thread.
   */
  void push(byte[] bytes);

  /**
   * Hands the client a message to write on its own thread, after everything queued for it before:
   * {@code message} appends it to the client's output in the client's protocol, or appends nothing
   * to drop it. {@code bytes} is about what it will take; a client whose undelivered messages pass
   * its output limit is disconnected instead, so that one that does not read cannot make the server
   * hold without bound what is published to it. Callable from any thread.
   */
  void deliver(long bytes, java.util.function.Consumer<ReplyWriter> message);

  /**
   * Runs {@code task} on the client's own thread, after the batch in progress: it may write to the
   * client's output. Then sends that output and, if the client is no longer blocked ({@link
   * Session#blocked}), goes on executing the requests it sent meanwhile. How a blocked command is
   * retried and answered ({@link BlockedClients}). Callable from any thread.
   */
  default void resume(java.util.function.Consumer<ReplyWriter> task) {}

  /** Closes the connection (once what is already written is sent). */
  void close();

  void noEvict(boolean on);

  /**
   * The socket's file descriptor for {@code CLIENT LIST}, or -1 when the transport has none to show
   * (NIO).
   */
  default int fd() {
    return -1;
  }

  /** Bytes the client's buffers hold ({@code tot-mem}): its share of {@code maxmemory-clients}. */
  default long memory() {
    return 0;
  }
}
