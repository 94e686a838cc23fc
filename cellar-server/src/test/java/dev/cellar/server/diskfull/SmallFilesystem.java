package dev.cellar.server.diskfull;

import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real, small file system to fill up: an ext4 image mounted through a loop device (or, where that
 * fails, a size-limited tmpfs), or a tmpfs. Mounting needs root (CI runs as root); elsewhere the
 * test is skipped with a message saying so, never passed. {@link #close()} unmounts and removes the
 * image.
 *
 * <p>Both kinds matter: they fail differently. ext4 reserves blocks for fallocate and reads holes
 * for free; tmpfs allocates memory for every page faulted in, holes read through a mapping too.
 */
final class SmallFilesystem implements AutoCloseable {
  /** Which file system to mount. */
  enum Type {
    EXT4,
    TMPFS
  }

  private final Path mountPoint;
  private final Path image;
  private final String kind;

  private SmallFilesystem(Path mountPoint, Path image, String kind) {
    this.mountPoint = mountPoint;
    this.image = image;
    this.kind = kind;
  }

  /** Mounts a file system of about {@code bytes} under {@code work}, or skips the calling test. */
  static SmallFilesystem mount(Path work, long bytes, Type type)
      throws IOException, InterruptedException {
    assumeTrue(
        System.getProperty("os.name").startsWith("Linux"),
        "disk-full tests mount a file system: Linux only");
    Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    assumeTrue(
        Integer.valueOf(0).equals(uid),
        "disk-full tests mount a small file system and need root (CI runs as root); skipped as uid "
            + uid);
    Path mountPoint = Files.createDirectories(work.resolve("mnt"));
    String ext4 = "not tried";
    if (type == Type.EXT4) {
      Path image = work.resolve("fs.img");
      try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
        file.setLength(bytes);
      }
      // -m 0: no blocks reserved for root, so "full" is the same for every user.
      ext4 = run("mkfs.ext4", "-q", "-F", "-m", "0", image.toString());
      if (ext4 == null) {
        ext4 = run("mount", "-o", "loop", image.toString(), mountPoint.toString());
        if (ext4 == null) {
          return new SmallFilesystem(mountPoint, image, "ext4 on a loop device");
        }
      }
      Files.deleteIfExists(image);
    }
    String tmpfs =
        run("mount", "-t", "tmpfs", "-o", "size=" + bytes, "tmpfs", mountPoint.toString());
    if (tmpfs == null) {
      return new SmallFilesystem(mountPoint, null, "tmpfs");
    }
    abort(
        "cannot mount a small file system (ext4 loop: "
            + ext4
            + "; tmpfs: "
            + tmpfs
            + "); disk-full tests skipped");
    throw new AssertionError("unreachable");
  }

  Path root() {
    return mountPoint;
  }

  String kind() {
    return kind;
  }

  long usableBytes() throws IOException {
    return Files.getFileStore(mountPoint).getUsableSpace();
  }

  /** Writes a file of {@code bytes} (real blocks, not a sparse file) to take space. */
  Path ballast(String name, long bytes) throws IOException {
    Path file = mountPoint.resolve(name);
    try (FileChannel out =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
      for (long written = 0; written < bytes; ) {
        chunk.clear().limit((int) Math.min(chunk.capacity(), bytes - written));
        written += out.write(chunk);
      }
      out.force(true);
    }
    return file;
  }

  /**
   * Writes a file until the file system is full, and keeps it full: space freed after the first
   * refusal (ext4 hands back a deleted file's blocks only when its journal commits, and a
   * background checkpoint that fails removes its temporary file) is taken too, until the space
   * stays at zero across a journal commit and a quiet moment. Returns the file.
   */
  Path fillUp(String name) throws IOException, InterruptedException {
    Path file = mountPoint.resolve(name);
    try (FileChannel out =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer chunk = ByteBuffer.allocateDirect(64 << 10);
      for (int round = 0; round < 20; round++) {
        // Smaller and smaller writes, down to below the smallest block size, take the last blocks.
        for (int size = chunk.capacity(); size >= 512; size /= 8) {
          try {
            while (true) {
              chunk.clear().limit(size);
              out.write(chunk);
            }
          } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left")) {
              throw e;
            }
          }
        }
        String synced = run("sync", "-f", mountPoint.toString());
        if (synced != null) {
          throw new IOException("sync -f " + mountPoint + ": " + synced);
        }
        Thread.sleep(300);
        if (usableBytes() == 0) {
          return file;
        }
      }
    }
    throw new IOException(mountPoint + " does not stay full: " + usableBytes() + " bytes free");
  }

  @Override
  public void close() throws IOException, InterruptedException {
    String failure = run("umount", mountPoint.toString());
    if (failure != null) {
      // Something still holds a file open (a child that has not exited yet): detach it now; the
      // kernel finishes once the last file closes.
      failure = run("umount", "-l", mountPoint.toString());
    }
    if (image != null) {
      Files.deleteIfExists(image);
    }
    if (failure != null) {
      throw new IOException("cannot unmount " + mountPoint + ": " + failure);
    }
  }

  /** Runs a command; returns null on success, else what it printed. */
  private static String run(String... command) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(command));
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      return e.getMessage();
    }
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return String.join(" ", command) + " did not finish";
    }
    return p.exitValue() == 0
        ? null
        : String.join(" ", command) + ": exit " + p.exitValue() + ": " + output;
  }
}
