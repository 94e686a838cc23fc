package dev.cellar.bench.ipc;

/**
 * One client connection that sends a batch of commands as one pipeline and waits for every reply:
 * Cellar's client (over either transport) or Jedis. One thread uses it.
 */
interface BatchClient extends AutoCloseable {
  /**
   * Sends {@code op} for each of {@code keys} in one pipeline, then waits for the replies.
   *
   * @param mode how a GET's values are handed over (SET: {@link Mode#COPY})
   * @param value the value of each SET (ignored by GET)
   * @throws IllegalStateException if a GET missed or returned a value of another length: the
   *     benchmark measures hits, so a miss means the keys were not loaded
   */
  void run(Op op, Mode mode, byte[][] keys, byte[] value);

  /** What the client says it is connected to, for the report. */
  String describe();

  @Override
  void close();
}
