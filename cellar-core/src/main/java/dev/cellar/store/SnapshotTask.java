package dev.cellar.store;

import dev.cellar.StoreSnapshot;
import dev.cellar.checkpoint.CheckpointDescriptor;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a snapshot of an open store into a directory of its own, as RocksDB's checkpoint does: the
 * directory opens as the store was at one instant. Run under the maintenance lock, right after a
 * checkpoint, so that no compaction, sealing or checkpoint changes the set of files meanwhile.
 *
 * <h2>Links where the bytes are final, copies where they are not</h2>
 *
 * A sealed segment, a checkpoint and {@code cellar.meta} never change again while the store runs
 * (sealing rewrites a header once; a sealed segment is reopened for appends only at open), so they
 * are hard-linked: free, and still there if compaction deletes the store's name for them later. The
 * log's unsealed segments are still being appended to, and sealing will rewrite their header: they
 * are copied, header and records up to the end they had when the snapshot began, from the mapping.
 * That copy is the crash image of an unsealed segment, which an open of the snapshot recovers as an
 * open after a crash would (the end found by scanning, the segment then sealed). Records past that
 * end, appended meanwhile, are not in it; those before it never change.
 *
 * <p>A file system that refuses the link (the snapshot on another one) gets a copy instead.
 */
final class SnapshotTask {
  private final Path storeDirectory;
  private final SegmentTable segments;
  private final Path target;
  private final List<String> files = new ArrayList<>();
  private long linked;
  private long copied;

  SnapshotTask(Path storeDirectory, SegmentTable segments, Path target) {
    this.storeDirectory = storeDirectory;
    this.segments = segments;
    this.target = target;
  }

  /**
   * Writes the snapshot; the caller holds the maintenance lock and has just written checkpoint
   * {@code checkpointSequence}, which covers everything up to {@code lastSeq} or more.
   */
  StoreSnapshot write(long checkpointSequence, long lastSeq) throws IOException {
    prepareTarget();
    link(StoreMetaDescriptor.FILE_NAME);
    link(CheckpointDescriptor.fileName(checkpointSequence));
    for (Segment s : segments.all()) {
      if (s.obsolete()) {
        continue; // replaced by compaction: the checkpoint does not name it, an open would delete
        // it
      }
      if (s.state() == Segment.State.SEALED) {
        link(s.path().getFileName().toString());
      } else {
        copyUnsealed(s);
      }
    }
    fsyncDirectory(target);
    return new StoreSnapshot(target, lastSeq, files, linked, copied);
  }

  private void prepareTarget() throws IOException {
    if (Files.exists(target)) {
      try (var entries = Files.list(target)) {
        if (entries.findAny().isPresent()) {
          throw new FileAlreadyExistsException(
              target.toString(), null, "a snapshot needs an empty or new directory");
        }
      }
    }
    Files.createDirectories(target);
  }

  private void link(String name) throws IOException {
    Path from = storeDirectory.resolve(name);
    Path to = target.resolve(name);
    long size = Files.size(from);
    try {
      Files.createLink(to, from);
      linked += size;
    } catch (UnsupportedOperationException | IOException crossDevice) {
      Files.deleteIfExists(to);
      Files.copy(from, to);
      fsync(to);
      copied += size;
    }
    files.add(name);
  }

  /** Copies the header and the records up to the segment's end now, from the mapping, and syncs. */
  private void copyUnsealed(Segment s) throws IOException {
    String name = s.path().getFileName().toString();
    long end = s.end();
    MemorySegment memory = s.memory();
    try (FileChannel out =
        FileChannel.open(
            target.resolve(name), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer bytes = memory.asSlice(0, end).asByteBuffer();
      while (bytes.hasRemaining()) {
        out.write(bytes);
      }
      out.force(true);
    }
    copied += end;
    files.add(name);
  }

  private static void fsync(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
  }

  private static void fsyncDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Some file systems refuse to sync a directory; the files themselves are synced.
    }
  }
}
