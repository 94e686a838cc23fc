package dev.cellar.bench.stores;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.DataBlockIndexType;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksDB through RocksJava, tuned as its "Setup Options and Basic Tuning" guide advises for a
 * point-lookup workload: a 1 GiB LRU block cache, a 10-bit-per-key Bloom filter, the data-block
 * hash index, index and filter blocks held outside the cache (so never evicted), LZ4 compression, 1
 * MiB {@code bytes_per_sync}, and background jobs and parallelism sized to the cores.
 *
 * <p>Writes go through the write-ahead log without syncing it ({@code disableWAL=false,
 * sync=false}): like Cellar's {@code fsync no}, a process crash loses nothing and an OS crash may.
 * {@link #close()} flushes the memtable first, as an application shutting down cleanly would, so a
 * reopen does not replay the log (Cellar likewise checkpoints on close).
 *
 * <p>Batches use RocksDB's own: {@code multiGetAsList} for reads, a {@link WriteBatch} for writes.
 */
public final class RocksDbAdapter implements StoreAdapter {
  private static final long BLOCK_CACHE_BYTES = 1L << 30;
  private static final double BLOOM_BITS_PER_KEY = 10;

  static {
    RocksDB.loadLibrary();
  }

  private Options options;
  private LRUCache blockCache;
  private WriteOptions writeOptions;
  private ReadOptions readOptions;
  private RocksDB db;

  @Override
  public void open(Path directory, long expectedEntries, double averageKeyBytes, int valueBytes) {
    int cores = Runtime.getRuntime().availableProcessors();
    blockCache = new LRUCache(BLOCK_CACHE_BYTES);
    BlockBasedTableConfig table =
        new BlockBasedTableConfig()
            .setBlockCache(blockCache)
            .setFilterPolicy(new BloomFilter(BLOOM_BITS_PER_KEY))
            .setDataBlockIndexType(DataBlockIndexType.kDataBlockBinaryAndHash)
            .setCacheIndexAndFilterBlocks(false);
    options =
        new Options()
            .setCreateIfMissing(true)
            .setIncreaseParallelism(cores)
            .setMaxBackgroundJobs(Math.max(2, cores))
            .setBytesPerSync(1L << 20)
            .setCompressionType(CompressionType.LZ4_COMPRESSION)
            .setLevelCompactionDynamicLevelBytes(true)
            .setTableFormatConfig(table);
    writeOptions = new WriteOptions().setDisableWAL(false).setSync(false);
    readOptions = new ReadOptions();
    try {
      db = RocksDB.open(options, directory.toString());
    } catch (RocksDBException e) {
      throw new IllegalStateException("cannot open RocksDB in " + directory, e);
    }
  }

  @Override
  public void put(byte[] key, byte[] value) {
    try {
      db.put(writeOptions, key, value);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB put failed", e);
    }
  }

  @Override
  public byte[] get(byte[] key) {
    try {
      return db.get(readOptions, key);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB get failed", e);
    }
  }

  @Override
  public void getAll(byte[][] keys, byte[][] values, int count) {
    try {
      List<byte[]> found = db.multiGetAsList(readOptions, Arrays.asList(keys).subList(0, count));
      for (int i = 0; i < count; i++) {
        values[i] = found.get(i);
      }
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB multiGet failed", e);
    }
  }

  @Override
  public void putAll(byte[][] keys, byte[][] values, int count) {
    try (WriteBatch batch = new WriteBatch()) {
      for (int i = 0; i < count; i++) {
        batch.put(keys[i], values[i]);
      }
      db.write(writeOptions, batch);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB batch write failed", e);
    }
  }

  @Override
  public void close() {
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      db.flush(flush);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB flush on close failed", e);
    }
    db.close();
    readOptions.close();
    writeOptions.close();
    options.close();
    blockCache.close();
    db = null;
  }

  @Override
  public boolean persistent() {
    return true;
  }
}
