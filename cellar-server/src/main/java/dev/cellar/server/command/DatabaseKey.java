package dev.cellar.server.command;

import java.nio.ByteBuffer;

/**
 * A key named with its database, for the maps that track keys across clients (watched keys, blocked
 * clients). A key of database 0 is its bytes alone ({@link ByteBuffer}), as it was before there
 * were several databases; another database's is this record, which never equals a buffer.
 */
record DatabaseKey(int database, ByteBuffer key) {
  /** The map key of {@code key} in database {@code database}. */
  static Object of(int database, byte[] key) {
    return database == 0 ? ByteBuffer.wrap(key) : new DatabaseKey(database, ByteBuffer.wrap(key));
  }

  /** The key's bytes, of a map key made by {@link #of}. */
  static byte[] bytes(Object mapKey) {
    return mapKey instanceof DatabaseKey k ? k.key().array() : ((ByteBuffer) mapKey).array();
  }

  /** The database of a map key made by {@link #of}. */
  static int database(Object mapKey) {
    return mapKey instanceof DatabaseKey k ? k.database() : 0;
  }
}
