package dev.cellar.cli.tool;

import dev.cellar.EncryptionKeyException;
import dev.cellar.EncryptionKeys;
import dev.cellar.cli.text.ByteSize;
import dev.cellar.cli.tool.Finding.Severity;
import dev.cellar.inspect.SegmentFile;
import dev.cellar.inspect.StoreDirectory;
import dev.cellar.inspect.StoreMetaFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * Checks a whole store directory offline and prints what it finds as it goes: the identity file,
 * every segment, every checkpoint, leftover temporary files; then a summary.
 *
 * <p>It never opens the directory as a store: it takes no lock, writes nothing and maps segments
 * read-only, so it can run beside a live store (whose active segment then reads as unsealed, its
 * unwritten space as the clean end of the log) or on a read-only copy. Records are judged by the
 * core's own scanner and checkpoint reader; what counts as an error (damage no crash explains) is
 * set out in {@link SegmentVerifier} and {@link CheckpointVerifier}.
 *
 * <p>Single-threaded; one instance per run.
 */
public final class StoreVerifier {
  private final PrintWriter out;
  private final ProgressBar progress;
  private final RecordCounts totals = new RecordCounts();
  private final Set<Long> usableSegments = new HashSet<>();
  private long scannedBytes;
  private int errors;
  private int warnings;

  private EncryptionKeys keys;

  /** The ids of the keys the encrypted segments were written with. */
  private final java.util.SortedSet<Integer> keyIds = new java.util.TreeSet<>();

  private StoreVerifier(PrintWriter out, ProgressBar progress) {
    this.out = out;
    this.progress = progress;
  }

  /** The verdict of a run. */
  public record Summary(
      int segments,
      int checkpoints,
      RecordCounts records,
      long scannedBytes,
      int errors,
      int warnings) {
    public boolean clean() {
      return errors == 0;
    }
  }

  /**
   * Verifies {@code store}, printing to {@code out}.
   *
   * @param progressFactory makes the progress bar once the total byte count is known
   */
  public static Summary verify(
      StoreDirectory store, PrintWriter out, LongFunction<ProgressBar> progressFactory)
      throws IOException {
    return verify(store, null, out, progressFactory);
  }

  /**
   * As {@link #verify(StoreDirectory, PrintWriter, LongFunction)}, reading encrypted segments with
   * {@code keys} (null: none; an encrypted segment is then an error that names its key).
   */
  public static Summary verify(
      StoreDirectory store,
      EncryptionKeys keys,
      PrintWriter out,
      LongFunction<ProgressBar> progressFactory)
      throws IOException {
    long total = 0;
    for (Path segment : store.segments()) {
      total += Files.size(segment);
    }
    StoreVerifier verifier = new StoreVerifier(out, progressFactory.apply(total));
    verifier.keys = keys;
    return verifier.run(store);
  }

  private Summary run(StoreDirectory store) {
    out.println("Verifying " + store.path().toAbsolutePath().normalize());
    Integer shards = checkMeta(store);
    // Checkpoints are read first because the one an open would use tells which log bytes are
    // durable; they are reported after the segments, whose health decides if they are usable.
    List<CheckpointVerifier.Result> checkpoints = readCheckpoints(store, shards);
    ReplayPosition durable = CheckpointVerifier.replayPosition(checkpoints, store.segmentIds());
    for (Path path : store.segments()) {
      checkSegment(path, durable);
    }
    for (int i = checkpoints.size() - 1; i >= 0; i--) {
      reportCheckpoint(checkpoints.get(i), i == 0);
    }
    for (Path temp : store.temporary()) {
      report(
          Finding.ofFile(
              Severity.NOTE,
              temp.getFileName().toString(),
              "temporary file of an unfinished write (deleted on next open)"));
    }
    progress.clear();
    Summary summary =
        new Summary(
            store.segments().size(),
            store.checkpoints().size(),
            totals,
            scannedBytes,
            errors,
            warnings);
    printSummary(summary);
    return summary;
  }

  /** Returns the shard count, or null when the identity file is unusable. */
  private Integer checkMeta(StoreDirectory store) {
    try {
      StoreMetaFile meta = StoreMetaFile.read(store.metaFile());
      out.printf(
          Locale.ROOT,
          "%-32s format %d.%d, %d shards, created %s%n",
          StoreMetaFile.FILE_NAME,
          meta.major(),
          meta.minor(),
          meta.shards(),
          meta.created());
      return meta.shards();
    } catch (StoreMetaFile.Unusable e) {
      report(Finding.ofFile(Severity.ERROR, StoreMetaFile.FILE_NAME, e.getMessage()));
    } catch (IOException e) {
      report(Finding.ofFile(Severity.ERROR, StoreMetaFile.FILE_NAME, "could not be read: " + e));
    }
    return null;
  }

  private void checkSegment(Path path, ReplayPosition durable) {
    SegmentVerifier.Result result;
    try (SegmentFile segment = SegmentFile.open(path, keys)) {
      long base = scannedBytes;
      result =
          SegmentVerifier.verify(
              segment, durable, r -> progress.update(base + r.offset() + r.length()));
      if (segment.headerProblem() == null) {
        usableSegments.add(segment.id());
      }
      if (segment.encrypted()) {
        keyIds.add(segment.keyId());
      }
    } catch (IOException e) {
      report(
          Finding.ofFile(Severity.ERROR, path.getFileName().toString(), "could not be read: " + e));
      return;
    } catch (EncryptionKeyException e) {
      report(Finding.ofFile(Severity.ERROR, path.getFileName().toString(), e.getMessage()));
      return;
    }
    scannedBytes += result.scannedBytes();
    totals.add(result.counts());
    progress.clear();
    out.printf(
        Locale.ROOT,
        "%-32s %-18s %s, %s%n",
        result.name(),
        result.state(),
        result.counts(),
        ByteSize.format(result.counts().bytes()));
    result.findings().forEach(this::report);
  }

  /** Reads every checkpoint, newest first; none when the shard count is unknown. */
  private List<CheckpointVerifier.Result> readCheckpoints(StoreDirectory store, Integer shards) {
    if (shards == null) {
      for (Path path : store.checkpoints()) {
        report(
            Finding.ofFile(
                Severity.WARNING,
                path.getFileName().toString(),
                "not checked: the shard count in cellar.meta is unknown"));
      }
      return List.of();
    }
    return store.checkpoints().reversed().stream()
        .map(path -> CheckpointVerifier.read(path, shards))
        .toList();
  }

  private void reportCheckpoint(CheckpointVerifier.Result result, boolean newest) {
    if (result.readable()) {
      out.printf(Locale.ROOT, "%-32s %s%n", result.name(), result.description());
    }
    result.findings().forEach(this::report);
    CheckpointVerifier.missingSegments(result, newest, usableSegments).forEach(this::report);
  }

  private void report(Finding finding) {
    switch (finding.severity()) {
      case ERROR -> errors++;
      case WARNING -> warnings++;
      case NOTE -> {}
    }
    progress.clear();
    out.println("  " + finding);
  }

  private void printSummary(Summary s) {
    out.println();
    out.printf(
        Locale.ROOT,
        "Summary: %s, %s, %s scanned; %s%n",
        count(s.segments(), "segment"),
        s.records(),
        ByteSize.format(s.scannedBytes()),
        count(s.checkpoints(), "checkpoint"));
    if (!keyIds.isEmpty()) {
      // Which keys an encrypted store still needs: one missing here can leave the key file.
      out.printf(Locale.ROOT, "Encryption keys in use: %s%n", keyIds);
    }
    if (s.segments() == 0 && s.checkpoints() == 0 && s.errors() > 0) {
      out.println("This does not look like a Cellar store directory.");
    }
    out.printf(
        Locale.ROOT,
        "Result: %s (%s, %s)%n",
        s.clean() ? "OK" : "DAMAGED",
        count(s.errors(), "error"),
        count(s.warnings(), "warning"));
    out.flush();
  }

  private static String count(long n, String noun) {
    return String.format(Locale.ROOT, "%,d %s%s", n, noun, n == 1 ? "" : "s");
  }
}
