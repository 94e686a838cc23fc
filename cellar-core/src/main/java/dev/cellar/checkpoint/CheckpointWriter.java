package dev.cellar.checkpoint;

import static dev.cellar.checkpoint.CheckpointDescriptor.*;

import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import dev.cellar.log.Crc32c;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Writes a checkpoint crash-safely: to a temporary name, fsync, sync the log, rename, fsync the
 * directory. A crash at any point leaves either the previous checkpoint or the new one, never a
 * half one under a checkpoint name.
 */
public final class CheckpointWriter {
  private static final int CHUNK = 1 << 20;

  private CheckpointWriter() {}

  /** The source of one shard's slots while the checkpoint is written. */
  public interface ShardSource {
    /** Copies the shard's slots into the file, holding whatever lock keeps them stable. */
    void writeSlots(SlotSink sink) throws IOException;
  }

  /** An I/O step run before the checkpoint is published. */
  public interface BeforePublish {
    void run() throws IOException;
  }

  /** Receives a shard's slot array, its entry count and how many of those are elements. */
  public interface SlotSink {
    void accept(MemorySegment slots, long keyCount, long elementCount) throws IOException;
  }

  /** Writes {@code checkpoint-<sequence>.ckpt} and returns its path. */
  public static Path write(
      FileIO io,
      Path directory,
      long sequence,
      long replayFromSegment,
      long replayFromOffset,
      long nextSeq,
      java.util.function.Supplier<List<SegmentEntry>> segmentsAfterShards,
      List<ShardSource> shards,
      BeforePublish beforePublish)
      throws IOException {
    Path target = directory.resolve(fileName(sequence));
    Path temp = directory.resolve(fileName(sequence) + ".tmp");
    try {
      writeTemp(
          io, temp, replayFromSegment, replayFromOffset, nextSeq, segmentsAfterShards, shards);
      // Every record the snapshot points at must be durable before the checkpoint can be found.
      beforePublish.run();
      io.rename(temp, target);
    } catch (IOException | RuntimeException e) {
      // A half-written checkpoint is useless, and on a full disk it holds the space that writes
      // need: remove it now rather than at the next open.
      try {
        io.delete(temp);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    io.syncDirectory(directory);
    return target;
  }

  private static void writeTemp(
      FileIO io,
      Path temp,
      long replayFromSegment,
      long replayFromOffset,
      long nextSeq,
      java.util.function.Supplier<List<SegmentEntry>> segmentsAfterShards,
      List<ShardSource> shards)
      throws IOException {
    try (StoreFile file = io.open(temp, true)) {
      file.truncate(0);
      CRC32C bodyCrc = new CRC32C();
      long at = HEADER_LENGTH;
      for (ShardSource shard : shards) {
        long[] position = {at};
        shard.writeSlots(
            (slots, keyCount, elementCount) -> {
              // The shard header and the zeros up to the aligned slots go in one write: a
              // checkpoint of many small shards is otherwise mostly syscalls.
              long aligned = slotsOffset(position[0]);
              byte[] head = new byte[(int) (aligned - position[0])];
              writeShardHeader(
                  MemorySegment.ofArray(head),
                  0,
                  slots.byteSize() / SLOT_BYTES,
                  keyCount,
                  elementCount);
              long p = writeBody(file, ByteBuffer.wrap(head), position[0], bodyCrc);
              for (long off = 0; off < slots.byteSize(); off += CHUNK) {
                long n = Math.min(CHUNK, slots.byteSize() - off);
                p = writeBody(file, slots.asSlice(off, n).asByteBuffer(), p, bodyCrc);
              }
              position[0] = p;
            });
        at = position[0];
      }
      // Read only now: a segment created while shards were copied may be referenced by them.
      List<SegmentEntry> segments = segmentsAfterShards.get();
      byte[] entries = new byte[segments.size() * SEGMENT_ENTRY_LENGTH];
      for (int i = 0; i < segments.size(); i++) {
        writeEntry(
            MemorySegment.ofArray(entries), (long) i * SEGMENT_ENTRY_LENGTH, segments.get(i));
      }
      at = writeBody(file, ByteBuffer.wrap(entries), at, bodyCrc);
      byte[] header = new byte[HEADER_LENGTH];
      writeHeader(
          MemorySegment.ofArray(header),
          shards.size(),
          replayFromSegment,
          replayFromOffset,
          nextSeq,
          segments.size(),
          at,
          Crc32c.mask((int) bodyCrc.getValue()));
      file.write(ByteBuffer.wrap(header), 0);
      file.force();
    }
  }

  private static long writeBody(StoreFile file, ByteBuffer bytes, long at, CRC32C crc)
      throws IOException {
    int n = bytes.remaining();
    crc.update(bytes.duplicate());
    file.write(bytes, at);
    return at + n;
  }
}
