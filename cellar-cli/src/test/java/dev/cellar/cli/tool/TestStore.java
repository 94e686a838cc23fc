package dev.cellar.cli.tool;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.inspect.SegmentFile;
import dev.cellar.inspect.StoreDirectory;
import dev.cellar.log.SegmentHeaderDescriptor;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * A small real store for the tool tests, written through the public API, and ways to damage its
 * files as a disk or a crash would.
 */
final class TestStore {
  static final int PUTS = 3000;
  static final int DELETES = 500;
  static final int EXPIRING = 50;

  /** A key that is not printable, to see it escaped. */
  static final byte[] BINARY_KEY = {'b', 'i', 'n', 0, (byte) 0xFF, '"'};

  private TestStore() {}

  /**
   * Small segments, so that a few thousand records span several files; nothing runs behind our
   * back.
   */
  static CellarOptions options() {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(CellarOptions.MIN_SEGMENT_BYTES)
        .maxKeyBytes(1024)
        .maxValueBytes(4096)
        .shards(4)
        .backgroundCompaction(false)
        .checkpointInterval(Duration.ZERO);
  }

  static byte[] key(int n) {
    return ("user:" + n).getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] value(int n) {
    return ("value-" + n + "-" + "x".repeat(40)).getBytes(StandardCharsets.US_ASCII);
  }

  /** Writes {@link #PUTS} puts, {@link #DELETES} deletes and a few expiring puts, then closes. */
  static Path create(Path directory) {
    try (Cellar db = Cellar.open(directory, options())) {
      for (int n = 0; n < PUTS; n++) {
        db.put(key(n), value(n));
      }
      for (int n = 0; n < DELETES; n++) {
        db.delete(key(n * 2));
      }
      for (int n = 0; n < EXPIRING; n++) {
        db.put(("session:" + n).getBytes(StandardCharsets.US_ASCII), value(n), Duration.ofDays(1));
      }
      db.put(BINARY_KEY, new byte[] {1, 2, 3});
    }
    return directory;
  }

  /**
   * Reopens the store, writes {@code extraPuts} more puts (after its last checkpoint) and copies
   * its files to {@code image} while it is still open: what a kill -9 at that moment would leave
   * (with fsync NO every write is in the page cache, which the copy reads).
   */
  static Path crashImage(Path directory, Path image, int extraPuts) throws IOException {
    Files.createDirectories(image);
    try (Cellar db = Cellar.open(directory, options())) {
      for (int n = 0; n < extraPuts; n++) {
        db.put(("late:" + n).getBytes(StandardCharsets.US_ASCII), value(n));
      }
      try (var files = Files.list(directory)) {
        for (Path file : files.toList()) {
          Files.copy(file, image.resolve(file.getFileName()));
        }
      }
    }
    return image;
  }

  /** Offset and length of the last valid record of a segment. */
  static long[] lastRecord(Path segment) throws IOException {
    long[] last = new long[2];
    try (SegmentFile file = SegmentFile.open(segment)) {
      file.scan(
          r -> {
            last[0] = r.offset();
            last[1] = r.length();
          });
    }
    return last;
  }

  static List<Path> segments(Path directory) throws IOException {
    return StoreDirectory.list(directory).segments();
  }

  static long sealedLength(Path segment) throws IOException {
    try (SegmentFile file = SegmentFile.open(segment)) {
      return file.declaredEnd();
    }
  }

  static void flipByte(Path file, long offset) throws IOException {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      channel.read(b, offset);
      b.put(0, (byte) (b.get(0) ^ 0x5A)).rewind();
      channel.write(b, offset);
    }
  }

  static void zero(Path file, long offset, int length) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.allocate(length), offset);
    }
  }

  static void truncate(Path file, long length) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(length);
    }
  }

  /**
   * Rewrites a segment's header as unsealed: the state a crash leaves the segment being written in.
   */
  static void unseal(Path segment) throws IOException {
    try (FileChannel channel =
            FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE);
        Arena arena = Arena.ofConfined()) {
      MemorySegment header =
          channel.map(FileChannel.MapMode.READ_WRITE, 0, SegmentHeaderDescriptor.LENGTH, arena);
      SegmentHeaderDescriptor.writeOpen(
          header,
          SegmentHeaderDescriptor.kind(header),
          SegmentHeaderDescriptor.id(header),
          SegmentHeaderDescriptor.createdMillis(header));
      header.force();
    }
  }
}
