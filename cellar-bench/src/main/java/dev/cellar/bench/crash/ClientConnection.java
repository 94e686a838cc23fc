package dev.cellar.bench.crash;

/**
 * The writes a crash-loop client sends, over one connection of a Redis client library (see {@link
 * ClientLibrary}): the clients are libraries nobody here wrote, so their framing, pipelining and
 * error handling are part of what is tested. Replies come back as the library returns them.
 */
interface ClientConnection extends AutoCloseable {
  String set(String key, String value);

  /** {@code SET key value EX seconds}. */
  String setEx(String key, String value, long seconds);

  long del(String key);

  long incr(String key);

  long append(String key, String suffix);

  String mset(String key1, String value1, String key2, String value2);

  /**
   * Whether {@code e} is the server's error reply (a failure at any time), not a broken connection.
   */
  boolean isErrorReply(RuntimeException e);

  @Override
  void close();
}
