package dev.cellar.server.command;

/**
 * What commands may do to a client's connection from any thread: push output it did not ask for
 * ({@code MONITOR}'s feed), run something on its own loop after the current batch's replies are
 * out, close it ({@code CLIENT KILL}), and shield it from client eviction ({@code CLIENT
 * NO-EVICT}). RESP connections provide one; other sessions (HTTP) have {@link #NONE}.
 */
public interface ClientChannel {
  ClientChannel NONE = new ClientChannel() {
    @Override public boolean canPush() { return false; }
    @Override public void push(byte[] bytes) { }
    @Override public void afterReplies(Runnable task) { task.run(); }
    @Override public void close() { }
    @Override public void noEvict(boolean on) { }
  };

  /** Whether {@link #push} reaches a client (false for HTTP). */
  boolean canPush();

  /** Writes {@code bytes} to the client, after anything already written; callable from any thread. */
  void push(byte[] bytes);

  /** Runs {@code task} on the connection's loop once the replies of the current batch are written. */
  void afterReplies(Runnable task);

  /** Closes the connection (once what is already written is sent). */
  void close();

  void noEvict(boolean on);
}
