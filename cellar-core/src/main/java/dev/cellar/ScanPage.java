package dev.cellar;

import java.util.List;

/**
 * One page of a resumable scan, {@link Cellar#scanPage(long, byte[], int)}.
 *
 * @param nextCursor the cursor to pass to the next call, or {@link #START} when the iteration is
 *     complete
 * @param keys the keys found, copied onto the heap; possibly none even when the iteration goes on
 */
public record ScanPage(long nextCursor, List<byte[]> keys) {
  /**
   * The cursor that starts an iteration, and the one a page returns when the iteration is complete.
   */
  public static final long START = 0L;

  public ScanPage {
    keys = List.copyOf(keys);
  }

  /** Whether this was the last page. */
  public boolean complete() {
    return nextCursor == START;
  }
}
