package dev.cellar.checkpoint;

import static dev.cellar.checkpoint.CheckpointDescriptor.*;

import dev.cellar.IncompatibleFormatException;
import dev.cellar.index.HashIndex;
import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import dev.cellar.log.Crc32c;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and verifies a checkpoint. Every check that fails yields a {@link Invalid} with the reason
 * (the caller falls back to an older checkpoint or to a full log replay, since a checkpoint is only
 * ever an accelerator); a newer major version is refused outright.
 */
public final class CheckpointReader {
  private static final ValueLayout.OfShort SHORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final long MAX_SLOTS_PER_SHARD = 1L << 40;

  private CheckpointReader() {}

  /** Why a checkpoint could not be used. */
  public static final class Invalid extends Exception {
    public Invalid(String message) {
      super(message);
    }
  }

  /** Receives one shard's slots; the memory is valid only during the call. */
  public interface ShardLoader {
    void load(int shard, MemorySegment slots, long keyCount);
  }

  /**
   * Opens and fully verifies {@code path} (header, body CRC, shard and segment tables), expecting
   * {@code expectedShards} shards. Read-only: tools may use it on files they cannot write.
   */
  public static OpenCheckpoint open(FileIO io, Path path, int expectedShards)
      throws IOException, Invalid {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      throw new Invalid(
          "checkpoints are little-endian and this machine is not; replaying the log instead");
    }
    Arena arena = Arena.ofConfined();
    try (StoreFile file = io.openReadOnly(path)) {
      long size = file.size();
      if (size < HEADER_LENGTH) {
        throw new Invalid(path.getFileName() + ": " + size + " bytes, shorter than its header");
      }
      MemorySegment all = file.map(StoreFile.MapKind.READ_ONLY, 0, size, arena);
      validateHeader(all, path, size, expectedShards);
      int segmentCount = all.get(INT, SEGMENT_COUNT_OFFSET);
      long entriesAt = entriesOffset(size, segmentCount);
      List<SegmentEntry> entries = readEntries(all, entriesAt, segmentCount, path);
      long at = FIRST_SHARD_OFFSET;
      long[] sizes = new long[expectedShards];
      long[] offsets = new long[expectedShards];
      long[] slotCounts = new long[expectedShards];
      for (int shard = 0; shard < expectedShards; shard++) {
        if (at + SHARD_HEADER_LENGTH > size) {
          throw new Invalid(path.getFileName() + ": shard " + shard + " header past end of file");
        }
        long count = all.get(LONG, at);
        sizes[shard] = all.get(LONG, at + 8);
        if (Long.bitCount(count) != 1
            || count > MAX_SLOTS_PER_SHARD
            || sizes[shard] < 0
            || sizes[shard] > count) {
          throw new Invalid(
              path.getFileName()
                  + ": shard "
                  + shard
                  + " has implausible sizes "
                  + count
                  + "/"
                  + sizes[shard]);
        }
        slotCounts[shard] = count;
        offsets[shard] = slotsOffset(at);
        at = offsets[shard] + count * 8;
        if (at > entriesAt) {
          throw new Invalid(
              path.getFileName() + ": shard " + shard + " slots overlap the segment table");
        }
        // The CRC proves the bytes are those written, not that the writer was right: the index
        // would loop forever on a full table or index out of bounds on a tiny one.
        String problem = HashIndex.checkSlots(all.asSlice(offsets[shard], count * 8), sizes[shard]);
        if (problem != null) {
          throw new Invalid(path.getFileName() + ": shard " + shard + ": " + problem);
        }
      }
      CheckpointImage image =
          new CheckpointImage(
              path,
              CheckpointDescriptor.sequenceOf(path.getFileName().toString()),
              all.get(LONG, REPLAY_SEGMENT_OFFSET),
              all.get(LONG, REPLAY_OFFSET_OFFSET),
              all.get(LONG, NEXT_SEQ_OFFSET),
              entries);
      return new OpenCheckpoint(image, arena, all, offsets, slotCounts, sizes);
    } catch (IOException | Invalid | RuntimeException e) {
      arena.close();
      throw e;
    }
  }

  /** A verified checkpoint, mapped until closed. */
  public static final class OpenCheckpoint implements AutoCloseable {
    private final CheckpointImage image;
    private final Arena arena;
    private final MemorySegment all;
    private final long[] offsets;
    private final long[] slotCounts;
    private final long[] sizes;

    private OpenCheckpoint(
        CheckpointImage image,
        Arena arena,
        MemorySegment all,
        long[] offsets,
        long[] slotCounts,
        long[] sizes) {
      this.image = image;
      this.arena = arena;
      this.all = all;
      this.offsets = offsets;
      this.slotCounts = slotCounts;
      this.sizes = sizes;
    }

    public CheckpointImage image() {
      return image;
    }

    /** Hands each shard's slot array to {@code loader}, in shard order. */
    public void loadShards(ShardLoader loader) {
      for (int shard = 0; shard < offsets.length; shard++) {
        loader.load(shard, all.asSlice(offsets[shard], slotCounts[shard] * 8), sizes[shard]);
      }
    }

    @Override
    public void close() {
      arena.close();
    }
  }

  private static void validateHeader(MemorySegment all, Path path, long size, int expectedShards)
      throws Invalid {
    String name = path.getFileName().toString();
    if (MemorySegment.mismatch(all, 0, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, MAGIC.length)
        != -1) {
      throw new Invalid(name + ": bad magic, not a Cellar checkpoint");
    }
    if (all.get(INT, HEADER_CRC_OFFSET) != Crc32c.masked(all, 0, HEADER_CRC_OFFSET)) {
      throw new Invalid(name + ": header checksum mismatch");
    }
    short major = all.get(SHORT, MAJOR_OFFSET);
    if (major != MAJOR_VERSION) {
      throw new IncompatibleFormatException(
          name
              + " is checkpoint format version "
              + major
              + "."
              + all.get(SHORT, MINOR_OFFSET)
              + "; this build reads version "
              + MAJOR_VERSION
              + ".x only");
    }
    if (all.get(INT, SHARDS_OFFSET) != expectedShards) {
      throw new Invalid(
          name + ": " + all.get(INT, SHARDS_OFFSET) + " shards, the store has " + expectedShards);
    }
    long length = all.get(LONG, FILE_LENGTH_OFFSET);
    if (length != size) {
      throw new Invalid(name + ": header says " + length + " bytes, file has " + size);
    }
    int segmentCount = all.get(INT, SEGMENT_COUNT_OFFSET);
    if (segmentCount < 0
        || segmentCount > dev.cellar.log.LogLocation.MAX_SLOTS
        || entriesOffset(size, segmentCount) < HEADER_LENGTH) {
      throw new Invalid(name + ": segment count " + segmentCount + " does not fit the file");
    }
    if (all.get(INT, BODY_CRC_OFFSET) != Crc32c.masked(all, HEADER_LENGTH, size - HEADER_LENGTH)) {
      throw new Invalid(name + ": body checksum mismatch");
    }
  }

  private static List<SegmentEntry> readEntries(MemorySegment all, long start, int count, Path path)
      throws Invalid {
    List<SegmentEntry> entries = new ArrayList<>(count);
    java.util.BitSet slots = new java.util.BitSet();
    for (int i = 0; i < count; i++) {
      long at = start + (long) i * SEGMENT_ENTRY_LENGTH;
      int slot = all.get(INT, at + 8);
      if (slot < 0 || slot >= dev.cellar.log.LogLocation.MAX_SLOTS || slots.get(slot)) {
        throw new Invalid(
            path.getFileName() + ": segment entry " + i + " has a bad or repeated slot " + slot);
      }
      slots.set(slot);
      entries.add(
          new SegmentEntry(
              all.get(LONG, at),
              all.get(INT, at + 8),
              all.get(SHORT, at + 12),
              all.get(LONG, at + 16),
              all.get(LONG, at + 24),
              all.get(LONG, at + 32),
              all.get(LONG, at + 40),
              all.get(LONG, at + 48)));
    }
    return entries;
  }
}
