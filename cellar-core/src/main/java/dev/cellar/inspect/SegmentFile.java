package dev.cellar.inspect;

import dev.cellar.Compression;
import dev.cellar.EncryptionKeys;
import dev.cellar.IncompatibleFormatException;
import dev.cellar.compress.ValueDictionary;
import dev.cellar.log.CipherBlockDescriptor;
import dev.cellar.log.CodecBlockDescriptor;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentCipher;
import dev.cellar.log.SegmentHeaderDescriptor;
import dev.cellar.log.SegmentScanner;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One segment file mapped read-only, with its header interpreted by the engine's {@code
 * SegmentHeaderDescriptor} and its records by the engine's {@code SegmentScanner}: is it sound, is
 * it sealed, which byte range holds records, and what each record and each damaged region is.
 *
 * <h2>Why not the engine's {@code Segment.openExisting}</h2>
 *
 * That opens the file read-write through the store's I/O seam, which a checking tool must not do:
 * it would fail on a read-only copy or a file owned by another user, and a stray write through it
 * could change the evidence. Here the file is opened {@code READ} and mapped {@code READ_ONLY}; the
 * channel is closed at once (the mapping outlives it) and the mapping lives until {@link #close()}.
 *
 * <h2>The range a reader scans</h2>
 *
 * Records start after the 64-byte header. A sealed segment ends at the sealed length its header
 * records; if the file is shorter, the missing bytes are damage ({@link #missingBytes()}) and only
 * what exists is scanned. An unsealed segment (the one being written, or one a crash left behind)
 * is scanned to the end of the file, where zeros are the clean end of the log. These are the rules
 * recovery applies ({@code docs/format/log.md}), so a tool reports what an open would find.
 *
 * <p>Confined to the thread that opened it.
 */
public final class SegmentFile implements AutoCloseable {
  private final Path path;
  private final long id;
  private final Arena arena;
  private final MemorySegment memory;
  private final String headerProblem;
  private EncryptionKeys keys;

  /** Called for each valid record; the record view is reused between calls. */
  @FunctionalInterface
  public interface RecordVisitor {
    void record(SegmentRecord record);
  }

  private SegmentFile(Path path, long id, Arena arena, MemorySegment memory) {
    this.path = path;
    this.id = id;
    this.arena = arena;
    this.memory = memory;
    this.headerProblem = checkHeader();
  }

  /** The file name of segment {@code id}: {@code seg-<16 hex digits>.log}. */
  public static String fileName(long id) {
    return Segment.fileName(id);
  }

  /** The id in a segment file name, or -1 if {@code fileName} is not one. */
  public static long idOf(String fileName) {
    return Segment.idOf(fileName);
  }

  /**
   * Maps {@code path}, whose name must be a segment's name; an encrypted segment's records are read
   * with {@code keys} (null: none given, and scanning an encrypted segment then fails with {@link
   * dev.cellar.EncryptionKeyException}).
   */
  public static SegmentFile open(Path path, EncryptionKeys keys) throws IOException {
    SegmentFile file = open(path);
    file.keys = keys;
    return file;
  }

  /** Maps {@code path}, whose name must be a segment's name. */
  public static SegmentFile open(Path path) throws IOException {
    long id = idOf(path.getFileName().toString());
    if (id < 0) {
      throw new IllegalArgumentException(
          path + " is not named like a segment (seg-<16 hex digits>.log)");
    }
    Arena arena = Arena.ofConfined();
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      MemorySegment memory = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
      return new SegmentFile(path, id, arena, memory);
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e;
    }
  }

  private String checkHeader() {
    String problem;
    try {
      problem = SegmentHeaderDescriptor.validate(memory, name());
    } catch (IncompatibleFormatException e) {
      return e.getMessage();
    }
    if (problem == null && SegmentHeaderDescriptor.id(memory) != id) {
      problem =
          "header names segment "
              + SegmentHeaderDescriptor.id(memory)
              + ", the file name says "
              + id;
    }
    return problem;
  }

  public Path path() {
    return path;
  }

  public String name() {
    return path.getFileName().toString();
  }

  public long id() {
    return id;
  }

  public long size() {
    return memory.byteSize();
  }

  /**
   * What is wrong with the header, or null when it is sound; the other accessors need a sound one.
   */
  public String headerProblem() {
    return headerProblem;
  }

  /** Whether the whole file is zeros: a segment whose creation a crash interrupted. */
  public boolean blank() {
    return SegmentScanner.allZero(memory, 0, memory.byteSize());
  }

  public boolean sealed() {
    return SegmentHeaderDescriptor.isSealed(memory);
  }

  /**
   * Whether an open ends the log at the first gap in this segment's unsealed records (the PREFIX
   * flag; docs/format/log.md, "The prefix rule").
   */
  public boolean prefix() {
    return SegmentHeaderDescriptor.isPrefix(memory);
  }

  public boolean compacted() {
    return SegmentHeaderDescriptor.kind(memory) == SegmentHeaderDescriptor.KIND_COMPACTED;
  }

  /** Where the records end according to the header (sealed) or the file (unsealed). */
  public long declaredEnd() {
    return sealed() ? SegmentHeaderDescriptor.sealedLength(memory) : size();
  }

  /** Where scanning stops: the declared end, or the end of the file if that comes first. */
  public long scanLimit() {
    return Math.min(declaredEnd(), size());
  }

  /** Bytes of a sealed segment that its file lacks. */
  public long missingBytes() {
    return Math.max(0, declaredEnd() - size());
  }

  /**
   * Bytes past a sealed length: left by a crash between sealing the header and cutting the file.
   */
  public long bytesPastEnd() {
    return sealed() ? Math.max(0, size() - declaredEnd()) : 0;
  }

  /**
   * Scans every record between the header and {@link #scanLimit()}, verifying each CRC, as recovery
   * does: a log segment's seqs must increase (compaction output keeps the seqs of the records it
   * moved, so theirs need not).
   */
  public SegmentScan scan(RecordVisitor visitor) {
    boolean increasingSeqs =
        SegmentHeaderDescriptor.kind(memory) == SegmentHeaderDescriptor.KIND_LOG;
    SegmentRecord[] shown = {null};
    SegmentCipher cipher =
        encrypted()
            ? SegmentCipher.open(
                keys,
                memory.asSlice(SegmentHeaderDescriptor.LENGTH, CipherBlockDescriptor.LENGTH),
                path.getFileName().toString())
            : null;
    SegmentScanner.Result result =
        SegmentScanner.scan(
            memory,
            cipher,
            compressed() ? dictionary() : null,
            SegmentHeaderDescriptor.dataStart(memory),
            scanLimit(),
            sealed(),
            increasingSeqs,
            null,
            -1,
            (RecordView view) -> {
              // The scanner reuses one view for the whole scan, so one wrapper serves too.
              if (shown[0] == null) {
                shown[0] = new SegmentRecord(view);
              }
              visitor.record(shown[0]);
            });
    return SegmentScan.of(result);
  }

  /** Whether the header is sound and says the values may be compressed. */
  public boolean compressed() {
    return headerProblem == null && SegmentHeaderDescriptor.isCompressed(memory);
  }

  /**
   * The codec of a compressed segment's values, or {@link Compression#NONE}; null if the codec
   * block cannot be read (see {@link #codecProblem()}).
   */
  public Compression compression() {
    if (!compressed()) {
      return Compression.NONE;
    }
    CodecBlockDescriptor.Block block = codecBlock();
    return block == null ? null : block.codec();
  }

  /** The id of a compressed segment's dictionary (0 if none or unreadable). */
  public long dictionaryId() {
    CodecBlockDescriptor.Block block = compressed() ? codecBlock() : null;
    return block == null ? 0 : block.dictId();
  }

  /** The bytes of a compressed segment's dictionary (0 if none or unreadable). */
  public int dictionaryBytes() {
    CodecBlockDescriptor.Block block = compressed() ? codecBlock() : null;
    return block == null ? 0 : block.dictionary().length;
  }

  /** What is wrong with a compressed segment's codec block, or null if nothing (or no block). */
  public String codecProblem() {
    if (!compressed()) {
      return null;
    }
    codecBlock();
    return codecProblem;
  }

  private String codecProblem;
  private CodecBlockDescriptor.Block codecBlock;

  private CodecBlockDescriptor.Block codecBlock() {
    if (codecBlock == null && codecProblem == null) {
      try {
        codecBlock =
            CodecBlockDescriptor.read(
                memory,
                SegmentHeaderDescriptor.codecBlockOffset(memory),
                SegmentHeaderDescriptor.dataStart(memory),
                encrypted() ? cipher() : null);
      } catch (IllegalArgumentException e) {
        codecProblem = e.getMessage();
      }
    }
    return codecBlock;
  }

  private SegmentCipher cipher() {
    return SegmentCipher.open(
        keys,
        memory.asSlice(SegmentHeaderDescriptor.LENGTH, CipherBlockDescriptor.LENGTH),
        path.getFileName().toString());
  }

  private ValueDictionary dictionary() {
    CodecBlockDescriptor.Block block = codecBlock();
    return block == null
        ? null
        : new ValueDictionary(block.dictId(), block.codec(), block.dictionary(), block.samples());
  }

  /** Whether the header is sound and says the records are encrypted. */
  public boolean encrypted() {
    return headerProblem == null && SegmentHeaderDescriptor.isEncrypted(memory);
  }

  /** The id of the store key an encrypted segment was written with, or 0 if not encrypted. */
  public int keyId() {
    return encrypted()
        ? CipherBlockDescriptor.keyId(
            memory.asSlice(SegmentHeaderDescriptor.LENGTH, CipherBlockDescriptor.LENGTH))
        : 0;
  }

  /** Unmaps the file. */
  @Override
  public void close() {
    arena.close();
  }
}
