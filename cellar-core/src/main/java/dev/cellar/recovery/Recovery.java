package dev.cellar.recovery;

import dev.cellar.CorruptStoreException;
import dev.cellar.EncryptionKeys;
import dev.cellar.RecoveryReport;
import dev.cellar.StoreIOException;
import dev.cellar.checkpoint.CheckpointDescriptor;
import dev.cellar.checkpoint.CheckpointImage;
import dev.cellar.checkpoint.CheckpointReader;
import dev.cellar.checkpoint.SegmentEntry;
import dev.cellar.compress.Dictionaries;
import dev.cellar.io.FileIO;
import dev.cellar.log.CipherBlockDescriptor;
import dev.cellar.log.DirectScan;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentCipher;
import dev.cellar.log.SegmentHeaderDescriptor;
import dev.cellar.log.SegmentScanner;
import dev.cellar.log.SegmentTable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Brings a store directory back to a consistent state on open, from the directory listing alone.
 *
 * <h2>Steps</h2>
 *
 * <ol>
 *   <li>{@link #scanDirectory}: delete leftover temporary files, map every segment, check headers.
 *   <li>{@link #loadCheckpoint}: the newest checkpoint that verifies and whose segments all exist;
 *       a bad one is reported and the next older one tried; with none, everything is replayed.
 *   <li>{@link #placeSegments}: segments the checkpoint names keep their slots; log segments from
 *       its replay position on are added and replayed (compaction outputs never are: their ids come
 *       from the same counter, but their records are old and already in the checkpoint); anything
 *       else is an uncommitted compaction output or an obsolete segment whose deletion a crash
 *       interrupted, and is deleted.
 *   <li>{@link #replay}: every record after the replay position is CRC-checked and handed to the
 *       target in log order, in batches ({@link ReplayBatch}); with enough to replay, a second
 *       thread applies them while this one scans on ({@link ReplayPipeline}). In the unsealed
 *       segments being written at a crash (the {@link UnsyncedTail}) the log ends at the first gap,
 *       a torn record or a seq that skips one, and everything after it is dropped (the prefix rule
 *       of docs/format/log.md); they are then sealed. Damage inside sealed data is fatal unless the
 *       caller asked for salvage.
 * </ol>
 *
 * <p>Why damage in an unsealed segment is tolerated but not in a sealed one: a segment is sealed
 * only after an fsync, so power loss cannot damage it; an unsealed segment's unsynced tail can be
 * lost or reordered by power loss, and nothing acknowledged under {@code always} lies past the
 * first gap (its fsync covered everything before it). Why the log ends at that gap rather than
 * stepping over it: {@link UnsyncedTail}.
 */
public final class Recovery {
  /**
   * Records a {@link ReplayBatch} holds by default: large enough that handing batches between the
   * threads of a {@link ReplayPipeline} costs little per record, small enough that a batch's
   * records are still in the L2 cache when it is applied.
   */
  public static final int DEFAULT_BATCH = 512;

  /**
   * Log bytes to replay from which a second thread applies the records (an eighth of a default
   * segment): a small log replays in milliseconds, where a thread per open is not worth starting,
   * and the power-loss tests recover hundreds of thousands of tiny logs.
   */
  public static final long PARALLEL_FROM_BYTES = 8 << 20;

  private final FileIO io;
  private final Path directory;
  private final boolean salvage;
  private final int shards;
  private final int batchSize;

  /** Bytes to replay from which records are applied on a second thread; MAX_VALUE: never. */
  private final long parallelFrom;

  /** The batch the scan is filling, on its way to the pipeline. */
  private ReplayBatch filling;

  private final RecoveryLedger report = new RecoveryLedger();
  private final long started = System.nanoTime();
  private final Map<Long, Segment> segments = new HashMap<>();
  private final List<Path> checkpoints = new ArrayList<>();
  private final List<Segment> toReplay = new ArrayList<>();

  /**
   * Unsealed segments the checkpoint covers: scanned for their end and sealed, never re-applied.
   */
  private final List<Segment> toSealOnly = new ArrayList<>();

  /** Segments whose accounting came from the checkpoint. */
  private final java.util.Set<Segment> restored = new java.util.HashSet<>();

  private CheckpointImage checkpoint;
  private EncryptionKeys encryptionKeys;

  /**
   * Where compressed segments take their dictionaries from (one instance per dictionary); a
   * recovery given none makes its own.
   */
  private Dictionaries dictionaries = new Dictionaries();

  private long maxSegmentId;
  private long maxSeq;

  /** The prefix rule's state, from {@link #replay} on. */
  private UnsyncedTail tail;

  /**
   * The keys of the store's encrypted segments, before {@link #scanDirectory}; null (the default)
   * if it was given none, and then an encrypted segment fails the open.
   */
  public void dictionaries(Dictionaries dictionaries) {
    this.dictionaries = dictionaries;
  }

  /** The keys encrypted segments are opened with (null: the store has none). */
  public void encryptionKeys(EncryptionKeys keys) {
    this.encryptionKeys = keys;
  }

  public Recovery(FileIO io, Path directory, boolean salvage, int shards) {
    this(
        io,
        directory,
        salvage,
        shards,
        DEFAULT_BATCH,
        Runtime.getRuntime().availableProcessors() > 1 ? PARALLEL_FROM_BYTES : Long.MAX_VALUE);
  }

  /**
   * As {@link #Recovery(FileIO, Path, boolean, int)}, handing records to the target {@code batch}
   * at a time, and applying them on a thread of their own (see {@link ReplayPipeline}) when at
   * least {@code parallelFrom} log bytes are to be replayed (0: always; {@link Long#MAX_VALUE}:
   * never).
   */
  public Recovery(
      FileIO io, Path directory, boolean salvage, int shards, int batch, long parallelFrom) {
    if (batch < 1) {
      throw new IllegalArgumentException("replay batch of " + batch + " records; at least 1");
    }
    this.io = io;
    this.directory = directory;
    this.salvage = salvage;
    this.shards = shards;
    this.batchSize = batch;
    this.parallelFrom = parallelFrom;
  }

  /** Receives replayed records. */
  public interface Target {
    /**
     * Work on {@code batch} that reads nothing but its records (such as hashing their keys), done
     * on the scanning thread before {@link #apply}, possibly while an earlier batch is applied.
     */
    default void prepare(Segment segment, ReplayBatch batch) {}

    /**
     * Loads that make the later {@link #apply} of {@code batch} wait less for memory (such as
     * touching its index slots), done on the scanning thread after {@link #prepare} when the
     * applying thread has batches waiting, so that the scanning thread takes on part of its work.
     */
    default void prefetch(Segment segment, ReplayBatch batch) {}

    /**
     * Applies the records of {@code batch}, consecutive valid records of {@code segment}, in their
     * order. The batch is reused after the call returns.
     */
    void apply(Segment segment, ReplayBatch batch);
  }

  public void scanDirectory() throws IOException {
    for (Path file : io.list(directory)) {
      String name = file.getFileName().toString();
      if (name.endsWith(".tmp")) {
        io.delete(file);
        report.note("deleted unfinished temporary file " + name);
        continue;
      }
      if (CheckpointDescriptor.sequenceOf(name) >= 0) {
        checkpoints.add(file);
        continue;
      }
      long id = Segment.idOf(name);
      if (id < 0) {
        continue;
      }
      maxSegmentId = Math.max(maxSegmentId, id);
      Segment segment = Segment.openExisting(io, file, id);
      String problem = SegmentHeaderDescriptor.validate(segment.memory(), name);
      if (problem != null) {
        if (SegmentScanner.allZero(segment.memory(), 0, segment.memory().byteSize())) {
          // A crash between creating the file and its header reaching disk: it never held a record.
          segment.close();
          io.delete(file);
          report.note("deleted empty segment " + name + " left by a crash during its creation");
          continue;
        }
        segment.close();
        damage(name + " offset 0: " + segment.memory().byteSize() + " bytes unusable: " + problem);
        continue;
      }
      long named = SegmentHeaderDescriptor.id(segment.memory());
      if (named != id) {
        segment.close(); // unmaps: read nothing from the segment after this
        damage(name + " offset 16: header names segment " + named);
        continue;
      }
      segments.put(id, segment);
      if (segment.encrypted()) {
        segment.cipher(
            SegmentCipher.open(
                encryptionKeys,
                segment
                    .memory()
                    .asSlice(SegmentHeaderDescriptor.LENGTH, CipherBlockDescriptor.LENGTH),
                name));
      }
      if (segment.compressed()) {
        try {
          segment.attachDictionary(dictionaries);
        } catch (IllegalArgumentException e) {
          int blockAt = SegmentHeaderDescriptor.codecBlockOffset(segment.memory());
          segments.remove(id);
          segment.close(); // unmaps: read nothing from the segment after this
          damage(name + " offset " + blockAt + ": codec block unusable: " + e.getMessage());
        } catch (IllegalStateException e) {
          throw new StoreIOException(
              name + " is compressed, and its codec cannot be loaded: " + e.getMessage(), e);
        }
      }
    }
    checkpoints.sort(null);
  }

  /**
   * Loads the newest usable checkpoint: its shard slots go to {@code loader}. Returns null (and
   * loads nothing) when there is none.
   */
  public CheckpointImage loadCheckpoint(CheckpointReader.ShardLoader loader) throws IOException {
    for (int i = checkpoints.size() - 1; i >= 0; i--) {
      Path path = checkpoints.get(i);
      try (CheckpointReader.OpenCheckpoint open = CheckpointReader.open(io, path, shards)) {
        CheckpointImage image = open.image();
        for (SegmentEntry entry : image.segments()) {
          if (!segments.containsKey(entry.segmentId())) {
            throw new CheckpointReader.Invalid(
                path.getFileName()
                    + " names "
                    + Segment.fileName(entry.segmentId())
                    + ", which is missing or unreadable");
          }
        }
        open.loadShards(loader);
        checkpoint = image;
        report.checkpoint(path.getFileName().toString());
        for (int j = 0; j < i; j++) {
          io.delete(checkpoints.get(j));
        }
        return image;
      } catch (CheckpointReader.Invalid e) {
        report.note("checkpoint not used: " + e.getMessage());
      }
    }
    return null;
  }

  /** Fills {@code table} and decides what to replay; deletes obsolete files. */
  public void placeSegments(SegmentTable table) throws IOException {
    Map<Long, SegmentEntry> named = new HashMap<>();
    if (checkpoint != null) {
      for (SegmentEntry e : checkpoint.segments()) {
        named.put(e.segmentId(), e);
      }
    }
    List<Segment> ordered = new ArrayList<>(segments.values());
    ordered.sort((a, b) -> Long.compare(a.id(), b.id()));
    for (Segment s : ordered) {
      SegmentEntry entry = named.get(s.id());
      boolean sealed = SegmentHeaderDescriptor.isSealed(s.memory());
      if (entry != null) {
        table.place(s, entry.slot());
        s.restoreAccounting(
            entry.deadBytes(),
            entry.ttlLiveBytes(),
            entry.maxExpiry(),
            entry.minSeq(),
            entry.maxSeq());
        restored.add(s);
        maxSeq = Math.max(maxSeq, entry.maxSeq());
        if (s.kind() == SegmentHeaderDescriptor.KIND_LOG
            && s.id() >= checkpoint.replayFromSegment()) {
          toReplay.add(s);
        } else if (!sealed) {
          // Rolled before the checkpoint but not sealed before the crash. The checkpoint covers
          // (and synced) all of it; re-applying its records would resurrect keys whose later
          // deletes only the checkpoint remembers.
          toSealOnly.add(s);
        } else {
          checkSealedLength(s);
        }
      } else if (checkpoint == null
          || (s.kind() == SegmentHeaderDescriptor.KIND_LOG
              && s.id() >= checkpoint.replayFromSegment())) {
        toReplay.add(s);
      } else {
        s.close();
        io.delete(s.path());
        report.note(
            "deleted " + s.path().getFileName() + ": superseded by compaction or never committed");
      }
    }
    for (Segment s : toReplay) {
      if (s.slot() < 0) {
        table.add(s);
      }
    }
  }

  private void checkSealedLength(Segment s) {
    long sealedLength = SegmentHeaderDescriptor.sealedLength(s.memory());
    long size = s.memory().byteSize();
    if (size < sealedLength) {
      damage(
          s.path().getFileName()
              + " offset "
              + size
              + ": "
              + (sealedLength - size)
              + " bytes missing: file is shorter than its sealed length "
              + sealedLength);
      s.end(size);
    } else {
      s.end(sealedLength);
    }
  }

  /** Bytes at the start of the first segment to replay whose records are sampled for their size. */
  private static final long SAMPLE_BYTES = 256 << 10;

  /**
   * About how many records {@link #replay} will apply: the bytes to replay over the mean length of
   * the records in the first {@link #SAMPLE_BYTES} of the first segment (0 if there is nothing to
   * replay). A store with no checkpoint sizes its fresh index for this many keys, so that replay
   * does not grow the index step by step, each growth moving every entry again with a cache miss
   * apiece (a store opened with {@code expectedKeys} was sized so already; a server restarting
   * after a crash was not). Keys are at most the records, and compaction keeps the records within a
   * small multiple of the live keys, which bounds what an overwrite-heavy log makes the index
   * over-allocate (and a checkpoint writes the index's whole table, so a size estimated far too
   * high would cost in every checkpoint too). An unsealed segment counts up to {@link #writtenEnd}.
   */
  public long estimateRecordsToReplay() {
    if (toReplay.isEmpty()) {
      return 0;
    }
    long bytes = 0;
    for (Segment s : toReplay) {
      MemorySegment memory = s.memory();
      long end =
          SegmentHeaderDescriptor.isSealed(memory)
              ? Math.min(SegmentHeaderDescriptor.sealedLength(memory), memory.byteSize())
              : writtenEnd(memory);
      bytes += Math.max(0, end - s.dataStart());
    }
    Segment firstSegment = toReplay.getFirst();
    MemorySegment first = firstSegment.memory();
    long start = firstSegment.dataStart();
    long[] sampled = new long[2]; // records, bytes
    SegmentScanner.scan(
        first,
        firstSegment.cipher(),
        start,
        Math.min(first.byteSize(), start + SAMPLE_BYTES),
        false,
        false,
        null,
        -1,
        record -> {
          sampled[0]++;
          sampled[1] += record.length();
        });
    if (sampled[0] == 0 || sampled[1] == 0) {
      return 0;
    }
    return (long) (bytes * ((double) sampled[0] / sampled[1]));
  }

  private static final int PAGE = 4096;
  private static final MemorySegment ZERO_PAGE = MemorySegment.ofArray(new byte[PAGE]);

  /**
   * Where the written part of an unsealed segment ends, about: the start of the run of all-zero
   * pages that ends the file (space is preallocated and zero), found by bisection over pages, so a
   * few page reads. A page of zeros inside the records (a value of zeros) can make it stop short;
   * it only feeds an estimate.
   */
  private static long writtenEnd(MemorySegment memory) {
    long lo = SegmentHeaderDescriptor.LENGTH / PAGE;
    long hi = memory.byteSize() / PAGE; // pages from hi on are all zero (none, at first)
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (MemorySegment.mismatch(memory, mid * PAGE, (mid + 1) * PAGE, ZERO_PAGE, 0, PAGE) < 0) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return Math.min(memory.byteSize(), (hi + 1) * PAGE);
  }

  /** Replays every record after the checkpoint; throws if damage is fatal and salvage is off. */
  public void replay(Target target) throws IOException {
    for (Segment s : toSealOnly) {
      replaySegment(s, null, false);
    }
    long bytes = 0;
    for (Segment s : toReplay) {
      bytes += s.memory().byteSize();
    }
    tail = UnsyncedTail.of(toReplay, restored, checkpoint == null ? -1 : checkpoint.nextSeq());
    try (ReplayPipeline pipeline = new ReplayPipeline(target, batchSize, bytes >= parallelFrom)) {
      for (Segment s : toReplay) {
        if (tail.end() != null && s.kind() == SegmentHeaderDescriptor.KIND_LOG) {
          dropAfterLogEnd(s);
        } else {
          replaySegment(s, pipeline, tail.contains(s));
        }
      }
    }
    report.elapsed(System.nanoTime() - started);
    if (!report.fatal().isEmpty() && !salvage) {
      throw new CorruptStoreException(
          "store "
              + directory
              + " has damaged data; reopen with salvage to skip it (the listed bytes are lost)",
          report.fatal());
    }
  }

  /**
   * A log segment after the end of the log that the prefix rule found in an earlier one: its
   * records were written after records that are lost, so none of them is applied, and it is emptied
   * and sealed.
   */
  private void dropAfterLogEnd(Segment s) throws IOException {
    String name = s.path().getFileName().toString();
    long start = s.dataStart();
    long written = SegmentScanner.writtenEnd(s.memory(), start, s.memory().byteSize());
    if (written > start) {
      report.dropped(written - start);
      report.note(
          name
              + ": "
              + (written - start)
              + " bytes dropped, written after the end of the log ("
              + tail.end()
              + ")");
    }
    s.end(start);
    s.seal();
  }

  /**
   * Scans {@code s}, handing its records to {@code pipeline} unless that is null; under the prefix
   * rule if {@code prefix} (a segment of the {@link UnsyncedTail}).
   */
  private void replaySegment(Segment s, ReplayPipeline pipeline, boolean prefix)
      throws IOException {
    String name = s.path().getFileName().toString();
    boolean sealed = SegmentHeaderDescriptor.isSealed(s.memory());
    long start = s.dataStart();
    if (checkpoint != null && s.id() == checkpoint.replayFromSegment()) {
      start = Math.max(start, checkpoint.replayFromOffset());
      long available =
          SegmentHeaderDescriptor.isSealed(s.memory())
              ? Math.min(s.memory().byteSize(), SegmentHeaderDescriptor.sealedLength(s.memory()))
              : s.memory().byteSize();
      if (available < start) {
        // The checkpoint's index points into bytes that are gone.
        damage(
            name
                + " offset "
                + available
                + ": "
                + (start - available)
                + " bytes missing before the checkpoint's replay position "
                + start);
        s.end(available);
        return;
      }
    }
    long limit;
    if (sealed) {
      checkSealedLength(s);
      limit = s.end();
    } else {
      limit = s.memory().byteSize();
    }
    SegmentScanner.Result result;
    DirectScan scan = directScan(s, start, limit);
    try {
      if (scan != null) {
        s.scanned(scan.memory(), start & -4096L);
      }
      result =
          pipeline == null
              ? scanRest(s, scan, start, limit, sealed, -1, null)
              : scanInBatches(s, scan, start, limit, sealed, prefix, pipeline);
      if (pipeline != null) {
        // Everything below may trim or seal the segment: its records must all be applied first.
        pipeline.drain();
      }
    } finally {
      if (scan != null) {
        s.scanned(null, 0);
        scan.close();
      }
    }
    if (toReplay.contains(s)) {
      report.replayed(result.records(), result.validEnd() - start);
    }
    for (SegmentScanner.Damage d : result.damage()) {
      String line =
          name
              + " offset "
              + d.offset()
              + ": "
              + d.length()
              + " bytes skipped ("
              + d.reason()
              + ")";
      report.dropped(d.length());
      if (sealed) {
        damage(line);
      } else if (prefix) {
        tail.endAt(name + " offset " + d.offset() + ", " + d.reason());
        report.note(
            line
                + ": torn tail of an unsealed segment, truncated (the log ends at the first gap"
                + " in its unsynced tail)");
      } else if (d.offset() >= result.validEnd()) {
        report.note(line + ": torn tail of an unsealed segment, truncated");
      } else {
        report.note(line + ": hole in an unsealed segment, skipped");
        if (!restored.contains(s)) {
          s.addDead(d.length()); // a checkpoint's accounting already counts it
        }
      }
    }
    if (!sealed) {
      s.end(result.validEnd());
      s.recoveredHoles(result.holes());
      if (result.holes().isEmpty()) {
        s.seal();
        report.note(
            "sealed " + name + " at " + result.validEnd() + " bytes after an unclean shutdown");
      }
    }
  }

  /**
   * A scan of {@code [start, limit)} of {@code s} with O_DIRECT in large requests, for a store that
   * reads with {@code io direct} ({@link Segment#directReads}); null otherwise. Replay reads the
   * segment once from start to end, which through its mapping would fill the page cache with it
   * (and have the kernel evict it again) in a store that keeps its own cache. The whole range stays
   * resident until the segment is replayed: the index's key comparisons read this segment's records
   * from it ({@link Segment#scanned}), by then anywhere behind the scan.
   */
  private static DirectScan directScan(Segment s, long start, long limit) {
    if (!dev.cellar.platform.IoSwitches.DIRECT_RECOVERY || !s.directReads() || limit <= start) {
      return null;
    }
    return DirectScan.open(s, start);
  }

  /**
   * Scans {@code [start, limit)} of {@code s} into batches for {@code pipeline}: its valid records
   * by {@link ReplayScanner}, from the first position that holds none by {@link #scanRest}; from
   * {@code scan}'s memory if it is not null, else from the mapping.
   */
  private SegmentScanner.Result scanInBatches(
      Segment s,
      DirectScan scan,
      long start,
      long limit,
      boolean sealed,
      boolean prefix,
      ReplayPipeline pipeline) {
    MemorySegment memory = scan == null ? s.memory() : scan.memory();
    boolean log = s.kind() == SegmentHeaderDescriptor.KIND_LOG;
    ReplayScanner scanner = new ReplayScanner(memory, s.cipher(), scan, start, limit, log);
    if (prefix) {
      tail.begin(scanner);
    }
    boolean more = true;
    while (more) {
      ReplayBatch batch = pipeline.acquire(s);
      more = scanner.fill(batch);
      if (batch.size() > 0) {
        pipeline.submit(batch);
      } else {
        pipeline.release(batch);
      }
    }
    if (scanner.records() > 0) {
      s.noteSeq(scanner.minSeq());
      s.noteSeq(scanner.maxSeq());
      maxSeq = Math.max(maxSeq, scanner.maxSeq());
    }
    if (prefix) {
      SegmentScanner.Damage gap = tail.finish(scanner, memory, s.cipher(), scan, limit);
      return new SegmentScanner.Result(
          scanner.position(), scanner.records(), gap == null ? List.of() : List.of(gap));
    }
    if (log && scanner.records() > 0) {
      tail.passed();
    }
    SegmentScanner.Result rest =
        scanRest(s, scan, scanner.position(), limit, sealed, scanner.lastSeq(), pipeline);
    return new SegmentScanner.Result(
        rest.validEnd(), scanner.records() + rest.records(), rest.damage());
  }

  /**
   * Scans {@code [start, limit)} of {@code s} with the general scanner, after a record with seq
   * {@code afterSeq} (-1: none), handing its records to {@code pipeline} unless that is null. The
   * damage path, and the segments recovery only seals.
   */
  private SegmentScanner.Result scanRest(
      Segment s,
      DirectScan scan,
      long start,
      long limit,
      boolean sealed,
      long afterSeq,
      ReplayPipeline pipeline) {
    SegmentScanner.Result result =
        SegmentScanner.scan(
            scan == null ? s.memory() : scan.memory(),
            s.cipher(),
            null,
            start,
            limit,
            sealed,
            s.kind() == SegmentHeaderDescriptor.KIND_LOG,
            null,
            afterSeq,
            scan,
            record -> {
              maxSeq = Math.max(maxSeq, record.seq());
              s.noteSeq(record.seq());
              if (pipeline != null) {
                if (filling == null) {
                  filling = pipeline.acquire(s);
                }
                if (filling.add(record)) {
                  pipeline.submit(filling);
                  filling = null;
                }
              }
            });
    if (filling != null) {
      pipeline.submit(filling);
      filling = null;
    }
    return result;
  }

  private void damage(String line) {
    if (salvage) {
      report.note("salvaged past: " + line);
    } else {
      report.fatal(line);
    }
  }

  public RecoveryReport report() {
    return report.report();
  }

  public long maxSegmentId() {
    return maxSegmentId;
  }

  /** Highest seq seen in the checkpoint or the replayed log. */
  public long maxSeq() {
    return Math.max(maxSeq, checkpoint == null ? 0 : checkpoint.nextSeq() - 1);
  }

  /** Every segment opened, for cleanup when the open fails. */
  public List<Segment> openedSegments() {
    return List.copyOf(segments.values());
  }
}
