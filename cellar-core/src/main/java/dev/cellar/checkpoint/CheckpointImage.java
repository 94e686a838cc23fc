package dev.cellar.checkpoint;

import java.nio.file.Path;
import java.util.List;

/**
 * A verified checkpoint: its position in the log and segment table. The shard slot arrays are
 * handed out by {@link CheckpointReader.OpenCheckpoint#loadShards}.
 */
public record CheckpointImage(
    Path path,
    long sequence,
    long replayFromSegment,
    long replayFromOffset,
    long nextSeq,
    List<SegmentEntry> segments) {}
