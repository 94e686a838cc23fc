package dev.cellar.cli.tool;

import dev.cellar.IncompatibleFormatException;
import dev.cellar.cli.tool.Finding.Severity;
import dev.cellar.inspect.CheckpointFile;
import dev.cellar.inspect.SegmentFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Checks checkpoints with the core's own reader, through {@link CheckpointFile} (header, checksums,
 * shard layout) and finds the one an open would use, whose replay position tells what data is known
 * durable.
 *
 * <p>A checkpoint is written under a temporary name, fsynced and renamed, so no crash leaves a
 * damaged one: any damage is an error, even though an open would survive it by falling back to an
 * older checkpoint or a full replay. A missing segment is an error only in the newest checkpoint:
 * an older one may name segments that compaction has since replaced, and the next open deletes it.
 */
public final class CheckpointVerifier {
  private CheckpointVerifier() {}

  /**
   * One checkpoint as read.
   *
   * @param description what it holds, or null when it could not be read
   * @param position its replay position, or null when it could not be read
   * @param segments ids of the segments it names
   */
  public record Result(
      String name,
      String description,
      ReplayPosition position,
      List<Long> segments,
      List<Finding> findings) {
    public boolean readable() {
      return position != null;
    }
  }

  /** Reads {@code path}, which must have {@code shards} shards. */
  public static Result read(Path path, int shards) {
    String name = path.getFileName().toString();
    try {
      CheckpointFile checkpoint = CheckpointFile.read(path, shards);
      return new Result(
          name,
          describe(checkpoint),
          new ReplayPosition(checkpoint.replayFromSegment(), checkpoint.replayFromOffset(), name),
          checkpoint.segments().stream().map(CheckpointFile.Entry::segmentId).toList(),
          List.of());
    } catch (CheckpointFile.Invalid | IncompatibleFormatException e) {
      // The reader's messages start with the file name, which the finding already shows.
      String reason =
          e.getMessage().startsWith(name + ": ")
              ? e.getMessage().substring(name.length() + 2)
              : e.getMessage();
      return failed(name, reason);
    } catch (IOException e) {
      return failed(name, "could not be read: " + e);
    }
  }

  /**
   * The replay position of the checkpoint recovery would load: the newest readable one whose
   * segments all exist ({@code segmentIds}), or {@link ReplayPosition#NONE}.
   *
   * @param newestFirst read results, newest first
   */
  public static ReplayPosition replayPosition(List<Result> newestFirst, Set<Long> segmentIds) {
    for (Result r : newestFirst) {
      if (r.readable() && segmentIds.containsAll(r.segments())) {
        return r.position();
      }
    }
    return ReplayPosition.NONE;
  }

  /** Findings about segments {@code result} names that are missing or unreadable. */
  public static List<Finding> missingSegments(
      Result result, boolean newest, Set<Long> usableSegmentIds) {
    List<String> missing =
        result.segments().stream()
            .filter(id -> !usableSegmentIds.contains(id))
            .map(SegmentFile::fileName)
            .toList();
    if (missing.isEmpty()) {
      return List.of();
    }
    String list = String.join(", ", missing);
    if (newest) {
      return List.of(
          Finding.ofFile(
              Severity.ERROR,
              result.name(),
              "names segments that are missing or unreadable: "
                  + list
                  + "; an open falls back to an older checkpoint or a full replay, and their records are lost"));
    }
    return List.of(
        Finding.ofFile(
            Severity.NOTE,
            result.name(),
            "older checkpoint naming segments since replaced ("
                + list
                + "); the next open deletes it"));
  }

  private static Result failed(String name, String reason) {
    return new Result(
        name, null, null, List.of(), List.of(Finding.ofFile(Severity.ERROR, name, reason)));
  }

  private static String describe(CheckpointFile checkpoint) {
    return String.format(
        Locale.ROOT,
        "%,d keys in %d shards, %d segment(s), replay from %s offset %,d, next seq %,d",
        checkpoint.keys(),
        checkpoint.shards(),
        checkpoint.segments().size(),
        SegmentFile.fileName(checkpoint.replayFromSegment()),
        checkpoint.replayFromOffset(),
        checkpoint.nextSeq());
  }
}
