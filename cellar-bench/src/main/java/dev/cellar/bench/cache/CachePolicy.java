package dev.cellar.bench.cache;

/**
 * An eviction policy over integer keys with a fixed capacity in entries: what the read cache of
 * {@code --io direct} would decide for each 4 KiB page of a log segment, without the pages
 * themselves. Each implementation owns its state and is used by one thread.
 */
public interface CachePolicy {

  /**
   * One request for {@code key} (not negative). Returns true on a hit; on a miss the key is
   * admitted, evicting as the policy decides so that {@link #size()} stays within {@link
   * #capacity()}.
   */
  boolean access(int key);

  /** Whether {@code key} is held now; changes nothing (a hit's bookkeeping is not done). */
  boolean contains(int key);

  /** Entries held now. */
  int size();

  /** The most entries it may hold. */
  int capacity();

  /**
   * Hits so far that had to write the policy's shared state: LRU's relinking of a node that was not
   * already the most recent, or setting a reference bit or counter that was not already set. A hit
   * that writes nothing can be served by many threads at once without a lock or a contended cache
   * line; this counts how often that is not so.
   */
  long hitsThatWrote();
}
