package dev.cellar.log;

/**
 * The puts that {@link LogWriter#appendAll} appends together, item by item: each item's lengths and
 * expiry, and its key and value bytes copied straight into the record being encoded, whatever form
 * the caller holds them in (heap arrays or ranges of a segment). Copying from the caller's own
 * storage is the point: wrapping every key and value of a batch in a segment first cost two
 * allocations each, more than the copy.
 */
public interface PutRecords {
  long keyLength(int item);

  long valueLength(int item);

  /** Epoch millis, or 0 for none. */
  long expiry(int item);

  /** Copies the item's key into {@code out} from {@code at}. */
  void copyKey(int item, byte[] out, int at);

  /** Copies the item's value into {@code out} from {@code at}. */
  void copyValue(int item, byte[] out, int at);
}
