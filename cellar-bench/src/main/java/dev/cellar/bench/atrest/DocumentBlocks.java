package dev.cellar.bench.atrest;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Documents laid end to end into blocks of at most {@code blockBytes}, as a segment compressed in
 * blocks would hold them: each document preceded by its length as a varint (the entry header a
 * block needs to be walked without the index), a new block whenever the next entry would overflow
 * the current one. A document larger than a block gets a block of its own.
 *
 * <p>The index of such a store points at (block, offset in the uncompressed block); {@link
 * #blockOf} and {@link #offsetOf} are that index, so a read can be checked the way an engine's GET
 * would do it: decompress the block, then read the entry at the offset.
 *
 * @param blocks the uncompressed blocks
 * @param blockOf each document's block
 * @param offsetOf each document's entry (its varint length) in its block
 */
record DocumentBlocks(List<byte[]> blocks, int[] blockOf, int[] offsetOf) {
  static DocumentBlocks of(List<byte[]> documents, int blockBytes) {
    List<byte[]> blocks = new ArrayList<>();
    int[] blockOf = new int[documents.size()];
    int[] offsetOf = new int[documents.size()];
    ByteArrayOutputStream block = new ByteArrayOutputStream(blockBytes);
    for (int i = 0; i < documents.size(); i++) {
      byte[] d = documents.get(i);
      int entry = Varint.length(d.length) + d.length;
      if (block.size() > 0 && block.size() + entry > blockBytes) {
        blocks.add(block.toByteArray());
        block.reset();
      }
      blockOf[i] = blocks.size();
      offsetOf[i] = block.size();
      Varint.write(block, d.length);
      block.writeBytes(d);
    }
    if (block.size() > 0) {
      blocks.add(block.toByteArray());
    }
    return new DocumentBlocks(List.copyOf(blocks), blockOf, offsetOf);
  }

  /** Unsigned LEB128, as Cellar's log writes lengths. */
  static final class Varint {
    private Varint() {}

    static int length(long value) {
      int n = 1;
      while ((value >>>= 7) != 0) {
        n++;
      }
      return n;
    }

    static void write(ByteArrayOutputStream out, int value) {
      while ((value & ~0x7F) != 0) {
        out.write((value & 0x7F) | 0x80);
        value >>>= 7;
      }
      out.write(value);
    }

    /** The value at {@code at}; its length is {@link #length} of it. */
    static int read(byte[] in, int at) {
      int value = 0;
      for (int shift = 0; ; shift += 7) {
        byte b = in[at++];
        value |= (b & 0x7F) << shift;
        if (b >= 0) {
          return value;
        }
      }
    }
  }
}
