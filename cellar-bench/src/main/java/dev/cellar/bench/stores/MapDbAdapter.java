package dev.cellar.bench.stores;

import java.nio.file.Path;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.HTreeMap;
import org.mapdb.Serializer;

/**
 * MapDB's {@code HTreeMap} of {@code byte[]} to {@code byte[]} in a memory-mapped file, set up as
 * MapDB's documentation advises for speed: specific serializers ({@code BYTE_ARRAY}, whose hash is
 * also MapDB's key hash), no write-ahead log (MapDB's default), no zeroing of newly mapped space,
 * large file increments, and a layout whose hash table holds the expected entries (the default 8 x
 * 16^4 holds half a million; past it collisions slow every operation).
 */
public final class MapDbAdapter implements StoreAdapter {
  private static final String FILE = "mapdb.db";
  private static final int SEGMENTS = 8;
  private static final int LEVELS = 4;

  /** MapDB's largest index-tree node. */
  private static final int MAX_NODE_SIZE = 128;

  private DB db;
  private HTreeMap<byte[], byte[]> map;

  @Override
  public void open(Path directory, long expectedEntries, double averageKeyBytes, int valueBytes) {
    db =
        DBMaker.fileDB(directory.resolve(FILE).toFile())
            .fileMmapEnableIfSupported()
            .fileMmapPreclearDisable()
            .allocateIncrement(64L << 20)
            .make();
    map =
        db.hashMap("cellar-bench", Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY)
            .layout(SEGMENTS, nodeSizeFor(expectedEntries), LEVELS)
            .valueInline()
            .createOrOpen();
  }

  /** The smallest power-of-two node size, at least MapDB's default 16, that fits the entries. */
  static int nodeSizeFor(long expectedEntries) {
    int nodeSize = 16;
    while (nodeSize < MAX_NODE_SIZE && SEGMENTS * Math.pow(nodeSize, LEVELS) < expectedEntries) {
      nodeSize *= 2;
    }
    return nodeSize;
  }

  @Override
  public void put(byte[] key, byte[] value) {
    map.put(key, value);
  }

  @Override
  public byte[] get(byte[] key) {
    return map.get(key);
  }

  @Override
  public void close() {
    db.close();
    db = null;
    map = null;
  }

  @Override
  public boolean persistent() {
    return true;
  }
}
