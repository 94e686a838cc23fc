package dev.cellar.io;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link FileIO} over the real file system that can pretend the disk is full (block reservations
 * and writes fail with ENOSPC), that fsync fails, or that fsync is free (for fuzz targets that open
 * thousands of stores and test anything but durability). Toggle the switches from a test. It can
 * also wrap another seam, such as a {@link SimulatedFileIO}, to put these faults on a simulated
 * disk.
 */
public final class FaultInjectingFileIO implements FileIO {
  private final FileIO real;
  public volatile boolean diskFull;
  public volatile boolean fsyncFails;
  public volatile boolean fsyncSkipped;

  /**
   * Run at each directory fsync, before it: a test's look at a store between two steps that end
   * with one (a compaction pass's outputs are sealed and renamed, its victims not yet retired).
   */
  public volatile Runnable atDirectorySync = () -> {};

  /**
   * Every fsync refused while {@link #fsyncFails} was set, counted as it is refused: a test that
   * reads the store's own fsync count instead races with a maintenance thread whose fsync began
   * before the fault and is counted only after it returns.
   */
  public final AtomicLong refusedFsyncs = new AtomicLong();

  /** Faults on the real file system. */
  public FaultInjectingFileIO() {
    this(FileIO.platform());
  }

  /** Faults on {@code real}. */
  public FaultInjectingFileIO(FileIO real) {
    this.real = real;
  }

  @Override
  public StoreFile open(Path path, boolean create) throws IOException {
    if (create && diskFull && !exists(path)) {
      throw new IOException("No space left on device: " + path);
    }
    return new Faulty(real.open(path, create));
  }

  private boolean exists(Path path) throws IOException {
    return real == FileIO.platform()
        ? java.nio.file.Files.exists(path)
        : real.list(path.getParent()).contains(path);
  }

  @Override
  public StoreFile openReadOnly(Path path) throws IOException {
    return real.openReadOnly(path);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    real.rename(source, target);
  }

  @Override
  public void delete(Path path) throws IOException {
    real.delete(path);
  }

  @Override
  public void syncDirectory(Path directory) throws IOException {
    atDirectorySync.run();
    if (!fsyncSkipped) {
      real.syncDirectory(directory);
    }
  }

  @Override
  public List<Path> list(Path directory) throws IOException {
    return real.list(directory);
  }

  @Override
  public void createDirectories(Path directory) throws IOException {
    real.createDirectories(directory);
  }

  private final class Faulty implements StoreFile {
    private final StoreFile file;

    Faulty(StoreFile file) {
      this.file = file;
    }

    @Override
    public long size() throws IOException {
      return file.size();
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return file.read(dst, position);
    }

    @Override
    public void write(ByteBuffer src, long position) throws IOException {
      if (diskFull && position + src.remaining() > file.size()) {
        throw new IOException("No space left on device");
      }
      file.write(src, position);
    }

    @Override
    public MemorySegment map(MapKind kind, long offset, long length, Arena arena)
        throws IOException {
      return file.map(kind, offset, length, arena);
    }

    @Override
    public void allocate(long offset, long length) throws IOException {
      if (diskFull) {
        throw new IOException("No space left on device: cannot reserve " + length + " bytes");
      }
      file.allocate(offset, length);
    }

    @Override
    public void truncate(long length) throws IOException {
      file.truncate(length);
    }

    @Override
    public void force() throws IOException {
      if (fsyncFails) {
        refusedFsyncs.incrementAndGet();
        throw new IOException("Input/output error (injected fsync failure)");
      }
      if (!fsyncSkipped) {
        file.force();
      }
    }

    @Override
    public FileLock tryLock() throws IOException {
      return file.tryLock();
    }

    @Override
    public void close() throws IOException {
      file.close();
    }
  }
}
