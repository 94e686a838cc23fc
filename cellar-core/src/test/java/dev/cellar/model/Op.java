package dev.cellar.model;

import dev.cellar.io.PowerLossModel;

/**
 * One step of a model run. {@link #next} draws one from {@link Choices}, with weights that keep
 * plain writes and reads frequent and reopens, crashes and faults rare enough that a run of a few
 * hundred steps sees each several times.
 */
sealed interface Op {
  /** How a put hands its key and value to the store. */
  enum Form {
    /** {@code put(byte[], byte[])} and its expiring variants. */
    ARRAY,
    /** {@code put(MemorySegment, MemorySegment, long)}. */
    SEGMENT,
    /** Key and value as ranges of one larger buffer, as the server's input holds them. */
    RANGES
  }

  /** The expiry a put sets. */
  enum Expiry {
    NONE,
    /** An hour ahead, given as a {@code Duration}: never reached in a run. */
    LATER,
    /** {@link Put#millis} ahead, as an absolute time: reached by {@link Wait}s. */
    SOON,
    /** Already past, which deletes the key. */
    PAST
  }

  /** How a single-key read asks. */
  enum Read {
    GET,
    RANGES,
    FUNCTION,
    CONTAINS,
    EXPIRY
  }

  record Put(int key, int size, Form form, Expiry expiry, int millis) implements Op {}

  record Delete(int key) implements Op {}

  record Get(int key, Read read) implements Op {}

  /** Lets time pass so that {@link Expiry#SOON} puts expire. */
  record Wait(int millis) implements Op {}

  /** A full {@code scan(prefix)} with a cursor, checked against every key of the model. */
  record Scan(int prefix) implements Op {}

  /** The next page of the resumable {@code scanPage} iteration in progress. */
  record Page(int count) implements Op {}

  /**
   * Puts {@code a:first} to {@code a:(first + n - 1)}, enough to make the index grow, fetching a
   * page of the iteration after every {@code pageEvery} puts (never if 0), so pages meet the index
   * while it migrates.
   */
  record Load(int first, int n, int pageEvery) implements Op {}

  record Unload(int first, int n) implements Op {}

  record RandomKey() implements Op {}

  /**
   * Active expiry: a full {@code expiredKeys} iteration in pages of {@code count}, then {@code
   * deleteIfExpired} on every key it found.
   */
  record Expire(int count) implements Op {}

  /** A clean close and open; {@code replay} deletes the checkpoints in between. */
  record Reopen(boolean replay) implements Op {}

  record Compact() implements Op {}

  record Checkpoint() implements Op {}

  record Sync() implements Op {}

  /** A put (and, unless every write syncs, a {@code sync}) whose fsync fails. */
  record FsyncFailure(int key, int size) implements Op {}

  /**
   * The disk fills: puts of {@code size} bytes from {@code key} on until one is refused, then
   * {@code after} more writes, a checkpoint among them; then space returns.
   */
  record DiskFull(int key, int size, int after) implements Op {}

  /** Power is lost; the store is opened on what the disk holds, resolved as {@code choice}. */
  record Crash(PowerLossModel.Choice choice) implements Op {}

  /**
   * A compaction, checkpoint, sync or reopen ({@code step}) during which power is lost, at a random
   * point of what it wrote.
   */
  record CrashDuring(Op step, PowerLossModel.Choice choice) implements Op {}

  int PREFIXES = 4;

  /** The scan prefix numbered {@code i}. */
  static String prefix(int i) {
    return switch (i) {
      case 0 -> "";
      case 1 -> "a:";
      case 2 -> "b:";
      default -> "a:1";
    };
  }

  /** The name of key {@code i} of the single-key operations: {@code a:i} or {@code b:i}. */
  static String key(int i) {
    return (i % 2 == 0 ? "a:" : "b:") + i;
  }

  static Op next(Choices c, Workload w) {
    int draw = c.nextInt(100);
    if (draw < 30) {
      Expiry expiry =
          switch (c.nextInt(10)) {
            case 0 -> Expiry.LATER;
            case 1, 2 -> Expiry.SOON;
            case 3 -> Expiry.PAST;
            default -> Expiry.NONE;
          };
      return new Put(
          c.nextInt(w.keys()),
          valueSize(c),
          Form.values()[c.nextInt(Form.values().length)],
          expiry,
          1 + c.nextInt(40));
    }
    if (draw < 40) {
      return new Delete(c.nextInt(w.keys()));
    }
    if (draw < 53) {
      return new Get(c.nextInt(w.keys()), Read.values()[c.nextInt(Read.values().length)]);
    }
    if (draw < 56) {
      return new Wait(1 + c.nextInt(20));
    }
    if (draw < 59) {
      return new Scan(c.nextInt(PREFIXES));
    }
    if (draw < 69) {
      return new Page(1 + c.nextInt(c.nextBoolean() ? 8 : 300));
    }
    if (draw < 71) {
      return new Expire(1 + c.nextInt(c.nextBoolean() ? 8 : 300));
    }
    if (draw < 74) {
      int[] every = {0, 1, 4, 16, 64};
      return new Load(
          c.nextInt(1500), 1 + c.nextInt(c.nextBoolean() ? 40 : 600), every[c.nextInt(5)]);
    }
    if (draw < 75) {
      return new Unload(c.nextInt(1500), 1 + c.nextInt(300));
    }
    if (draw < 78) {
      return new RandomKey();
    }
    if (draw < 81) {
      return new Reopen(c.nextInt(3) == 0);
    }
    if (draw < 84) {
      return new Compact();
    }
    if (draw < 87) {
      return new Checkpoint();
    }
    if (draw < 90) {
      return new Sync();
    }
    if (draw < 93) {
      return new FsyncFailure(c.nextInt(w.keys()), valueSize(c));
    }
    if (draw < 95) {
      Op step =
          switch (c.nextInt(4)) {
            case 0 -> new Compact();
            case 1 -> new Checkpoint();
            case 2 -> new Sync();
            default -> new Reopen(c.nextBoolean());
          };
      return new CrashDuring(step, PowerLossModel.Choice.values()[c.nextInt(4)]);
    }
    if (draw < 97) {
      return new DiskFull(c.nextInt(w.keys()), 200 + c.nextInt(3800), c.nextInt(4));
    }
    return new Crash(PowerLossModel.Choice.values()[c.nextInt(4)]);
  }

  /** Mostly small values, now and then one of kilobytes. */
  private static int valueSize(Choices c) {
    return c.nextInt(8) == 0 ? c.nextInt(Workload.MAX_VALUE_BYTES - 64) : c.nextInt(64);
  }
}
