package dev.cellar.model;

import dev.cellar.io.FaultInjectingFileIO;
import dev.cellar.io.PowerLossModel;
import dev.cellar.io.SimulatedFileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;

/**
 * The disk under a model run: a recording {@link SimulatedFileIO} (in memory, so a run opens and
 * crashes stores by the hundred in seconds) behind a {@link FaultInjectingFileIO} that fails fsyncs
 * or fills the disk on request. A power loss takes the trace recorded since the disk was last
 * replaced, lets {@link PowerLossModel} draw one state it could leave, and replaces the disk with
 * that state, all of it durable.
 *
 * <p>Owned by the run's thread; the store's background threads only call the seam.
 */
final class ModelDisk implements AutoCloseable {
  final Path directory;
  private Map<Path, byte[]> initial = Map.of();
  private SimulatedFileIO simulated;
  private FaultInjectingFileIO faults;

  ModelDisk(Path directory) {
    this.directory = directory;
    replace(Map.of());
  }

  /** The seam to hand the store; its fault switches are {@link #faults()}. */
  FaultInjectingFileIO faults() {
    return faults;
  }

  /**
   * One state a power loss now could leave, drawn as {@code choice} says ({@code random} draws
   * among the allowed states). The store still open on the old disk must be closed before {@link
   * #replace}.
   */
  Map<Path, byte[]> crashImage(PowerLossModel.Choice choice, Random random) {
    return crashImage(choice, random, -1);
  }

  /**
   * As {@link #crashImage(PowerLossModel.Choice, Random)}, with the power lost at a random point
   * after the trace's event {@code from} (a {@link #mark}), or at the end if {@code from} is
   * negative.
   */
  Map<Path, byte[]> crashImage(PowerLossModel.Choice choice, Random random, int from) {
    java.util.List<dev.cellar.io.DiskEvent> trace = simulated.trace();
    PowerLossModel model = new PowerLossModel(initial, trace);
    model.advanceTo(from < 0 ? trace.size() : from + random.nextInt(trace.size() - from + 1));
    return model.crashImage(choice, random);
  }

  /** Marks the trace; returns the mark's index, for {@link #crashImage} to cut after. */
  int mark(String label) {
    return simulated.mark(label);
  }

  /** Writes the engine made through a mapping past the end of its file (SIGBUS on a real one). */
  java.util.List<String> violations() {
    return simulated.violations();
  }

  /** Swaps in a fresh disk holding {@code image}, durable, with the faults off. */
  void replace(Map<Path, byte[]> image) {
    if (simulated != null) {
      simulated.close();
    }
    initial = image;
    simulated = SimulatedFileIO.recording(image, Workload.SEGMENT_BYTES);
    faults = new FaultInjectingFileIO(simulated);
  }

  /** Deletes the checkpoints (between a close and an open), so the next open replays the log. */
  void deleteCheckpoints() throws IOException {
    for (Path file : simulated.list(directory)) {
      if (file.getFileName().toString().startsWith("checkpoint-")) {
        simulated.delete(file);
      }
    }
  }

  @Override
  public void close() {
    simulated.close();
  }
}
