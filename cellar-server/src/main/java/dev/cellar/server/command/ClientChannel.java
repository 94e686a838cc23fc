package dev.cellar.server.command;

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
