/**
 * Cellar's engine: a persistent key-value store whose data lives below the Java heap.
 *
 * <p>Exported: {@code dev.cellar}, the embedded API ({@link dev.cellar.Cellar} and its options,
 * statistics, health and exceptions); {@code dev.cellar.inspect}, read-only access to a store's
 * files for offline tools, through the engine's own parsers; and {@code dev.cellar.io}, the
 * file-I/O seam an application or a test may substitute ({@link dev.cellar.io.FileIO}). Everything
 * else (the index, the log, the checkpoints, recovery, the store's parts, the platform calls) is
 * the engine's own, and a module that reads this one cannot reach it: the server and the command
 * line use only what is exported.
 */
module dev.cellar.core {
  exports dev.cellar;
  exports dev.cellar.inspect;
  exports dev.cellar.io;
}
