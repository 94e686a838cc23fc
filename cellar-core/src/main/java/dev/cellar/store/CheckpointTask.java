package dev.cellar.store;

import dev.cellar.checkpoint.CheckpointDescriptor;
import dev.cellar.checkpoint.CheckpointWriter;
import dev.cellar.checkpoint.SegmentEntry;
import dev.cellar.io.FileIO;
import dev.cellar.log.LogWriter;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentTable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Takes one checkpoint of a running store.
 *
 * <p>Consistency without stopping the world: the replay position is read <em>before</em> any shard
 * is copied, and each shard is copied under its own write lock. A record appended after the
 * position may or may not be in a shard's copy; replay from the position applies records by
 * sequence number, so both cases converge. Every record any copy points at is made durable before
 * the checkpoint is published.
 */
final class CheckpointTask {
  private final FileIO io;
  private final Path directory;
  private final Shard[] shards;
  private final SegmentTable segments;
  private final LogWriter log;
  private final boolean locksHeld;

  /** Makes every record appended so far durable, before the checkpoint that points at them. */
  private final Runnable syncAll;

  CheckpointTask(
      FileIO io,
      Path directory,
      Shard[] shards,
      SegmentTable segments,
      LogWriter log,
      boolean locksHeld,
      Runnable syncAll) {
    this.syncAll = syncAll;
    this.io = io;
    this.directory = directory;
    this.shards = shards;
    this.segments = segments;
    this.log = log;
    this.locksHeld = locksHeld;
  }

  void write(long sequence) throws IOException {
    LogWriter.Position from = log.position();
    long nextSeq = log.nextSeq();
    List<CheckpointWriter.ShardSource> sources = new ArrayList<>(shards.length);
    for (Shard shard : shards) {
      sources.add(sink -> copyShard(shard, sink));
    }
    CheckpointWriter.write(
        io,
        directory,
        sequence,
        from.segmentId(),
        from.offset(),
        nextSeq,
        this::segmentEntries,
        sources,
        syncAll::run);
    for (Path file : io.list(directory)) {
      long other = CheckpointDescriptor.sequenceOf(file.getFileName().toString());
      if (other >= 0 && other != sequence) {
        io.delete(file);
      }
    }
  }

  /**
   * The segment table, read after every shard is copied: a segment created while the copies were
   * made may be referenced by them and must be named with its slot.
   */
  private List<SegmentEntry> segmentEntries() {
    List<SegmentEntry> entries = new ArrayList<>();
    for (Segment s : segments.all()) {
      if (!s.obsolete()) {
        entries.add(
            new SegmentEntry(
                s.id(),
                s.slot(),
                s.kind(),
                s.deadBytes(),
                s.ttlLiveBytes(),
                s.maxExpiry(),
                s.minSeq() == Long.MAX_VALUE ? 0 : s.minSeq(),
                s.maxSeq()));
      }
    }
    return entries;
  }

  private void copyShard(Shard shard, CheckpointWriter.SlotSink sink) throws IOException {
    long stamp = locksHeld ? 0 : shard.lock.writeLock();
    try {
      shard.index.completeMigration();
      sink.accept(shard.index.slots(), shard.index.size(), shard.elements);
    } finally {
      if (!locksHeld) {
        shard.lock.unlockWrite(stamp);
      }
    }
  }
}
