package dev.cellar.inspect;

import dev.cellar.checkpoint.CheckpointImage;
import dev.cellar.checkpoint.CheckpointReader;
import dev.cellar.checkpoint.SegmentEntry;
import dev.cellar.io.FileIO;
import dev.cellar.log.SegmentHeaderDescriptor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A checkpoint read and fully verified by the engine's own {@code CheckpointReader} (header, both
 * CRCs, shard blocks, segment table; {@code docs/format/checkpoint.md}), summarised for a tool.
 *
 * @param name the file name
 * @param sequence the sequence in the file name
 * @param shards shards in the checkpoint
 * @param keys keys over all shards
 * @param replayFromSegment id of the segment where replay after this checkpoint starts
 * @param replayFromOffset offset in that segment where replay starts
 * @param nextSeq the log's next sequence number when the checkpoint was taken
 * @param segments its segment table, in file order
 */
public record CheckpointFile(
    String name,
    long sequence,
    int shards,
    long keys,
    long replayFromSegment,
    long replayFromOffset,
    long nextSeq,
    List<Entry> segments) {

  /**
   * One entry of the segment table: a live segment and its accounting.
   *
   * @param slot the segment's slot, the high bits of the index locations that point into it
   * @param compacted whether the entry says the segment was written by compaction
   */
  public record Entry(
      long segmentId,
      int slot,
      boolean compacted,
      long deadBytes,
      long ttlLiveBytes,
      long maxExpiry,
      long minSeq,
      long maxSeq) {}

  /**
   * Why a checkpoint cannot be used; the message starts with the file name. An open would skip it.
   */
  public static final class Invalid extends Exception {
    Invalid(String message) {
      super(message);
    }
  }

  /**
   * Reads and verifies {@code path}, which must have {@code shards} shards (the store's, from
   * {@link StoreMetaFile}). Read-only.
   *
   * @throws dev.cellar.IncompatibleFormatException when the checkpoint is of another major version:
   *     an open refuses the store rather than skip it
   */
  public static CheckpointFile read(Path path, int shards) throws IOException, Invalid {
    try (CheckpointReader.OpenCheckpoint open =
        CheckpointReader.open(FileIO.platform(), path, shards)) {
      long[] keys = {0};
      int[] shardCount = {0};
      open.loadShards(
          (shard, slots, keyCount, elementCount) -> {
            keys[0] += keyCount;
            shardCount[0]++;
          });
      CheckpointImage image = open.image();
      return new CheckpointFile(
          path.getFileName().toString(),
          image.sequence(),
          shardCount[0],
          keys[0],
          image.replayFromSegment(),
          image.replayFromOffset(),
          image.nextSeq(),
          image.segments().stream().map(CheckpointFile::entry).toList());
    } catch (CheckpointReader.Invalid e) {
      throw new Invalid(e.getMessage());
    }
  }

  private static Entry entry(SegmentEntry e) {
    return new Entry(
        e.segmentId(),
        e.slot(),
        e.kind() == SegmentHeaderDescriptor.KIND_COMPACTED,
        e.deadBytes(),
        e.ttlLiveBytes(),
        e.maxExpiry(),
        e.minSeq(),
        e.maxSeq());
  }
}
