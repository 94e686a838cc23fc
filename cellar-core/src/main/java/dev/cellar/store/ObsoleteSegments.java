package dev.cellar.store;

import dev.cellar.io.FileIO;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Segments that compaction has replaced, kept until they can be deleted: after a later checkpoint
 * (which no longer names them) is durable, and when no cursor is open (a cursor may still be
 * reading them; it pins nothing else). Until then recovery may still need them, and they count as
 * garbage in the store's figures.
 *
 * <p>Thread-safe: compaction adds, checkpoints delete, cursors open and close on any thread.
 */
final class ObsoleteSegments {
  private final SegmentTable segments;
  private final FileIO io;
  private final Path directory;
  private final List<Segment> obsolete = new ArrayList<>();
  private final AtomicInteger openCursors = new AtomicInteger();

  ObsoleteSegments(SegmentTable segments, FileIO io, Path directory) {
    this.segments = segments;
    this.io = io;
    this.directory = directory;
  }

  void add(Segment segment) {
    synchronized (obsolete) {
      segment.markObsolete();
      obsolete.add(segment);
    }
  }

  /** Bytes of the segments waiting for a checkpoint to be deleted. */
  long bytes() {
    synchronized (obsolete) {
      long bytes = 0;
      for (Segment s : obsolete) {
        bytes += s.end();
      }
      return bytes;
    }
  }

  int count() {
    synchronized (obsolete) {
      return obsolete.size();
    }
  }

  /** The segments a checkpoint about to be written will make deletable. */
  List<Segment> snapshot() {
    synchronized (obsolete) {
      return new ArrayList<>(obsolete);
    }
  }

  void cursorOpened() {
    openCursors.incrementAndGet();
  }

  void cursorClosed() {
    openCursors.decrementAndGet();
  }

  /** Deletes {@code deletable} (a {@link #snapshot()} taken before a durable checkpoint). */
  void delete(List<Segment> deletable) throws IOException {
    if (deletable.isEmpty() || openCursors.get() > 0) {
      return;
    }
    for (Segment s : deletable) {
      if (!s.tryRetire()) {
        continue; // a change stream is reading it; it stays obsolete for the next checkpoint
      }
      segments.remove(s);
      s.close();
      io.delete(s.path());
      synchronized (obsolete) {
        obsolete.remove(s);
      }
    }
    io.syncDirectory(directory);
  }
}
