package dev.cellar.io;

import dev.cellar.platform.PlatformFileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The one seam through which the engine touches the file system, in the spirit of LevelDB's {@code
 * Env}. The platform implementation talks to the OS; tests substitute implementations that fail the
 * Nth call, drop unsynced writes or fill the disk.
 *
 * <p>Durability contract the engine relies on: data written to a {@link StoreFile} (by {@code
 * write} or through a writable mapping) is on stable storage once {@link StoreFile#force()}
 * returns; a new or renamed directory entry is on stable storage once {@link #syncDirectory}
 * returns.
 */
public interface FileIO {
  /** The real file system. */
  static FileIO platform() {
    return PlatformFileIO.INSTANCE;
  }

  /** Opens {@code path} for reading and writing, creating it when {@code create} is set. */
  StoreFile open(Path path, boolean create) throws IOException;

  /** Opens {@code path} for reading only. */
  StoreFile openReadOnly(Path path) throws IOException;

  /** Atomically replaces {@code target} with {@code source}. */
  void rename(Path source, Path target) throws IOException;

  /** Deletes {@code path} if it exists. */
  void delete(Path path) throws IOException;

  /** Makes the directory's entries (creations, renames, deletions) durable. */
  void syncDirectory(Path directory) throws IOException;

  /** The regular files directly inside {@code directory}, sorted by name. */
  List<Path> list(Path directory) throws IOException;

  /** Creates {@code directory} and its parents if missing. */
  void createDirectories(Path directory) throws IOException;
}
