package dev.cellar.bench.atrest;

import java.util.Arrays;
import java.util.List;

/**
 * One way of storing the data set compressed: one frame per document ({@code blockBytes} 0), or one
 * frame per block of documents ({@link DocumentBlocks}). Everything is compressed once when it is
 * made, and every document is checked to come back byte for byte along the path a GET would take,
 * before anything is timed.
 *
 * <p>Stored bytes are what the data set would take on disk: each frame and a varint of its length
 * (the framing a log record or a block handle needs); the blocks' entry headers are inside the
 * frames. A dictionary is stored once per store and is not counted per record; it is reported
 * beside them.
 */
final class CompressionCandidate {
  static final String RECORD = "record";
  static final String BLOCK = "block";

  private final Compression codec;
  private final int blockBytes;
  private final ZstdDictionary dictionary;
  private final byte[][] inputs;
  private final byte[][] frames;
  private final DocumentBlocks blocks;
  private final int documents;
  private final long rawBytes;
  private final long storedBytes;
  private final long heldOutRawBytes;
  private final long heldOutStoredBytes;
  private final int maxInput;

  private CompressionCandidate(
      Compression codec,
      int blockBytes,
      ZstdDictionary dictionary,
      List<byte[]> documents,
      DocumentBlocks blocks) {
    this.codec = codec;
    this.blockBytes = blockBytes;
    this.dictionary = dictionary;
    this.blocks = blocks;
    this.documents = documents.size();
    this.inputs = (blocks == null ? documents : blocks.blocks()).toArray(byte[][]::new);
    this.maxInput = Arrays.stream(inputs).mapToInt(b -> b.length).max().orElse(1);
    this.frames = new byte[inputs.length][];
    byte[] out = new byte[codec.maxCompressedLength(maxInput)];
    long stored = 0;
    long heldOutRaw = 0;
    long heldOutStored = 0;
    for (int i = 0; i < inputs.length; i++) {
      int n = codec.compress(inputs[i], 0, inputs[i].length, out, 0, out.length);
      frames[i] = Arrays.copyOf(out, n);
      stored += DocumentBlocks.Varint.length(n) + n;
      if (dictionary != null && !dictionary.sampled(i)) {
        heldOutRaw += inputs[i].length;
        heldOutStored += DocumentBlocks.Varint.length(n) + n;
      }
    }
    this.rawBytes = documents.stream().mapToLong(d -> d.length).sum();
    this.storedBytes = stored;
    this.heldOutRawBytes = heldOutRaw;
    this.heldOutStoredBytes = heldOutStored;
    checkEveryDocument(documents);
  }

  /** One frame per document; {@code dictionary} is what {@code codec} was given, or null. */
  static CompressionCandidate perRecord(
      Compression codec, ZstdDictionary dictionary, List<byte[]> documents) {
    return new CompressionCandidate(codec, 0, dictionary, documents, null);
  }

  /** One frame per block of at most {@code blockBytes}. */
  static CompressionCandidate perBlock(Compression codec, int blockBytes, List<byte[]> documents) {
    return new CompressionCandidate(
        codec, blockBytes, null, documents, DocumentBlocks.of(documents, blockBytes));
  }

  /** Compresses every input once, in order: what compaction or sealing would do. */
  CodecStep.Pass compressPass() {
    byte[] out = new byte[codec.maxCompressedLength(maxInput)];
    return () -> {
      long sink = 0;
      for (byte[] in : inputs) {
        int n = codec.compress(in, 0, in.length, out, 0, out.length);
        sink += n + out[n - 1];
      }
      return sink;
    };
  }

  /**
   * Decompresses every frame once, in {@code order} (a permutation of the frames): random reads
   * that miss whatever cache there is, each decompressing one record or one whole block.
   */
  CodecStep.Pass decompressPass(int[] order) {
    byte[] out = new byte[maxInput];
    return () -> {
      long sink = 0;
      for (int i : order) {
        byte[] frame = frames[i];
        int n = codec.decompress(frame, 0, frame.length, out, 0, out.length);
        sink += n + out[n - 1];
      }
      return sink;
    };
  }

  /**
   * Document {@code document} read as a GET that misses the cache would: its frame decompressed, or
   * its whole block and then the entry at its offset.
   */
  byte[] read(int document) {
    int frame = blocks == null ? document : blocks.blockOf()[document];
    byte[] out = new byte[inputs[frame].length];
    int n = codec.decompress(frames[frame], 0, frames[frame].length, out, 0, out.length);
    if (blocks == null) {
      return Arrays.copyOf(out, n);
    }
    int at = blocks.offsetOf()[document];
    int length = DocumentBlocks.Varint.read(out, at);
    at += DocumentBlocks.Varint.length(length);
    return Arrays.copyOfRange(out, at, at + length);
  }

  /**
   * Every document read back as a GET would: its frame, or its block and then the entry at its
   * offset. Each block is decompressed once and all its documents are checked.
   */
  private void checkEveryDocument(List<byte[]> documents) {
    byte[] out = new byte[maxInput];
    int decoded = -1;
    for (int d = 0; d < documents.size(); d++) {
      int frame = blocks == null ? d : blocks.blockOf()[d];
      if (frame != decoded) {
        int n = codec.decompress(frames[frame], 0, frames[frame].length, out, 0, out.length);
        if (n != inputs[frame].length) {
          throw mismatch(
              d,
              "frame " + frame + " decompressed to " + n + " bytes, not " + inputs[frame].length);
        }
        decoded = frame;
      }
      byte[] doc = documents.get(d);
      int at = 0;
      if (blocks != null) {
        at = blocks.offsetOf()[d];
        int length = DocumentBlocks.Varint.read(out, at);
        if (length != doc.length) {
          throw mismatch(d, "entry length " + length + ", not " + doc.length);
        }
        at += DocumentBlocks.Varint.length(length);
      }
      if (!Arrays.equals(out, at, at + doc.length, doc, 0, doc.length)) {
        throw mismatch(d, "bytes differ");
      }
    }
  }

  private IllegalStateException mismatch(int document, String how) {
    return new IllegalStateException(
        label()
            + " ("
            + codec.library()
            + "): document "
            + document
            + " does not read back: "
            + how);
  }

  /** Such as {@code zstd-3 dict 64K per record} or {@code lz4 per 16 KiB block}. */
  String label() {
    return codec.codec()
        + (blockBytes == 0 ? " per record" : " per " + (blockBytes >> 10) + " KiB block");
  }

  String design() {
    return blockBytes == 0 ? RECORD : BLOCK;
  }

  Compression codec() {
    return codec;
  }

  int blockBytes() {
    return blockBytes;
  }

  /** The dictionary, or null. */
  ZstdDictionary dictionary() {
    return dictionary;
  }

  int documents() {
    return documents;
  }

  /** Frames: one per document, or one per block. */
  int frames() {
    return frames.length;
  }

  long rawBytes() {
    return rawBytes;
  }

  long storedBytes() {
    return storedBytes;
  }

  /** Raw over stored bytes. */
  double ratio() {
    return (double) rawBytes / storedBytes;
  }

  /** The ratio on the documents outside the dictionary's training sample; NaN when none are. */
  double heldOutRatio() {
    return heldOutStoredBytes == 0 ? Double.NaN : (double) heldOutRawBytes / heldOutStoredBytes;
  }

  /** Mean stored bytes of a frame with its length: what one miss reads and decrypts. */
  double meanStoredFrame() {
    return (double) storedBytes / frames.length;
  }

  double documentsPerFrame() {
    return (double) documents / frames.length;
  }
}
