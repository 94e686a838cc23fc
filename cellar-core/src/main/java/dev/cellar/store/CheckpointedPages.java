package dev.cellar.store;

import dev.cellar.log.Segment;
import dev.cellar.platform.IoSwitches;
import dev.cellar.platform.MemoryPressure;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * In {@code io buffered}, after each checkpoint: when memory is tight ({@link MemoryPressure}), the
 * page cache is told to drop the segments sealed since the previous checkpoint ({@code
 * posix_fadvise(DONTNEED)} and {@code MADV_DONTNEED} on their mapping). Their pages are there
 * because the store wrote them, not because anyone read them; the checkpoint covers them, so
 * recovery will not read them either; and under a memory limit they would otherwise be reclaimed
 * beside pages a reader needs, by the kernel's guess of which is which. A page read since sealing
 * is dropped too and read back when needed: that is the hint's cost.
 *
 * <p>Only segments sealed since the previous checkpoint, whether or not memory was tight then: a
 * segment sealed long ago holds what readers have read since, not what the writer left.
 *
 * <p><b>Off unless asked for</b> ({@code cellar.io.checkpointDrop=true}, {@link
 * IoSwitches#CHECKPOINT_DROP}): a hint is kept only for a measured gain, and where it was measured
 * ({@code cellar bench io}'s pressure part, docs/benchmarks.md) it showed none.
 *
 * <p>Called by the thread that wrote the checkpoint, under the maintenance lock.
 */
final class CheckpointedPages {
  private final boolean enabled;
  private final BooleanSupplier tight;
  private long dropped;

  /** {@code enabled}: {@code io buffered} and {@link IoSwitches#CHECKPOINT_DROP}. */
  CheckpointedPages(boolean enabled, BooleanSupplier tight) {
    this.enabled = enabled;
    this.tight = tight;
  }

  /** After a checkpoint that covers every segment in {@code segments} that is sealed. */
  void afterCheckpoint(List<Segment> segments) {
    if (!enabled) {
      return;
    }
    Boolean isTight = null;
    for (Segment s : segments) {
      if (s.takeSealedSinceCheckpoint()) {
        if (isTight == null) {
          isTight = tight.getAsBoolean();
        }
        if (isTight && !s.obsolete()) {
          s.dropCachedPages();
          dropped++;
        }
      }
    }
  }

  /** Segments whose pages were dropped since open. */
  long dropped() {
    return dropped;
  }
}
