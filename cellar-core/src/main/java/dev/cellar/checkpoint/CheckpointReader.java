package dev.cellar.checkpoint;

import static dev.cellar.checkpoint.CheckpointDescriptor.*;

import dev.cellar.index.HashIndex;
import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordDescriptor;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Reads and verifies a checkpoint. Every check that fails yields a {@link Invalid} with the reason
 * (the caller falls back to an older checkpoint or to a full log replay, since a checkpoint is only
 * ever an accelerator); a newer major version is refused outright.
 */
public final class CheckpointReader {
  private CheckpointReader() {}

  /** Why a checkpoint could not be used. */
  public static final class Invalid extends Exception {
    public Invalid(String message) {
      super(message);
    }
  }

  /** Receives one shard's slots; the memory is valid only during the call. */
  public interface ShardLoader {
    void load(int shard, MemorySegment slots, long keyCount, long elementCount);
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
      String problem = validateHeader(all, path.getFileName().toString(), expectedShards);
      if (problem != null) {
        throw new Invalid(problem);
      }
      int segmentCount = segmentCount(all);
      long entriesAt = entriesOffset(size, segmentCount);
      List<SegmentEntry> entries = readEntries(all, entriesAt, segmentCount, path);
      long at = FIRST_SHARD_OFFSET;
      long[] sizes = new long[expectedShards];
      long[] elements = new long[expectedShards];
      long[] offsets = new long[expectedShards];
      long[] slotCounts = new long[expectedShards];
      for (int shard = 0; shard < expectedShards; shard++) {
        if (at + SHARD_HEADER_LENGTH > size) {
          throw new Invalid(path.getFileName() + ": shard " + shard + " header past end of file");
        }
        long count = slotCount(all, at);
        sizes[shard] = keyCount(all, at);
        elements[shard] = elementCount(all, at);
        if (!plausibleShard(count, sizes[shard])
            || elements[shard] < 0
            || elements[shard] > sizes[shard]) {
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
        at = offsets[shard] + count * SLOT_BYTES;
        if (at > entriesAt) {
          throw new Invalid(
              path.getFileName() + ": shard " + shard + " slots overlap the segment table");
        }
        // The CRC proves the bytes are those written, not that the writer was right: the index
        // would loop forever on a full table or index out of bounds on a tiny one.
        String slotsProblem =
            HashIndex.checkSlots(all.asSlice(offsets[shard], count * SLOT_BYTES), sizes[shard]);
        if (slotsProblem != null) {
          throw new Invalid(path.getFileName() + ": shard " + shard + ": " + slotsProblem);
        }
      }
      CheckpointImage image =
          new CheckpointImage(
              path,
              CheckpointDescriptor.sequenceOf(path.getFileName().toString()),
              replayFromSegment(all),
              replayFromOffset(all),
              nextSeq(all),
              entries);
      return new OpenCheckpoint(image, arena, all, offsets, slotCounts, sizes, elements);
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
    private final long[] elements;

    private OpenCheckpoint(
        CheckpointImage image,
        Arena arena,
        MemorySegment all,
        long[] offsets,
        long[] slotCounts,
        long[] sizes,
        long[] elements) {
      this.elements = elements;
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
        loader.load(
            shard,
            all.asSlice(offsets[shard], slotCounts[shard] * SLOT_BYTES),
            sizes[shard],
            elements[shard]);
      }
    }

    @Override
    public void close() {
      arena.close();
    }
  }

  private static List<SegmentEntry> readEntries(MemorySegment all, long start, int count, Path path)
      throws Invalid {
    List<SegmentEntry> entries = new ArrayList<>(count);
    BitSet slots = new BitSet();
    for (int i = 0; i < count; i++) {
      long at = start + (long) i * SEGMENT_ENTRY_LENGTH;
      int slot = entrySlot(all, at);
      if (slot < 0 || slot >= LogLocation.MAX_SLOTS || slots.get(slot)) {
        throw new Invalid(
            path.getFileName() + ": segment entry " + i + " has a bad or repeated slot " + slot);
      }
      slots.set(slot);
      SegmentEntry entry = readEntry(all, at);
      // No record holds a seq at or past the limit. (Not min <= max: the writer reads the active
      // segment's two fields without the append lock, so a first record may show in one only.)
      if (entry.minSeq() < 0
          || entry.minSeq() >= RecordDescriptor.SEQ_LIMIT
          || entry.maxSeq() < 0
          || entry.maxSeq() >= RecordDescriptor.SEQ_LIMIT) {
        throw new Invalid(
            path.getFileName()
                + ": segment entry "
                + i
                + " has an impossible seq range "
                + Long.toUnsignedString(entry.minSeq())
                + ".."
                + Long.toUnsignedString(entry.maxSeq()));
      }
      entries.add(entry);
    }
    return entries;
  }
}
