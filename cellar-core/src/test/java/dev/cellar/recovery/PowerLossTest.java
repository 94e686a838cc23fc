package dev.cellar.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cellar.Cellar;
import dev.cellar.Fsync;
import dev.cellar.io.DiskEvent;
import dev.cellar.io.PowerLossModel;
import dev.cellar.io.PowerLossModel.Choice;
import dev.cellar.io.SimulatedFileIO;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Simulated power loss: random workloads run once against a recording {@link SimulatedFileIO};
 * then, at random cut points of the recorded trace, {@link PowerLossModel} draws disk states a
 * power loss there could leave (only what was fsynced; everything; random sectors, lengths and
 * directory operations; later sectors kept with earlier ones dropped), a store is opened on each
 * (salvage off) and {@link PowerLossWorkload#check} judges every key, by get and by scan.
 *
 * <p>A failure names the seed, mode, cut and choice. The recording is deterministic for a seed
 * except for the store's background threads (the {@code everysec} flusher, the maintenance agent
 * sealing full segments), whose fsyncs can land elsewhere in a rerun. {@code -Dpowerloss.seed=N}
 * makes each test run that one seed instead, at every cut point of its trace (pick the test of the
 * failure's mode with {@code -Dtest=PowerLossTest#...}).
 */
class PowerLossTest {
  private static final int OPS_PER_WORKLOAD = 120;

  /** How often (in cuts) a crash state's recovery is itself cut. */
  private static final int CRASH_AGAIN_EVERY = 4;

  private static final int CUTS_DURING_RECOVERY = 3;

  /** Recovery reports every torn tail it cuts at INFO: thousands of lines here, all expected. */
  private static final Logger ENGINE_LOG = Logger.getLogger("dev.cellar");

  @TempDir Path dir;

  @BeforeAll
  static void quietRecoveryReports() {
    ENGINE_LOG.setLevel(Level.WARNING);
  }

  @Test
  void alwaysLosesNothingAcknowledged() {
    run(Fsync.ALWAYS, 1_000, 6, 120);
  }

  @Test
  void alwaysWithConcurrentWritersLosesNothingAcknowledged() {
    // Group commit: one writer's fsync acknowledges the others' writes.
    run(Fsync.ALWAYS, 4_000, 3, 120, 3);
  }

  @Test
  void everysecLosesNothingAcknowledgedBeforeTheLastSync() {
    run(Fsync.EVERYSEC, 2_000, 6, 120);
  }

  @Test
  void noLosesNothingAcknowledgedBeforeTheLastSync() {
    run(Fsync.NO, 3_000, 5, 120);
  }

  @Test
  @Tag("slow")
  void manyCutsInEveryMode() {
    for (Fsync mode : Fsync.values()) {
      run(mode, 10_000 + mode.ordinal() * 1_000, 30, 300);
    }
    run(Fsync.ALWAYS, 14_000, 20, 300, 3);
  }

  /** Totals of one run, printed so that they can be quoted. */
  private static final class Totals {
    int workloads;
    long events;
    int cuts;
    int crashStates;
    int recoveries;
    int secondCuts;
    long unsyncedSectors;
  }

  private void run(Fsync mode, long firstSeed, int workloads, int cutsPerWorkload) {
    run(mode, firstSeed, workloads, cutsPerWorkload, 1);
  }

  private void run(Fsync mode, long firstSeed, int workloads, int cutsPerWorkload, int writers) {
    String replay = System.getProperty("powerloss.seed");
    if (replay != null) {
      // Rerun one reported seed, at every cut point of its trace.
      firstSeed = Long.parseLong(replay);
      workloads = 1;
      cutsPerWorkload = Integer.MAX_VALUE;
    }
    Totals totals = new Totals();
    long started = System.nanoTime();
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long cpuStarted = threads.getCurrentThreadCpuTime();
    for (long seed = firstSeed; seed < firstSeed + workloads; seed++) {
      PowerLossWorkload workload =
          PowerLossWorkload.record(seed, mode, dir, OPS_PER_WORKLOAD, writers);
      assertEquals(
          List.of(),
          workload.violations,
          "seed " + seed + ": writes through a mapping past the end of file");
      totals.workloads++;
      totals.events += workload.trace.size();
      cutAndRecover(workload, cutsPerWorkload, totals);
    }
    System.out.printf(
        "power loss, fsync %s, %d writer(s): %d workloads, %d trace events, %d cut points, %d crash states (%d unsynced sectors in all), %d second cuts during recovery, %d recoveries checked, seeds %d..%d, %.1f s (%.1f s CPU in the test thread)%n",
        mode,
        writers,
        totals.workloads,
        totals.events,
        totals.cuts,
        totals.crashStates,
        totals.unsyncedSectors,
        totals.secondCuts,
        totals.recoveries,
        firstSeed,
        firstSeed + workloads - 1,
        (System.nanoTime() - started) / 1e9,
        (threads.getCurrentThreadCpuTime() - cpuStarted) / 1e9);
  }

  private void cutAndRecover(PowerLossWorkload workload, int cutsPerWorkload, Totals totals) {
    Random random = new Random(workload.seed * 1_000_003);
    int events = workload.trace.size();
    TreeSet<Integer> cuts = new TreeSet<>();
    cuts.add(events); // after the clean close: everything must be there
    if (cutsPerWorkload > events) {
      for (int cut = 0; cut <= events; cut++) {
        cuts.add(cut);
      }
    }
    // Half the cuts fall just before an fsync, rename or directory fsync: there the most is
    // unsynced, and a step that publishes something before the data it needs is durable shows up
    // only in the narrow window before the fsync that follows it.
    List<Integer> beforeDurability = new java.util.ArrayList<>();
    for (int i = 0; i < events; i++) {
      DiskEvent event = workload.trace.get(i);
      if (event instanceof DiskEvent.Force
          || event instanceof DiskEvent.SyncDirectory
          || event instanceof DiskEvent.Rename) {
        beforeDurability.add(i);
      }
    }
    java.util.Collections.shuffle(beforeDurability, random);
    for (int cut : beforeDurability) {
      if (cuts.size() >= cutsPerWorkload / 2) {
        break;
      }
      cuts.add(cut);
    }
    while (cuts.size() < Math.min(events + 1, cutsPerWorkload)) {
      cuts.add(random.nextInt(events + 1));
    }
    PowerLossModel model = new PowerLossModel(workload.trace);
    for (int cut : cuts) {
      model.advanceTo(cut);
      totals.cuts++;
      List<Choice> choices =
          model.hasUnsyncedState()
              ? List.of(
                  Choice.DROP_ALL,
                  Choice.KEEP_ALL,
                  Choice.RANDOM,
                  Choice.RANDOM,
                  Choice.ADVERSARIAL)
              : List.of(Choice.KEEP_ALL);
      totals.unsyncedSectors += model.unsyncedSectors();
      for (int i = 0; i < choices.size(); i++) {
        totals.crashStates++;
        // The first random state of every few cuts is also crashed again during its recovery.
        boolean crashAgain = i == 2 && totals.cuts % CRASH_AGAIN_EVERY == 0;
        recoverAndCheck(
            workload,
            cut,
            choices.get(i),
            model.crashImage(choices.get(i), random),
            crashAgain,
            random,
            totals);
      }
    }
  }

  /**
   * Opens a store on the image, checks it, closes it, and checks it again after a clean reopen.
   * With {@code crashAgain}, the recovery and close are recorded, and power is lost again at random
   * points of them: recovery itself writes (it seals, truncates, deletes), and whatever it leaves
   * must still be recoverable, with the same promises as the first crash.
   */
  private void recoverAndCheck(
      PowerLossWorkload workload,
      int cut,
      Choice choice,
      Map<Path, byte[]> image,
      boolean crashAgain,
      Random random,
      Totals totals) {
    String where =
        "seed "
            + workload.seed
            + ", fsync "
            + workload.mode
            + (workload.zeroFill ? " (zero-filled log)" : "")
            + ", cut "
            + cut
            + " of "
            + workload.trace.size()
            + " ("
            + workload.progressAt(cut)
            + "), "
            + choice
            + ": ";
    if (!crashAgain) {
      try (SimulatedFileIO disk = SimulatedFileIO.of(image, PowerLossWorkload.SEGMENT_BYTES)) {
        openAndCheck(disk, workload, cut, where + "recovery", totals);
        openAndCheck(disk, workload, cut, where + "reopen after recovery", totals);
      }
      return;
    }
    List<DiskEvent> recoveryTrace;
    try (SimulatedFileIO disk = SimulatedFileIO.recording(image, PowerLossWorkload.SEGMENT_BYTES)) {
      openAndCheck(disk, workload, cut, where + "recovery", totals);
      recoveryTrace = disk.trace();
      assertEquals(
          List.of(),
          disk.violations(),
          where + "recovery wrote through a mapping past the end of file");
    }
    PowerLossModel model = new PowerLossModel(image, recoveryTrace);
    TreeSet<Integer> cuts = new TreeSet<>();
    for (int i = 0; i < CUTS_DURING_RECOVERY; i++) {
      cuts.add(random.nextInt(recoveryTrace.size() + 1));
    }
    for (int second : cuts) {
      model.advanceTo(second);
      totals.secondCuts++;
      Choice again = random.nextBoolean() ? Choice.RANDOM : Choice.ADVERSARIAL;
      try (SimulatedFileIO disk =
          SimulatedFileIO.of(model.crashImage(again, random), PowerLossWorkload.SEGMENT_BYTES)) {
        openAndCheck(
            disk,
            workload,
            cut,
            where
                + "recovery after a second power loss at cut "
                + second
                + " of "
                + recoveryTrace.size()
                + " of the first recovery and close ("
                + again
                + ")",
            totals);
      }
    }
  }

  private static void openAndCheck(
      SimulatedFileIO disk, PowerLossWorkload workload, int cut, String where, Totals totals) {
    Cellar db;
    try {
      // The mode the store was written in does not matter to recovery; NO starts no flusher.
      db = Cellar.open(workload.directory, PowerLossWorkload.options(Fsync.NO, disk));
    } catch (RuntimeException e) {
      throw new AssertionError(where + " failed: " + e, e);
    }
    totals.recoveries++;
    String problem;
    try {
      problem = workload.check(db, cut);
      if (problem != null) {
        problem += "; recovery report: " + db.recoveryReport();
      }
    } finally {
      db.close();
    }
    if (problem != null) {
      throw new AssertionError(where + ": " + problem);
    }
  }
}
