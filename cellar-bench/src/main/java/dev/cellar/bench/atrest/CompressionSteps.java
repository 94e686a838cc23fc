package dev.cellar.bench.atrest;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Compression and decompression rows: per record (one frame per document, as a log record would
 * hold it) and per block (documents laid end to end into blocks of at most {@link #BLOCK_BYTES},
 * one frame per block, as a segment compressed in blocks would hold them). A block row's pass
 * covers the same documents as a record row's, so its cost per document is the block cost over the
 * documents a block holds.
 */
final class CompressionSteps {
  static final int BLOCK_BYTES = 64 << 10;

  private CompressionSteps() {}

  /** Whole documents end to end, a new block whenever the next one would overflow this one. */
  static List<byte[]> blocks(List<byte[]> documents) {
    List<byte[]> blocks = new ArrayList<>();
    byte[] block = new byte[BLOCK_BYTES];
    int used = 0;
    for (byte[] d : documents) {
      if (used > 0 && used + d.length > BLOCK_BYTES) {
        blocks.add(Arrays.copyOf(block, used));
        used = 0;
      }
      if (d.length > BLOCK_BYTES) {
        blocks.add(d.clone());
        continue;
      }
      System.arraycopy(d, 0, block, used, d.length);
      used += d.length;
    }
    if (used > 0) {
      blocks.add(Arrays.copyOf(block, used));
    }
    return blocks;
  }

  /** Each input compressed: what a writer that compresses, then encrypts, hands the cipher. */
  static List<byte[]> frames(Compression c, List<byte[]> inputs) {
    return List.of(Encoded.of(c, inputs).frames);
  }

  static CodecStep compress(Compression c, List<byte[]> inputs, int documents, String unit) {
    Encoded encoded = Encoded.of(c, inputs);
    byte[] out = new byte[c.maxCompressedLength(encoded.maxInput)];
    CodecStep.Pass pass =
        () -> {
          long sink = 0;
          for (byte[] in : inputs) {
            int n = c.compress(in, 0, in.length, out, 0, out.length);
            sink += n + out[n - 1];
          }
          return sink;
        };
    return new CodecStep(
        "compress",
        c.codec(),
        c.library(),
        unit,
        documents,
        encoded.rawBytes,
        encoded.storedBytes,
        pass);
  }

  static CodecStep decompress(Compression c, List<byte[]> inputs, int documents, String unit) {
    Encoded encoded = Encoded.of(c, inputs);
    byte[][] frames = encoded.frames;
    byte[] out = new byte[encoded.maxInput];
    CodecStep.Pass pass =
        () -> {
          long sink = 0;
          for (byte[] frame : frames) {
            int n = c.decompress(frame, 0, frame.length, out, 0, out.length);
            sink += n + out[n - 1];
          }
          return sink;
        };
    return new CodecStep(
        "decompress",
        c.codec(),
        c.library(),
        unit,
        documents,
        encoded.rawBytes,
        encoded.storedBytes,
        pass);
  }

  /** Every input compressed once, and checked to come back whole. */
  private record Encoded(byte[][] frames, long rawBytes, long storedBytes, int maxInput) {
    static Encoded of(Compression c, List<byte[]> inputs) {
      int maxInput = 1;
      for (byte[] in : inputs) {
        maxInput = Math.max(maxInput, in.length);
      }
      byte[] out = new byte[c.maxCompressedLength(maxInput)];
      byte[] back = new byte[maxInput];
      byte[][] frames = new byte[inputs.size()][];
      long raw = 0;
      long stored = 0;
      for (int i = 0; i < frames.length; i++) {
        byte[] in = inputs.get(i);
        frames[i] = Arrays.copyOf(out, c.compress(in, 0, in.length, out, 0, out.length));
        int n = c.decompress(frames[i], 0, frames[i].length, back, 0, back.length);
        if (!Arrays.equals(back, 0, n, in, 0, in.length)) {
          throw new IllegalStateException(
              c.codec() + " (" + c.library() + ") round trip of input " + i + " differs");
        }
        raw += in.length;
        stored += frames[i].length;
      }
      return new Encoded(frames, raw, stored, maxInput);
    }
  }
}
