package dev.cellar.server.command;

/** What commands may ask of the running server as a whole. */
public interface ServerControl {
  /** Stops the server after flushing, fsyncing and checkpointing ({@code SHUTDOWN}). */
  void shutdownAsync();

  /** Starts a checkpoint in the background ({@code BGSAVE}); false if one is running. */
  boolean checkpointAsync();

  /** Notes that a SAVE or BGSAVE ended well now ({@code LASTSAVE}). */
  default void saved() {}

  /** When the last SAVE or BGSAVE ended well, epoch seconds ({@code LASTSAVE}). */
  default long lastSaveEpochSeconds() {
    return 0;
  }

  /** Why the last BGSAVE failed, or null ({@code INFO}'s {@code cellar_last_bgsave_error}). */
  default String lastSaveFailure() {
    return null;
  }

  /** The manifest key of the last backup BGSAVE made, or null. */
  default String lastBackup() {
    return null;
  }

  /** Starts a compaction pass in the background ({@code BGREWRITEAOF}); false if one is running. */
  boolean compactAsync();

  /**
   * Whether a checkpoint started by {@code BGSAVE} is running ({@code INFO}'s {@code
   * rdb_bgsave_in_progress}).
   */
  boolean checkpointRunning();

  /**
   * Whether a compaction started by {@code BGREWRITEAOF} is running ({@code
   * aof_rewrite_in_progress}).
   */
  boolean compactionRunning();

  /**
   * The shared-memory endpoint's discovery file (absolute), or null when same-host clients cannot
   * connect that way ({@code ipc no}, or a host without it).
   */
  default java.nio.file.Path ipcDiscovery() {
    return null;
  }

  /** The network transport in use ({@code io_uring}, {@code epoll} or {@code nio}). */
  String transport();

  /** The plaintext RESP port; 0 when it is off. */
  int port();

  /**
   * Moves plaintext RESP to {@code port} ({@code CONFIG SET port}); 0 stops it. The old port stays
   * if the new one cannot be bound.
   *
   * @throws IllegalStateException if {@code port} cannot be bound
   */
  default void listenOn(int port) {
    throw new IllegalStateException("this server cannot change its port");
  }

  /** The TLS RESP port; 0 when TLS is off. */
  int tlsPort();

  int httpPort();

  int httpsPort();
}
