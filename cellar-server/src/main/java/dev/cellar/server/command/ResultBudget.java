package dev.cellar.server.command;

/**
 * What one command may gather on the heap before it answers: the members of the sets it combines, a
 * range it sorts, a list it rewrites. Collections live off the heap, in the log, and can hold far
 * more than the heap ({@code -Xmx1g} as launched); a command that reads one whole (SUNION of two
 * sets of ten million, ZRANGE 0 -1, SORT) would otherwise end in {@code OutOfMemoryError}. Past
 * {@link #LIMIT_BYTES} (counting each element's bytes and a fixed overhead), the command fails with
 * an error that says what to do instead, having written nothing. Redis has no such limit: its
 * memory is its data.
 *
 * <p>One per command, on the command's thread.
 */
final class ResultBudget {
  static final long LIMIT_BYTES = 256L << 20;

  /** What the heap spends on an element besides its bytes: array header, references, boxes. */
  static final long OVERHEAD_BYTES = 64;

  private final String command;
  private long used;

  ResultBudget(String command) {
    this.command = command;
  }

  /** Counts an element of {@code length} bytes; throws once the budget is spent. */
  void add(long length) {
    used += length + OVERHEAD_BYTES;
    if (used > LIMIT_BYTES) {
      throw refuse();
    }
  }

  /** The error of a command over its budget. */
  CommandError refuse() {
    return new CommandError(
        "ERR "
            + command
            + " would gather more than "
            + (LIMIT_BYTES >> 20)
            + " MiB on the server's heap; ask for less at a time (a range, LIMIT, COUNT,"
            + " SSCAN/HSCAN/ZSCAN)");
  }

  /** Counts {@code n} elements of about {@code length} bytes each, before they are gathered. */
  void reserve(long n, long length) {
    if (n > 0 && (length + OVERHEAD_BYTES) > (LIMIT_BYTES - used) / n) {
      throw refuse();
    }
    used += n * (length + OVERHEAD_BYTES);
  }
}
