package dev.cellar.server.command;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Serialises writers of the same key across event loops, so read-modify-write commands ({@code
 * INCR}, {@code APPEND}, {@code SET NX}, {@code RENAME}) are atomic as in single-threaded Redis.
 * Striped: a key maps to one of a fixed set of locks; multi-key commands take their stripes in
 * index order, so two of them can never deadlock. Reads take no lock (the engine makes a single
 * read atomic).
 */
public final class KeyLocks {
  private static final int STRIPES = 1024;
  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

  public KeyLocks() {
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  /** The stripe of the key {@code b[offset, offset+length)}. */
  public static int stripe(byte[] b, int offset, int length) {
    int h = 0;
    for (int i = 0; i < length; i++) {
      h = h * 31 + b[offset + i];
    }
    h ^= h >>> 15;
    h *= 0x2c1b3c6d;
    h ^= h >>> 12;
    return h & (STRIPES - 1);
  }

  public void lock(int stripe) {
    locks[stripe].lock();
  }

  public void unlock(int stripe) {
    locks[stripe].unlock();
  }

  /** Locks several stripes, sorted and deduplicated in place; returns how many to unlock. */
  public int lockAll(int[] stripes, int count) {
    java.util.Arrays.sort(stripes, 0, count);
    int unique = 0;
    for (int i = 0; i < count; i++) {
      if (unique == 0 || stripes[unique - 1] != stripes[i]) {
        stripes[unique++] = stripes[i];
      }
    }
    for (int i = 0; i < unique; i++) {
      locks[stripes[i]].lock();
    }
    return unique;
  }

  public void unlockAll(int[] stripes, int unique) {
    for (int i = unique - 1; i >= 0; i--) {
      locks[stripes[i]].unlock();
    }
  }
}
