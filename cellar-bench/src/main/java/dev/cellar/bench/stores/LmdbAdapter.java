package dev.cellar.bench.stores;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;

/**
 * LMDB through lmdbjava with direct {@link ByteBuffer}s (its fastest buffer proxy), used the way
 * LMDB is meant to be used for throughput.
 *
 * <p><b>Transactions.</b> Writes are grouped, {@value #BATCH} puts to a write transaction, since a
 * commit per put would measure commits. Reads run in a read transaction per thread that is {@code
 * reset} and {@code renew}ed every {@value #BATCH} gets: renewing reuses the reader slot, and the
 * periodic reset keeps a reader from pinning old pages for a whole phase. A thread holds one
 * transaction at a time, as LMDB requires, so switching between reading and writing ends the other
 * kind first.
 *
 * <p><b>Durability.</b> {@code MDB_NOSYNC}: commits are not fsynced, matching Cellar's {@code fsync
 * no}; {@code MDB_WRITEMAP} writes through the map, which LMDB documents as faster. The map is
 * sized at ten times the raw data, at least 256 MiB: a map size is address space, not memory, and
 * LMDB fails a write that would outgrow it; measured use after this workload's random inserts and
 * overwrites was about three times the raw data at 1M keys. With {@code MDB_WRITEMAP} the file is
 * that long but sparse, so {@code du} still reports only pages written.
 *
 * <p><b>Threading.</b> Each thread's buffers and transactions live in its own {@link ThreadState};
 * the states are also listed so {@link #close()} can finish any a thread left.
 */
public final class LmdbAdapter implements StoreAdapter {
  static final int BATCH = 10_000;
  private static final long MIN_MAP_BYTES = 256L << 20;
  private static final int MAP_SIZE_FACTOR = 10;

  /** LMDB's default largest key. */
  private static final int MAX_KEY_BYTES = 511;

  private final Queue<ThreadState> states = new ConcurrentLinkedQueue<>();
  private ThreadLocal<ThreadState> threadState;
  private Env<ByteBuffer> env;
  private Dbi<ByteBuffer> dbi;
  private int valueBytes;

  @Override
  public void open(Path directory, long expectedEntries, double averageKeyBytes, int valueBytes)
      throws IOException {
    long rawBytes = (long) (expectedEntries * (averageKeyBytes + valueBytes));
    env =
        Env.create()
            .setMapSize(Math.max(MIN_MAP_BYTES, MAP_SIZE_FACTOR * rawBytes))
            .setMaxDbs(1)
            .open(directory.toFile(), EnvFlags.MDB_NOSYNC, EnvFlags.MDB_WRITEMAP);
    dbi = env.openDbi("cellar-bench", DbiFlags.MDB_CREATE);
    this.valueBytes = valueBytes;
    threadState = ThreadLocal.withInitial(this::newThreadState);
  }

  private ThreadState newThreadState() {
    ThreadState state = new ThreadState(valueBytes);
    states.add(state);
    return state;
  }

  @Override
  public void put(byte[] key, byte[] value) {
    ThreadState state = threadState.get();
    Txn<ByteBuffer> txn = state.writeTxn(env);
    dbi.put(txn, state.key(key), state.value(value));
    state.wrote();
  }

  @Override
  public byte[] get(byte[] key) {
    ThreadState state = threadState.get();
    ByteBuffer found = dbi.get(state.readTxn(env), state.key(key));
    if (found == null) {
      return null;
    }
    byte[] copy = new byte[found.remaining()];
    found.get(copy);
    return copy;
  }

  @Override
  public void endBatch() {
    threadState.get().finish();
  }

  @Override
  public void close() {
    for (ThreadState state : states) {
      state.finish();
    }
    states.clear();
    dbi.close();
    env.close();
    env = null;
  }

  @Override
  public boolean persistent() {
    return true;
  }

  /** One thread's key and value buffers and its open transaction, if any. Owned by that thread. */
  private static final class ThreadState {
    private final ByteBuffer key = ByteBuffer.allocateDirect(MAX_KEY_BYTES);
    private ByteBuffer value;
    private Txn<ByteBuffer> write;
    private Txn<ByteBuffer> read;
    private int opsInTxn;

    ThreadState(int valueBytes) {
      value = ByteBuffer.allocateDirect(valueBytes);
    }

    ByteBuffer key(byte[] bytes) {
      return key.clear().put(bytes).flip();
    }

    ByteBuffer value(byte[] bytes) {
      if (bytes.length > value.capacity()) {
        value = ByteBuffer.allocateDirect(bytes.length);
      }
      return value.clear().put(bytes).flip();
    }

    Txn<ByteBuffer> writeTxn(Env<ByteBuffer> env) {
      if (write == null) {
        closeRead();
        write = env.txnWrite();
        opsInTxn = 0;
      }
      return write;
    }

    void wrote() {
      if (++opsInTxn == BATCH) {
        commitWrite();
      }
    }

    Txn<ByteBuffer> readTxn(Env<ByteBuffer> env) {
      if (read == null) {
        commitWrite();
        read = env.txnRead();
        opsInTxn = 0;
      } else if (++opsInTxn == BATCH) {
        read.reset();
        read.renew();
        opsInTxn = 0;
      }
      return read;
    }

    void finish() {
      commitWrite();
      closeRead();
    }

    private void commitWrite() {
      if (write != null) {
        write.commit();
        write.close();
        write = null;
      }
    }

    private void closeRead() {
      if (read != null) {
        read.close();
        read = null;
      }
    }
  }
}
