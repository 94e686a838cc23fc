package dev.cellar.cli.tool;

import dev.cellar.inspect.SegmentFile;
import dev.cellar.inspect.StoreDirectory;
import dev.cellar.inspect.StoreMetaFile;
import java.io.IOException;
import java.util.List;

/**
 * Where the checkpoint an open would use says replay starts: every log byte before it was fsynced
 * before that checkpoint was published (the checkpoint writer syncs the log first). So damage
 * before this position is not a crash artifact even in a segment whose header is still unsealed,
 * and a file that ends before it has lost durable data.
 *
 * @param checkpoint the checkpoint's file name, for messages
 */
public record ReplayPosition(long segmentId, long offset, String checkpoint) {
  /** No usable checkpoint: nothing is known durable beyond what sealed headers say. */
  public static final ReplayPosition NONE = new ReplayPosition(-1, 0, "none");

  /**
   * The replay position of {@code store}'s usable checkpoint, found quietly: {@link #NONE} when the
   * identity file or every checkpoint is unusable (verify is the tool that reports why).
   */
  public static ReplayPosition of(StoreDirectory store) {
    try {
      int shards = StoreMetaFile.read(store.metaFile()).shards();
      List<CheckpointVerifier.Result> newestFirst =
          store.checkpoints().reversed().stream()
              .map(p -> CheckpointVerifier.read(p, shards))
              .toList();
      return CheckpointVerifier.replayPosition(newestFirst, store.segmentIds());
    } catch (IOException | StoreMetaFile.Unusable e) {
      return NONE;
    }
  }

  /** Whether byte {@code offset} of segment {@code id} was durable before the checkpoint. */
  public boolean covers(long id, long offset) {
    return id < segmentId || (id == segmentId && offset < this.offset);
  }

  @Override
  public String toString() {
    return this == NONE
        ? "none"
        : SegmentFile.fileName(segmentId) + " offset " + offset + " (" + checkpoint + ")";
  }
}
