package dev.cellar.platform;

import dev.cellar.io.StoreFile;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;

/**
 * A {@link StoreFile} over a {@link FileChannel}. Block reservation uses {@code posix_fallocate}
 * through {@link NativeFileOps} when the JVM grants native access, and otherwise writes zeros,
 * which reserves the same blocks at the cost of writing them once.
 */
final class PlatformStoreFile implements StoreFile {
  private static final int ZERO_CHUNK = 1 << 20;

  private final Path path;
  private final FileChannel channel;
  private final boolean writable;

  /**
   * A second descriptor of the file, for {@code posix_fallocate}, opened on the first reservation
   * and kept: a log reserves space chunk by chunk, and reopening the file for each chunk cost two
   * syscalls a time. -1 until then; guarded by this.
   */
  private int reserveFd = -1;

  PlatformStoreFile(Path path, FileChannel channel, boolean writable) {
    this.path = path;
    this.channel = channel;
    this.writable = writable;
  }

  @Override
  public long size() throws IOException {
    return channel.size();
  }

  @Override
  public int read(ByteBuffer dst, long position) throws IOException {
    int total = 0;
    while (dst.hasRemaining()) {
      int n = channel.read(dst, position + total);
      if (n < 0) {
        return total == 0 ? -1 : total;
      }
      total += n;
    }
    return total;
  }

  @Override
  public void write(ByteBuffer src, long position) throws IOException {
    long at = position;
    while (src.hasRemaining()) {
      at += channel.write(src, at);
    }
  }

  @Override
  public MemorySegment map(MapKind kind, long offset, long length, Arena arena) throws IOException {
    FileChannel.MapMode mode =
        switch (kind) {
          case READ_ONLY -> FileChannel.MapMode.READ_ONLY;
          case READ_WRITE -> FileChannel.MapMode.READ_WRITE;
          case PRIVATE -> FileChannel.MapMode.PRIVATE;
        };
    return channel.map(mode, offset, length, arena);
  }

  @Override
  public void releaseResidentPages(MemorySegment mapping) {
    MemoryAdvice.dontNeed(mapping);
  }

  /** {@code MADV_DONTNEED} on the mapping, then {@code POSIX_FADV_DONTNEED} on the file. */
  @Override
  public void dropCachedPages(MemorySegment mapping) {
    MemoryAdvice.dontNeed(mapping);
    if (NativeFileOps.available()) {
      try {
        NativeFileOps.dropCache(reserveFd());
      } catch (IOException e) {
        // a hint: the pages leave the page cache when the kernel needs the memory
      }
    }
  }

  @Override
  public void allocate(long offset, long length) throws IOException {
    if (NativeFileOps.available()) {
      NativeFileOps.fallocate(reserveFd(), path, offset, length);
      return;
    }
    ByteBuffer zeros = ByteBuffer.allocateDirect(ZERO_CHUNK);
    for (long at = offset; at < offset + length; at += ZERO_CHUNK) {
      zeros.clear().limit((int) Math.min(ZERO_CHUNK, offset + length - at));
      write(zeros, at);
    }
  }

  @Override
  public void truncate(long length) throws IOException {
    if (length < channel.size()) {
      channel.truncate(length);
    } else if (length > channel.size()) {
      // FileChannel.truncate never grows a file; one byte at the new end does, leaving a hole.
      channel.write(ByteBuffer.wrap(new byte[1]), length - 1);
    }
  }

  @Override
  public void force() throws IOException {
    channel.force(false);
  }

  @Override
  public FileLock tryLock() throws IOException {
    try {
      return writable ? channel.tryLock() : null;
    } catch (OverlappingFileLockException e) {
      return null;
    }
  }

  private synchronized int reserveFd() throws IOException {
    if (reserveFd < 0) {
      reserveFd = NativeFileOps.open(path);
    }
    return reserveFd;
  }

  @Override
  public void close() throws IOException {
    synchronized (this) {
      if (reserveFd >= 0) {
        NativeFileOps.close(reserveFd);
        reserveFd = -1;
      }
    }
    channel.close();
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
