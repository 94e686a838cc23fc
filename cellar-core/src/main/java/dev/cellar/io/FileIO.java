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

  /**
   * Opens {@code path} for reads that bypass the page cache: the platform opens it with {@code
   * O_DIRECT} (and fails where the file system refuses that). This default reads through {@link
   * #openReadOnly}, which is what a substitute file system that has no page cache to bypass needs.
   */
  default DirectReader openDirect(Path path) throws IOException {
    StoreFile file = openReadOnly(path);
    return new DirectReader() {
      private volatile boolean closed;

      @Override
      public long read(long position, java.lang.foreign.MemorySegment into) throws IOException {
        if (closed) {
          throw new IllegalStateException(path.getFileName() + " is closed");
        }
        java.nio.ByteBuffer buffer = into.asByteBuffer();
        long done = 0;
        while (buffer.hasRemaining()) {
          int n = file.read(buffer, position + done);
          if (n <= 0) {
            break;
          }
          done += n;
        }
        return done;
      }

      @Override
      public void close() {
        closed = true;
        try {
          file.close();
        } catch (IOException e) {
          // read-only: nothing to lose
        }
      }
    };
  }

  /**
   * Opens {@code path}, an existing file, for appends written with {@code O_DIRECT} from memory of
   * {@code capacity} bytes allocated in {@code arena} (see {@link DirectAppender}); {@code
   * hugePages} asks for transparent huge pages for that memory. Returns null where that cannot be
   * done (this default: a substitute file system; on the platform, a file system that refuses
   * {@code O_DIRECT}, such as tmpfs), and the segment is then appended through a shared mapping of
   * the file, as in {@code io buffered}.
   */
  default DirectAppender openDirectAppender(
      Path path, long capacity, boolean hugePages, java.lang.foreign.Arena arena)
      throws IOException {
    return null;
  }

  /**
   * What reads a batch's blocks at once for {@link #openDirect}'s files: the platform uses io_uring
   * where it can. This default reads them one after another, through the readers.
   */
  default BlockReads blockReads() {
    return BlockReads.serial();
  }
}
