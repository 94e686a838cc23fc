package dev.cellar.platform;

import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** {@link FileIO} over the operating system's file system. */
public final class PlatformFileIO implements FileIO {
  /** The one instance; {@link FileIO#platform()} hands it out. */
  public static final PlatformFileIO INSTANCE = new PlatformFileIO();

  private PlatformFileIO() {}

  @Override
  public StoreFile open(Path path, boolean create) throws IOException {
    FileChannel channel =
        create
            ? FileChannel.open(
                path, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE)
            : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
    return new PlatformStoreFile(path, channel, true);
  }

  @Override
  public StoreFile openReadOnly(Path path) throws IOException {
    return new PlatformStoreFile(path, FileChannel.open(path, StandardOpenOption.READ), false);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  @Override
  public void delete(Path path) throws IOException {
    Files.deleteIfExists(path);
  }

  @Override
  public void syncDirectory(Path directory) throws IOException {
    // On Linux a directory opened for reading can be fsynced, which persists its entries.
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  @Override
  public List<Path> list(Path directory) throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
      for (Path entry : entries) {
        if (Files.isRegularFile(entry)) {
          files.add(entry);
        }
      }
    }
    files.sort(null);
    return files;
  }

  @Override
  public void createDirectories(Path directory) throws IOException {
    Files.createDirectories(directory);
  }

  /** With {@code O_DIRECT}, through FFM ({@link DirectFile}). */
  @Override
  public dev.cellar.io.DirectReader openDirect(Path path) throws IOException {
    return DirectFile.open(path);
  }

  /** With {@code O_DIRECT} and anonymous memory, through FFM ({@link DirectAppendFile}). */
  @Override
  public dev.cellar.io.DirectAppender openDirectAppender(
      Path path, long capacity, boolean hugePages, java.lang.foreign.Arena arena)
      throws IOException {
    return DirectAppendFile.open(path, capacity, hugePages, arena);
  }

  /**
   * io_uring ({@link UringBlockReads}) where the kernel allows it, else a pool of 16 threads. The
   * system property {@code cellar.io.batchReads} ({@link IoSwitches#batchReads}) picks one, to
   * measure them against each other ({@code cellar bench io}).
   */
  @Override
  public dev.cellar.io.BlockReads blockReads() {
    String choice = IoSwitches.batchReads();
    if (choice.equals("serial")) {
      return dev.cellar.io.BlockReads.serial();
    }
    if (!choice.equals("pool")) {
      dev.cellar.io.BlockReads uring = UringBlockReads.open();
      if (uring != null) {
        return uring;
      }
    }
    return new dev.cellar.io.PooledBlockReads(16);
  }
}
