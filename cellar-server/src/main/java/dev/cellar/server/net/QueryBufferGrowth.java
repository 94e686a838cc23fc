package dev.cellar.server.net;

/**
 * How a connection's query buffer grows: it doubles, but never past the query-buffer limit.
 *
 * <p>Why the cap. A buffer larger than {@code client-query-buffer-limit} is of no use (the
 * connection closes before it holds more), yet doubling made one: a buffer doubles from the size of
 * the read that first outgrew it (49 KiB, say), so a 52 MB request went from a 49 MiB buffer to a
 * 98 MiB one, 147 MiB live while the bytes were copied, where 64 MiB (113 MiB during the copy)
 * holds all the default limit allows. Those arrays go straight to the old generation, and count
 * against {@code maxmemory-clients} too.
 *
 * <p>Why still doubling below it. Growing by less (tried: by half above 8 MiB) leaves less of a
 * large buffer unused, but makes more garbage while a request arrives (each step's old array), and
 * under many stalled large requests the heap is filled by that garbage, not by the buffers in use:
 * the soak's stalled MSETs took the resident size to 710-760 MiB a cycle with it against 670-690
 * MiB with doubling. Doubling also keeps the bytes copied per request under its size.
 */
final class QueryBufferGrowth {
  /** Arrays a little under {@code Integer.MAX_VALUE} are all a JVM can allocate. */
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;

  private QueryBufferGrowth() {}

  /**
   * The new size for a buffer of {@code capacity} bytes that must hold {@code needed} bytes, given
   * the query-buffer {@code limit} ({@code needed} is within it).
   */
  static int grown(int capacity, long needed, long limit) {
    long length = Math.max(needed, Math.min(2L * capacity, limit));
    return (int) Math.min(MAX_ARRAY, length);
  }
}
