package dev.cellar.checkpoint;

/**
 * A live segment as a checkpoint records it: where its records are in the index (slot) and the
 * accounting that guides compaction.
 */
public record SegmentEntry(
    long segmentId,
    int slot,
    short kind,
    long deadBytes,
    long ttlLiveBytes,
    long maxExpiry,
    long minSeq,
    long maxSeq) {}
