package dev.cellar.bench.atrest;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.inspect.StoreDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * One store of the engine part and what a round does to it: load the documents, read them back at
 * random, overwrite half of them, compact, and reopen with nothing but the log. Each method is one
 * step, which {@link EngineRun} times; the methods that are not timed ({@link #overwrite}, {@link
 * #closeForReplay}, {@link #verify}) prepare or check.
 *
 * <p>The documents are under {@code doc:<n>}. The overwrite puts the next document ({@code n + 1},
 * wrapping) under every even {@code n}: deterministic, so that {@link #expected} tells what any key
 * holds at any point, and the same bytes in the plain and the encrypted store. Every even key's
 * first record is then dead, half of each segment the load wrote.
 */
final class EngineStore implements AutoCloseable {
  /** Keys per {@code putAll} of the load and of the overwrite. */
  static final int PUT_BATCH = 100;

  /** Keys per {@code getAll}. */
  static final int GET_BATCH = 16;

  private final Path directory;
  private final CellarOptions options;
  private final List<byte[]> docs;
  private final byte[][] keys;
  private Cellar db;
  private boolean overwritten;
  private double recordBytes;
  private Compaction lastCompaction;

  EngineStore(Path directory, CellarOptions options, List<byte[]> docs, byte[][] keys) {
    this.directory = directory;
    this.options = options;
    this.docs = docs;
    this.keys = keys;
    this.db = Cellar.open(directory, options);
  }

  /** The key of document {@code n}. */
  static byte[] key(int n) {
    return ("doc:" + n).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** What {@code doc:<n>} holds, before or after the overwrite. */
  static byte[] expected(List<byte[]> docs, int n, boolean overwritten) {
    return overwritten && n % 2 == 0 ? docs.get((n + 1) % docs.size()) : docs.get(n);
  }

  /** Puts every document, in batches of {@link #PUT_BATCH}; returns the documents put. */
  long load() {
    putAll(0, 1);
    // Every record the load wrote is live: its log over the documents is the mean record's length.
    recordBytes = (double) db.stats().logBytes() / docs.size();
    return docs.size();
  }

  /** Puts the next document under every even key; not timed. */
  void overwrite() {
    overwritten = true;
    putAll(0, 2);
  }

  private void putAll(int first, int step) {
    int n = docs.size();
    byte[][] batchKeys = new byte[PUT_BATCH][];
    byte[][] batchValues = new byte[PUT_BATCH][];
    int filled = 0;
    for (int i = first; i < n; i += step) {
      batchKeys[filled] = keys[i];
      batchValues[filled] = expected(docs, i, overwritten);
      if (++filled == PUT_BATCH) {
        db.putAll(batchKeys, batchValues, Cellar.NO_EXPIRY);
        filled = 0;
      }
    }
    if (filled > 0) {
      db.putAll(
          Arrays.copyOf(batchKeys, filled), Arrays.copyOf(batchValues, filled), Cellar.NO_EXPIRY);
    }
  }

  /**
   * One {@code get} per entry of {@code picks}; returns the GETs. Each value's length is checked
   * (cheap, the same in both stores): a wrong length stops the run.
   */
  long get(int[] picks) {
    long sink = 0;
    for (int n : picks) {
      byte[] value = db.get(keys[n]);
      if (value == null || value.length != expected(docs, n, overwritten).length) {
        throw wrongValue(n, value);
      }
      sink += value[value.length - 1];
    }
    return picks.length + (sink == Long.MIN_VALUE ? 1 : 0);
  }

  /** One {@code getAll} of {@link #GET_BATCH} keys per batch; returns the keys read. */
  long getAll(int[][] batches) {
    long keysRead = 0;
    byte[][] batch = new byte[GET_BATCH][];
    for (int[] picks : batches) {
      for (int i = 0; i < picks.length; i++) {
        batch[i] = keys[picks[i]];
      }
      byte[][] values = db.getAll(batch);
      for (int i = 0; i < picks.length; i++) {
        if (values[i] == null || values[i].length != expected(docs, picks[i], overwritten).length) {
          throw wrongValue(picks[i], values[i]);
        }
      }
      keysRead += picks.length;
    }
    return keysRead;
  }

  /**
   * Compaction passes in the calling thread until one reclaims nothing (a pass copies at most about
   * one segment of live records, so one pass alone would cover two or three of the load's
   * segments); returns the records they copied (estimated: see {@link Compaction}).
   */
  long compact() {
    long before = db.stats().logBytes();
    long reclaimed = 0;
    int passes = 0;
    for (long pass = db.compact(); pass > 0; pass = db.compact()) {
      reclaimed += pass;
      passes++;
    }
    long written = db.stats().logBytes() - before;
    lastCompaction = new Compaction(passes, reclaimed, written, written / recordBytes);
    return Math.round(lastCompaction.recordsCopied());
  }

  Compaction lastCompaction() {
    return lastCompaction;
  }

  /**
   * What compaction did: the passes that reclaimed bytes, the bytes they reclaimed (their returns),
   * the bytes their outputs hold (the growth of the log: the victims they replaced still count
   * until a checkpoint deletes them), and the records those bytes are, at the mean record length of
   * the load.
   */
  record Compaction(int passes, long reclaimedBytes, long writtenBytes, double recordsCopied) {}

  /** Closes the store and deletes its checkpoints, so that the next open replays the whole log. */
  void closeForReplay() throws IOException {
    db.close();
    db = null;
    for (Path checkpoint : StoreDirectory.list(directory).checkpoints()) {
      Files.delete(checkpoint);
    }
  }

  /** Opens the store again; returns the records its recovery replayed. */
  long reopen() {
    db = Cellar.open(directory, options);
    return db.recoveryReport().replayedRecords();
  }

  /** Compares {@code count} keys' values, spread over the key space, with the documents. */
  void verify(int count) {
    int n = docs.size();
    for (int i = 0; i < count; i++) {
      int k = (int) ((long) i * n / count);
      byte[] value = db.get(keys[k]);
      if (!Arrays.equals(value, expected(docs, k, overwritten))) {
        throw wrongValue(k, value);
      }
    }
  }

  private IllegalStateException wrongValue(int n, byte[] value) {
    return new IllegalStateException(
        directory
            + ": doc:"
            + n
            + " read "
            + (value == null ? "nothing" : value.length + " bytes")
            + ", expected its "
            + expected(docs, n, overwritten).length
            + " bytes"
            + (overwritten ? " (after the overwrite)" : ""));
  }

  @Override
  public void close() {
    if (db != null) {
      db.close();
      db = null;
    }
  }
}
