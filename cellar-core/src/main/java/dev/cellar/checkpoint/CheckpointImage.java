package dev.cellar.checkpoint;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

/**
 * A checkpoint as read back: the segment table and, per shard, its slot array mapped
 * copy-on-write, each owned by its own arena (the index adopts it; writes go to private pages).
 */
public record CheckpointImage(
    Path path,
    long sequence,
    long replayFromSegment,
    long replayFromOffset,
    long nextSeq,
    List<SegmentEntry> segments,
    MemorySegment[] shardSlots,
    long[] shardSizes) {}
