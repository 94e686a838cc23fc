package dev.cellar.store;

import dev.cellar.CellarOptions;
import dev.cellar.Compression;
import dev.cellar.EncryptionKeys;
import dev.cellar.compress.Dictionaries;
import dev.cellar.compress.DictionarySampler;
import dev.cellar.compress.ValueDictionary;
import dev.cellar.index.KeyHasher;
import dev.cellar.io.FileIO;
import dev.cellar.log.CodecBlockDescriptor;
import dev.cellar.log.DirectScan;
import dev.cellar.log.LogLocation;
import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentScanner;
import dev.cellar.log.SegmentTable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * One compaction pass: copies the live records of sealed segments that are mostly garbage (or
 * small) into new segments, points the index at the copies, and retires the old segments.
 *
 * <h2>Copying outside the shard locks</h2>
 *
 * A pass shares the server's pinned core with the event loop. It used to take a key's shard write
 * lock to check the record, copy it and point the slot at the copy; preempted inside that section
 * (at idle priority, whenever the loop had work), it left the event loop parked on the lock with
 * all its connections until the scheduler ran the compactor again. Now a batch of records is
 * checked under an optimistic read ({@link #currentNow}) and copied with no lock held, and then
 * {@link #publishCopies} takes each key's write lock for one slot update, made only if the slot
 * still holds the victim's location: a compare-and-set on the index. A copy whose key was
 * overwritten or deleted between its check and its publication is <em>abandoned</em>: it stays in
 * the output as a stale record, accounted there as garbage.
 *
 * <h2>Why an abandoned copy never comes back</h2>
 *
 * Three rules make a stale copy harmless:
 *
 * <ol>
 *   <li><b>Copies keep their record's sequence number</b> (the bytes are copied verbatim, CRC and
 *       all). The index never points at an abandoned copy, so the running store never reads it;
 *       only a replay could. Replay applies records by sequence number, newest wins, tombstones
 *       included ({@link ReplayApplier}). The write that made the copy stale was appended under the
 *       key's shard lock after the copy's record was current, so its sequence number is higher, and
 *       it shadows the copy in any replay that sees both. ({@code CompactionRaceCrashTest} fails at
 *       once if copies get new numbers.)
 *   <li><b>A record is copied only if the index held it at some moment after the pass began</b> (a
 *       validated optimistic read, or the read lock when writers keep invalidating it; never a
 *       guess). So an abandoned copy is newer than every tombstone of its key that existed when the
 *       pass began, which is every tombstone in this pass's victims: dropping one of those (below)
 *       cannot expose the copy. What shadows the copy is the later write, which went to the active
 *       log segment, never a victim of this pass.
 *   <li><b>A tombstone outlives every segment that may hold an older record of its key</b>: it is
 *       dropped only when every segment outside the pass's victims starts at a higher sequence
 *       number. An output holding an abandoned copy starts at or below the copy's number, so while
 *       that output exists the tombstone that shadows the copy is carried forward, however often
 *       its own segment is compacted. When the output is itself compacted, the copy is not current
 *       and is dropped (rule 2: it is never copied again), and only then may the tombstone go.
 * </ol>
 *
 * <p>Against the recovery paths: a checkpoint cannot run during a pass (both hold the maintenance
 * lock); one after the pass names its outputs, and recovery never replays compaction outputs named
 * by the checkpoint (their records are old; the checkpoint's index, which points at no abandoned
 * copy, is authoritative), while the log segments after the checkpoint's replay position hold the
 * writes that made copies stale. A crash before any later checkpoint: recovery from an older
 * checkpoint deletes the unnamed outputs and replays the victims, still on disk; with no checkpoint
 * at all, everything is replayed, outputs and victims alike, and rule 1 settles each key. The
 * outputs' garbage counters include the abandoned copies, and a checkpoint saves them with the
 * rest. A full replay recounts them the same way (a record shadowed by a newer one is dead).
 *
 * <h2>Crash safety of a pass</h2>
 *
 * Outputs are written under a temporary name and registered in the segment table as they are
 * created, and the index reaches copies before they are durable. That is safe because the index is
 * never durable by itself: only a checkpoint makes it so, a checkpoint cannot run during a pass,
 * and the outputs are sealed (fsync), renamed and the directory fsynced before the pass ends. The
 * victims stay on disk, merely obsolete, until a later checkpoint that no longer names them is
 * durable. Recovery deletes an output that no checkpoint names, and full replay without a
 * checkpoint orders records by sequence number, so duplicates are harmless. A kill at any step
 * therefore leaves every acknowledged write readable. A pass that fails (a full disk, an I/O error)
 * points every key it moved back at its victim, unregisters and deletes its outputs, and leaves the
 * victims as they were; the maintenance agent retries later. Expired records are different: taking
 * their keys out of the index must wait until the tombstones that shadow older records are durable,
 * so those changes are applied after publishing.
 *
 * <h2>Readers</h2>
 *
 * Readers are never blocked: a publication holds the key's shard write lock for one slot update,
 * which invalidates optimistic readers of that shard only for that instant. The copy's bytes are
 * written before the lock is taken, so a reader that sees the new slot sees the record. A reader
 * that found a copy in an output that a failing pass then unmaps retries, as for any unmapped
 * segment.
 *
 * <h2>What is dropped</h2>
 *
 * Overwritten and deleted values. A tombstone, or an expired value (rewritten as a tombstone), is
 * dropped only when no other segment could still hold an older record of its key (every other
 * segment's lowest sequence number is above it); otherwise it is carried forward.
 */
final class Compactor {
  private static final long THROTTLE_CHUNK = 1 << 20;
  private static final long THROTTLE_SLICE_NANOS = 50_000_000L;

  /** Dead fraction at which a background pass rewrites a segment whatever the log's size. */
  static final double ALMOST_ALL_DEAD = 0.9;

  private final MaintenanceLock lock;
  private final MaintenanceLock.Action sealer;
  private final ObsoleteSegments obsolete;
  private final StoreHealth health;
  private final MaintenanceCounters counters;
  private final FileIO io;
  private final Path directory;
  private final Shard[] shards;
  private final KeyHasher hasher;
  private final SegmentTable segments;
  private final AtomicLong segmentIds;
  private final CellarOptions options;

  /** What a pass that gave up returns instead of the bytes it reclaimed. */
  static final long YIELDED = -1;

  /** Who runs this pass, which decides its pace and its victims. */
  enum Pass {
    /** The application's {@code compact()}: full speed, every segment at the garbage ratio. */
    NOW(false, false),
    /** The maintenance agent's: throttled, once the log has outgrown its live data. */
    BACKGROUND(true, false),
    /** The low-priority thread's: as {@link #BACKGROUND}, yielding to everyone else. */
    IDLE(true, true),
    /**
     * The low-priority thread's once writes have stopped ({@link IdleCompactor}): throttled and
     * yielding as {@link #IDLE}, but taking every segment at the garbage ratio, as {@link #NOW}
     * does. While writes go on, letting segments die further keeps compaction's share of the CPU
     * small; once they stop, nothing more will die, and the space is worth more than the copying.
     */
    AT_REST(true, true);

    /** Whether the pass is throttled to {@link CellarOptions#compactionBytesPerSecond()}. */
    final boolean throttled;

    /** Whether it yields to anyone waiting for the maintenance lock. */
    final boolean idle;

    Pass(boolean throttled, boolean idle) {
      this.throttled = throttled;
      this.idle = idle;
    }

    /** Whether it takes every segment at the garbage ratio, whatever the log's amplification. */
    boolean byGarbageRatio() {
      return this == NOW || this == AT_REST;
    }
  }

  private final Pass pass;

  private final RelocationList relocations = new RelocationList();

  /**
   * Records scanned per batch of index touches: enough misses in flight to fill the CPU's window.
   */
  private static final int BATCH = 32;

  private final long[] batchOffsets = new long[BATCH];
  private final long[] batchHashes = new long[BATCH];
  private final RecordView batchView = new RecordView();

  /** The batch's copies that publishCopies has yet to point the index at (see consider). */
  private final long[] copyHashes = new long[BATCH];

  private final long[] copyFrom = new long[BATCH];
  private final int[] copyOutput = new int[BATCH];
  private final long[] copyOffset = new long[BATCH];
  private final long[] copyLength = new long[BATCH];
  private final boolean[] copyTtl = new boolean[BATCH];
  private int copies;

  /**
   * Run between a batch's copies and their publication when set: a test widens the window in which
   * writers abandon copies with it (a pause), so that the race it checks happens on a busy host.
   */
  static volatile Runnable beforePublish;

  /** Where the touched words go, so the JIT cannot drop the reads as unused. */
  private long touchSink;

  /** The segments this pass writes; made when the pass starts (its dictionary is known then). */
  private CompactionOutputs outputs;

  private final Dictionaries dictionaries;

  /**
   * Asked every {@link #YIELD_CHECK_RECORDS} records; when true, the pass gives up. Null: never.
   */
  private final BooleanSupplier yieldWhen;

  private static final int YIELD_CHECK_RECORDS = 1024;

  private int recordsSinceYieldCheck;
  private long processedSinceSleep;
  private long throttleStart = System.nanoTime();

  Compactor(
      MaintenanceLock lock,
      MaintenanceLock.Action sealer,
      ObsoleteSegments obsolete,
      StoreHealth health,
      MaintenanceCounters counters,
      FileIO io,
      Path directory,
      Shard[] shards,
      KeyHasher hasher,
      SegmentTable segments,
      AtomicLong segmentIds,
      CellarOptions options,
      Dictionaries dictionaries,
      Pass pass,
      BooleanSupplier yieldWhen) {
    this.dictionaries = dictionaries;
    this.lock = lock;
    this.sealer = sealer;
    this.obsolete = obsolete;
    this.health = health;
    this.counters = counters;
    this.io = io;
    this.directory = directory;
    this.shards = shards;
    this.hasher = hasher;
    this.segments = segments;
    this.segmentIds = segmentIds;
    this.options = options;
    this.pass = pass;
    this.yieldWhen = yieldWhen;
  }

  /**
   * Runs one pass; returns bytes reclaimed (victims' size minus outputs' size), or {@link #YIELDED}
   * if a low-priority pass found someone waiting for the lock before it began.
   */
  long runOnce() throws IOException {
    MaintenanceLock.Work<Long> work =
        () -> {
          // Segments the writer has left are candidates as soon as they are sealed; do it now
          // rather than leave a caller's compact() to the agent's timing.
          sealer.run();
          long now = System.currentTimeMillis();
          List<Segment> victims = chooseVictims(now);
          if (victims.isEmpty()) {
            return 0L;
          }
          health.compacting(true);
          try {
            return compact(victims, now);
          } finally {
            health.compacting(false);
          }
        };
    return pass.idle ? lock.holdForIdlePass(work, YIELDED) : lock.hold(work);
  }

  private long compact(List<Segment> victims, long now) throws IOException {
    long olderThan = lowestSeqOutside(victims);
    try (LiveRecords live = LiveRecords.of(victims, shards)) {
      outputs =
          new CompactionOutputs(
              io, directory, segments, segmentIds, options, dictionaryFor(victims, live, now));
      for (Segment victim : victims) {
        copyLive(victim, live, olderThan, now);
      }
      outputs.publish();
    } catch (IOException | RuntimeException e) {
      if (outputs != null) {
        discardOutputs(e);
      }
      for (Segment victim : victims) {
        victim.adviseRandomReads(); // still served, at random
      }
      throw e;
    }
    long before = 0;
    try {
      applyRelocations();
      for (Segment victim : victims) {
        before += victim.end();
        obsolete.add(victim);
      }
    } finally {
      for (Segment output : outputs.all()) {
        output.passOutput(false); // published: from now on its records are counted here
      }
    }
    long after = outputs.all().stream().mapToLong(Segment::end).sum();
    counters.compactions.increment();
    counters.compactedBytes.add(Math.max(0, before - after));
    return Math.max(0, before - after);
  }

  /**
   * Victims of this pass. An explicit pass, or one at rest, takes every sealed segment at least
   * {@link CellarOptions#compactionGarbageRatio()} dead. A background pass works only once the log
   * has outgrown its live data by {@link CellarOptions#compactionSpaceAmplification()}, and then
   * takes the deadest segments first: under random overwrites, rewriting a segment of dead fraction
   * g copies (1 - g) / g live bytes per byte it frees, so letting segments die further before
   * copying them is what keeps compaction's share of the CPU small (at g = 0.5, one relocation per
   * overwrite; at 0.8, a quarter). Segments almost entirely dead cost next to nothing to rewrite
   * and are taken at any time, as are runs of small segments (file count).
   */
  private List<Segment> chooseVictims(long now) {
    // Writers add garbage while this runs: each segment's figures are read once, so the order and
    // the choice agree with each other.
    List<Candidate> sealed = new ArrayList<>();
    long logBytes = 0;
    long garbageBytes = 0;
    for (Segment s : segments.all()) {
      if (s.obsolete()) {
        continue;
      }
      long data = s.end() - s.dataStart();
      long dead = s.garbageBytes(now);
      logBytes += Math.max(0, data);
      garbageBytes += dead;
      if (s.state() == Segment.State.SEALED && data > 0 && !s.damaged()) {
        sealed.add(new Candidate(s, dead, (double) dead / data));
      }
    }
    List<Candidate> stale = new ArrayList<>();
    sealed.sort(Comparator.comparingDouble(Candidate::deadFraction).reversed());
    double threshold;
    if (pass.byGarbageRatio()) {
      threshold = options.compactionGarbageRatio();
    } else if (overgrown(logBytes, garbageBytes)) {
      threshold = Double.MIN_VALUE;
    } else {
      threshold = ALMOST_ALL_DEAD;
    }
    List<Candidate> garbage = new ArrayList<>();
    List<Candidate> small = new ArrayList<>();
    for (Candidate c : sealed) {
      if (c.deadFraction() >= threshold) {
        garbage.add(c);
      } else if (stale(c.segment())) {
        stale.add(c);
      } else if (c.segment().end() < options.segmentBytes() / 4) {
        small.add(c);
      }
    }
    if (small.size() >= 2) {
      garbage.addAll(small);
    }
    // Segments of an older key (or plaintext, in a store now encrypted) are rewritten with the
    // current key whatever their garbage: that is how a key is rotated out. Likewise segments not
    // compressed with the store's codec: that is how sealed log segments get compressed.
    garbage.addAll(stale);
    List<Segment> chosen = new ArrayList<>();
    long live = 0;
    for (Candidate c : garbage) {
      long estimate = c.segment().end() - c.deadBytes();
      if (staleCodec(c.segment())) {
        // Its values are about to shrink: about a third of their size, for the documents a store
        // that compresses is expected to hold (docs/benchmarks.md, compression design).
        estimate /= 3;
      }
      if (!chosen.isEmpty() && live + estimate > options.segmentBytes() * 0.9) {
        break;
      }
      chosen.add(c.segment());
      live += estimate;
    }
    boolean loneSmall =
        chosen.size() == 1
            && !stale(chosen.getFirst())
            && small.stream().anyMatch(c -> c.segment() == chosen.getFirst());
    return loneSmall ? List.of() : chosen;
  }

  private record Candidate(Segment segment, long deadBytes, double deadFraction) {}

  /**
   * The dictionary this pass compresses with: none if the store does not compress; else the store's
   * current one, trained first (from the victims' live values) if there is none yet or it was
   * trained on few values.
   */
  private ValueDictionary dictionaryFor(List<Segment> victims, LiveRecords live, long now) {
    Compression codec = options.compression();
    if (codec == Compression.NONE) {
      return null;
    }
    ValueDictionary current = dictionaries.current(codec);
    // One found on disk may be larger than segments of the size the store now has can hold.
    boolean fits =
        current == null
            || current.length() <= CodecBlockDescriptor.maxDictionaryBytes(options.segmentBytes());
    if (!fits || dictionaries.wantsTraining(codec)) {
      DictionarySampler sampler = sample(victims, live, now);
      if (!fits || dictionaries.worthTraining(codec, sampler.count())) {
        dictionaries.adopt(sampler.train(codec, options.segmentBytes()));
      }
    }
    return dictionaries.current(codec);
  }

  /**
   * Live values of the victims, spread over all of them: about {@link
   * DictionarySampler#MAX_TOTAL_BYTES} of them whatever the victims hold, so that the dictionary
   * learns from the whole pass rather than from its first records.
   */
  private DictionarySampler sample(List<Segment> victims, LiveRecords live, long now) {
    DictionarySampler sampler = new DictionarySampler();
    long estimate = 0;
    for (Segment v : victims) {
      estimate += Math.max(0, v.end() - v.dataStart() - v.deadBytes());
    }
    double rate = Math.min(1, DictionarySampler.MAX_TOTAL_BYTES / (double) Math.max(1, estimate));
    double[] credit = {0};
    byte[][] scratch = {new byte[4096]};
    for (Segment victim : victims) {
      if (sampler.full()) {
        break;
      }
      try (DirectScan direct = victim.directReads() ? DirectScan.open(victim) : null) {
        SegmentScanner.scan(
            direct != null ? direct.memory() : victim.memory(),
            victim.cipher(),
            victim.dictionary(),
            victim.dataStart(),
            victim.end(),
            true,
            false,
            offset -> !live.pointedAt(victim, offset),
            -1,
            direct,
            record -> {
              if (sampler.full() || record.isDelete() || record.expiredAt(now)) {
                return;
              }
              credit[0] += rate;
              if (credit[0] < 1) {
                return;
              }
              credit[0] -= 1;
              int n = (int) record.valueLength();
              if (n < DictionarySampler.MIN_VALUE_BYTES) {
                return;
              }
              if (scratch[0].length < n) {
                scratch[0] = new byte[n];
              }
              MemorySegment.copy(
                  record.valueData(),
                  ValueLayout.JAVA_BYTE,
                  record.valueOffset(),
                  scratch[0],
                  0,
                  n);
              sampler.add(scratch[0], 0, n);
              if (direct != null) {
                direct.releaseBefore(record.offset());
              }
            });
      }
    }
    return sampler;
  }

  /**
   * Whether {@code s} is not encrypted with the current key of a store that has keys: compaction
   * then rewrites it, re-encrypting its live records.
   */
  private boolean stale(Segment s) {
    return staleKey(s) || staleCodec(s);
  }

  /**
   * Whether {@code s} is not compressed with the codec of a store that compresses: compaction then
   * rewrites it, compressing its values (a store set back to none leaves compressed segments as
   * they are, until their garbage brings compaction to them).
   */
  private boolean staleCodec(Segment s) {
    Compression codec = options.compression();
    return codec != Compression.NONE && (s.dictionary() == null || s.dictionary().codec() != codec);
  }

  private boolean staleKey(Segment s) {
    EncryptionKeys keys = options.encryptionKeys();
    return keys != null && (s.cipher() == null || s.cipher().keyId() != keys.currentId());
  }

  /**
   * The log's size and garbage, as a background pass judges them: obsolete segments (already
   * compacted, waiting for a checkpoint) and the outputs of a pass in progress do not count.
   */
  static LogFigures logFigures(SegmentTable segments, long now) {
    long logBytes = 0;
    long garbageBytes = 0;
    for (Segment s : segments.all()) {
      if (s.obsolete() || s.passOutput()) {
        continue;
      }
      logBytes += Math.max(0, s.end() - s.dataStart());
      garbageBytes += s.garbageBytes(now);
    }
    return new LogFigures(logBytes, garbageBytes);
  }

  /** The log's bytes and how many of them are garbage. */
  record LogFigures(long logBytes, long garbageBytes) {
    /** The log's size over its live data. */
    double amplification() {
      long live = logBytes - garbageBytes;
      return live <= 0 ? (logBytes > 0 ? Double.POSITIVE_INFINITY : 1) : (double) logBytes / live;
    }
  }

  /**
   * Whether the log has outgrown its live data by the configured factor, and by at least a
   * segment's worth of garbage (below that, no pass could free a whole file).
   */
  private boolean overgrown(long logBytes, long garbageBytes) {
    long live = logBytes - garbageBytes;
    return garbageBytes >= options.segmentBytes()
        && logBytes >= live * options.compactionSpaceAmplification();
  }

  /**
   * Lowest seq in any segment other than the victims: tombstones at or above it may still matter.
   */
  private long lowestSeqOutside(List<Segment> victims) {
    long lowest = Long.MAX_VALUE;
    for (Segment s : segments.all()) {
      if (!victims.contains(s)) {
        lowest = Math.min(lowest, s.minSeq());
      }
    }
    return lowest;
  }

  /**
   * Scans a victim a batch of records at a time: the batch's index slots are touched first, so
   * their cache misses overlap, and only then is each record checked against the index and copied.
   * Checked one by one, every record waits for its own miss, and that wait was most of a pass.
   */
  private void copyLive(Segment victim, LiveRecords live, long lowestOtherSeq, long now)
      throws IOException {
    // A store that reads with O_DIRECT scans with O_DIRECT too, in large sequential requests: its
    // page cache holds nothing worth the churn a victim read through the mapping would cause.
    DirectScan direct;
    try {
      direct = victim.directReads() ? DirectScan.open(victim) : null;
    } catch (RuntimeException e) {
      throw new IOException(
          "cannot read " + victim.path().getFileName() + ": " + e.getMessage(), e);
    }
    try {
      copyLive(victim, direct, live, lowestOtherSeq, now);
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    } finally {
      scanMemory = null;
      if (direct != null) {
        direct.close();
      }
    }
  }

  /** The victim's bytes the pass copies from: its mapping, or a {@link DirectScan}'s memory. */
  private MemorySegment scanMemory;

  private void copyLive(
      Segment victim, DirectScan direct, LiveRecords live, long lowestOtherSeq, long now)
      throws IOException {
    MemorySegment memory = direct != null ? direct.memory() : victim.memory();
    scanMemory = memory;
    if (direct == null) {
      // Read from start to end: read-ahead pays here, where point reads turned it off.
      victim.adviseScan();
    }
    IOException[] failure = {null};
    int[] pending = {0};
    // Records the index did not point at when the pass began are stepped over without their CRC,
    // hash or index lookup, which were most of the cost of the dead majority of a victim.
    SegmentScanner.Result scanned =
        SegmentScanner.scan(
            memory,
            victim.cipher(),
            null,
            victim.dataStart(),
            victim.end(),
            true,
            false,
            offset -> !live.pointedAt(victim, offset),
            -1,
            direct,
            record -> {
              if (failure[0] != null) {
                return;
              }
              batchOffsets[pending[0]] = record.offset();
              batchHashes[pending[0]] =
                  KeyHasher.ofRecord(
                      hasher.hash(record.data(), record.keyOffset(), record.keyLength()),
                      record.type());
              if (++pending[0] == BATCH) {
                pending[0] = 0;
                failure[0] = considerBatch(victim, BATCH, lowestOtherSeq, now);
                if (direct != null) {
                  direct.releaseBefore(batchOffsets[0]);
                }
              }
            });
    if (failure[0] == null && pending[0] > 0) {
      failure[0] = considerBatch(victim, pending[0], lowestOtherSeq, now);
    }
    if (failure[0] != null) {
      throw failure[0];
    }
    // Bytes the scan stepped over that are not records, other than the holes recovery skipped
    // (which no key points into). A live record among them would be left behind, its key pointing
    // into a file this pass deletes: fail the pass (which moves the keys it re-pointed back and
    // discards its outputs) and leave the segment alone from now on.
    Optional<SegmentScanner.Damage> damaged =
        scanned.damage().stream().filter(d -> !victim.insideRecoveredHole(d)).findFirst();
    if (damaged.isPresent()) {
      victim.markDamaged();
      SegmentScanner.Damage first = damaged.get();
      throw new IOException(
          victim.path().getFileName()
              + " holds "
              + scanned.damage().size()
              + " damaged region(s), the first "
              + first.length()
              + " bytes at offset "
              + first.offset()
              + " ("
              + first.reason()
              + "); compaction leaves this segment as it is from now on. Its intact records stay readable; "
              + "'cellar tool verify' lists the damage");
    }
  }

  private IOException considerBatch(Segment victim, int count, long lowestOtherSeq, long now) {
    recordsSinceYieldCheck += count;
    if (yieldWhen != null && recordsSinceYieldCheck >= YIELD_CHECK_RECORDS) {
      recordsSinceYieldCheck = 0;
      if (yieldWhen.getAsBoolean()) {
        return new CompactionYieldedException("compaction pass yielded");
      }
    }
    for (int i = 0; i < count; i++) {
      touch(batchHashes[i]);
    }
    copies = 0;
    try {
      for (int i = 0; i < count; i++) {
        // Verified by the scan a moment ago; parsed again only to read its fields.
        batchView.parseScanned(victim, scanMemory, batchOffsets[i]);
        consider(victim, batchView, batchHashes[i], lowestOtherSeq, now);
        throttle(batchView.length());
      }
      Runnable pause = beforePublish;
      if (pause != null) {
        pause.run();
      }
      publishCopies();
      return null;
    } catch (IOException e) {
      // Copies not yet published are in outputs the failing pass deletes; nothing points at them.
      copies = 0;
      return e;
    }
  }

  private void consider(Segment victim, RecordView record, long hash, long lowestOtherSeq, long now)
      throws IOException {
    long location = LogLocation.of(victim.slot(), record.offset());
    boolean olderMayExist = lowestOtherSeq < record.seq();
    if (record.isDelete()) {
      if (olderMayExist && currentLocation(hash, record.key()) == 0) {
        outputs.copy(scanMemory, record);
      }
      return;
    }
    if (record.expiredAt(now)) {
      if (isCurrent(hash, location)) {
        long offset = olderMayExist ? outputs.writeTombstone(record) : -1;
        relocations.addExpiry(hash, location, outputs.currentIndex(), offset);
      }
      return;
    }
    if (!currentNow(hash, location)) {
      return;
    }
    // Copied without any lock: the index is pointed at the copy later, by publishCopies, and only
    // if the key still has this record then (see the design note on abandoned copies).
    long offset = outputs.copy(scanMemory, record);
    copyHashes[copies] = hash;
    copyFrom[copies] = location;
    copyOutput[copies] = outputs.currentIndex();
    copyOffset[copies] = offset;
    copyLength[copies] = outputs.lastLength();
    copyTtl[copies] = record.expireAt() != 0;
    copies++;
  }

  /**
   * Points the index at the batch's copies, each under its shard's write lock for one slot update,
   * and only where the slot still holds the victim's location. A copy whose key was overwritten or
   * deleted since its check is abandoned: it stays in the output, accounted there as garbage, and
   * recovery never prefers it (it keeps its record's sequence number).
   */
  private void publishCopies() {
    for (int i = 0; i < copies; i++) {
      long hash = copyHashes[i];
      Segment out = outputs.all().get(copyOutput[i]);
      long to = LogLocation.of(out.slot(), copyOffset[i]);
      Shard shard = shardOf(hash);
      boolean moved;
      long stamp = shard.lock.writeLock();
      try {
        moved = shard.index.relocate(hash, copyFrom[i], to);
      } finally {
        shard.lock.unlockWrite(stamp);
      }
      if (moved) {
        relocations.addMove(hash, copyFrom[i], copyOutput[i], copyOffset[i]);
      } else {
        out.addDead(copyLength[i]);
        if (copyTtl[i]) {
          out.removeTtl(copyLength[i]);
        }
        counters.abandonedCopies.increment();
      }
    }
    copies = 0;
  }

  private Shard shardOf(long hash) {
    return shards[(int) hash & (shards.length - 1)];
  }

  private void touch(long hash) {
    touchSink ^= shardOf(hash).index.touch(hash);
  }

  /**
   * Whether the index holds {@code location} for the key at this moment: read under an optimistic
   * stamp, so that a writer of the shard is never made to wait, and under the read lock only when
   * writers keep invalidating the stamp. Never a guess: a record is copied only if it was current
   * at some moment after the pass began, which is what lets a pass drop a tombstone without looking
   * at its own abandoned copies (see the design note).
   */
  private boolean currentNow(long hash, long location) {
    Shard shard = shardOf(hash);
    for (int attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      long stamp = shard.lock.tryOptimisticRead();
      if (stamp == 0) {
        continue;
      }
      try {
        boolean holds = shard.index.holds(hash, location);
        if (shard.lock.validate(stamp)) {
          return holds;
        }
      } catch (RuntimeException torn) {
        // a table freed or shifted under the read: the stamp is invalid, try again
      }
    }
    return isCurrent(hash, location);
  }

  private static final int OPTIMISTIC_ATTEMPTS = 4;

  private boolean isCurrent(long hash, long location) {
    Shard shard = shardOf(hash);
    long stamp = shard.lock.readLock();
    try {
      return shard.index.holds(hash, location);
    } finally {
      shard.lock.unlockRead(stamp);
    }
  }

  private long currentLocation(long hash, MemorySegment key) {
    Shard shard = shardOf(hash);
    long stamp = shard.lock.readLock();
    try {
      return shard.index.get(hash, key);
    } finally {
      shard.lock.unlockRead(stamp);
    }
  }

  /**
   * Undoes a pass that failed: points the keys it moved back at their victims, then unregisters,
   * closes and deletes its outputs (nothing refers to them any more). A pass that fails for lack of
   * space and is retried must not leave files holding the very space it lacked, nor their
   * descriptors and mappings.
   */
  private void discardOutputs(Exception failure) {
    moveBack();
    outputs.discard(failure);
    relocations.clear();
  }

  /** Takes the keys of expired records out of the index, now that their tombstones are durable. */
  private void applyRelocations() {
    try {
      removeExpired();
    } finally {
      relocations.clear();
    }
  }

  private void removeExpired() {
    for (long i = 0; i < relocations.size(); i++) {
      if (!relocations.expired(i)) {
        continue;
      }
      long hash = relocations.hash(i);
      Shard shard = shardOf(hash);
      long stamp = shard.lock.writeLock();
      try {
        if (shard.index.removeLocation(hash, relocations.from(i))) {
          counters.expiredKeys.increment();
        }
      } finally {
        shard.lock.unlockWrite(stamp);
      }
    }
  }

  /**
   * Points every key this pass moved, and that still points at its copy, back at its victim: the
   * outputs are about to be discarded. A key overwritten since points at its new record and stays.
   */
  private void moveBack() {
    for (long i = 0; i < relocations.size(); i++) {
      if (relocations.expired(i)) {
        continue;
      }
      long hash = relocations.hash(i);
      long copy =
          LogLocation.of(outputs.all().get(relocations.output(i)).slot(), relocations.offset(i));
      Shard shard = shardOf(hash);
      long stamp = shard.lock.writeLock();
      try {
        shard.index.relocate(hash, copy, relocations.from(i));
      } finally {
        shard.lock.unlockWrite(stamp);
      }
    }
  }

  private void throttle(long bytes) throws CompactionYieldedException {
    if (!pass.throttled) {
      return;
    }
    processedSinceSleep += bytes;
    if (processedSinceSleep < THROTTLE_CHUNK) {
      return;
    }
    long allowedNanos = processedSinceSleep * 1_000_000_000L / options.compactionBytesPerSecond();
    long until = throttleStart + allowedNanos;
    // In slices, so that a pass that should yield does not first sleep out its whole budget.
    for (long left; (left = until - System.nanoTime()) > 0; ) {
      if (yieldWhen != null && yieldWhen.getAsBoolean()) {
        throw new CompactionYieldedException("compaction pass yielded while throttled");
      }
      try {
        Thread.sleep(Math.max(1, Math.min(left, THROTTLE_SLICE_NANOS) / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    processedSinceSleep = 0;
    throttleStart = System.nanoTime();
  }
}
