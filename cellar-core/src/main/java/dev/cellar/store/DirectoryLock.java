package dev.cellar.store;

import dev.cellar.StoreLockedException;
import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * An exclusive OS file lock on {@code LOCK} in the store directory, held while the store is open.
 * The holder writes its pid into the file so that the error a second opener gets can name it. The
 * OS releases the lock when the process dies, so a crash never leaves a stale lock.
 *
 * <p>POSIX record locks belong to the process, and closing <em>any</em> descriptor of the file
 * drops them all. So a second open in the same JVM must not even open {@code LOCK}: a JVM-wide set
 * of held directories answers it first.
 */
public final class DirectoryLock implements java.io.Closeable {
  static final String FILE_NAME = "LOCK";

  private static final java.util.Set<Path> HELD_IN_THIS_JVM =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final StoreFile file;
  private final FileLock lock;
  private final Path key;

  private DirectoryLock(StoreFile file, FileLock lock, Path key) {
    this.file = file;
    this.lock = lock;
    this.key = key;
  }

  /**
   * Takes the lock of {@code directory}, as opening a store does (public for the inspection API's
   * {@code StoreDirectory.holdExclusively}; this package is not exported).
   *
   * @throws StoreLockedException if a process holds it, naming the process when it can
   */
  public static DirectoryLock acquire(FileIO io, Path directory) throws IOException {
    Path key = directory.toRealPath();
    if (!HELD_IN_THIS_JVM.add(key)) {
      throw new StoreLockedException(
          "store directory "
              + directory
              + " is already open (held by pid "
              + ProcessHandle.current().pid()
              + ", this process); close the other instance or use another directory");
    }
    try {
      return lockFile(io, directory, key);
    } catch (IOException | RuntimeException e) {
      HELD_IN_THIS_JVM.remove(key);
      throw e;
    }
  }

  private static DirectoryLock lockFile(FileIO io, Path directory, Path key) throws IOException {
    Path path = directory.resolve(FILE_NAME);
    StoreFile file = io.open(path, true);
    FileLock lock;
    try {
      lock = file.tryLock();
    } catch (IOException e) {
      file.close();
      throw e;
    }
    if (lock == null) {
      String holder = readHolder(file);
      file.close();
      throw new StoreLockedException(
          "store directory "
              + directory
              + " is already open"
              + (holder.isEmpty() ? "" : " (held by " + holder + ")")
              + "; close the other instance or use another directory");
    }
    String me = "pid " + ProcessHandle.current().pid();
    file.truncate(0);
    file.write(ByteBuffer.wrap(me.getBytes(StandardCharsets.UTF_8)), 0);
    return new DirectoryLock(file, lock, key);
  }

  private static String readHolder(StoreFile file) {
    try {
      ByteBuffer buffer = ByteBuffer.allocate(64);
      int n = file.read(buffer, 0);
      return n <= 0 ? "" : new String(buffer.array(), 0, n, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      file.close();
      HELD_IN_THIS_JVM.remove(key);
    }
  }
}
