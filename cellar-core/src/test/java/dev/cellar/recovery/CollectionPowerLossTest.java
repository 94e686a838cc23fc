package dev.cellar.recovery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cellar.Cellar;
import dev.cellar.Fsync;
import dev.cellar.WriteBatch;
import dev.cellar.io.PowerLossModel;
import dev.cellar.io.PowerLossModel.Choice;
import dev.cellar.io.SimulatedFileIO;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Simulated power loss over collections as the server lays them out: each operation writes a header
 * (the collection's size) and elements in one {@link WriteBatch}, as a command does. After a crash
 * at any point of the recorded trace, every collection's header agrees with its elements (no half
 * of a command), and the store holds the state after some operation between the last one
 * acknowledged durable and the last one begun: under {@code always}, the last one acknowledged;
 * under {@code everysec} and {@code no}, a prefix of the operations at least as long as the one the
 * fsyncs kept, whatever order the unsynced pages reached the disk in (the prefix rule of
 * docs/format/log.md).
 */
class CollectionPowerLossTest {
  private static final int COLLECTIONS = 3;
  private static final int MEMBERS = 12;
  private static final int OPS = 300;
  @org.junit.jupiter.api.io.TempDir static Path dir;

  @BeforeAll
  static void quietRecoveryReports() {
    java.util.logging.Logger.getLogger("dev.cellar.store")
        .setLevel(java.util.logging.Level.WARNING);
  }

  @Test
  void alwaysKeepsEveryAcknowledgedCommandWhole() {
    for (long seed = 1; seed <= 3; seed++) {
      run(seed, Fsync.ALWAYS);
    }
  }

  @Test
  void everysecKeepsAPrefixOfCommandsWhole() {
    for (long seed = 11; seed <= 13; seed++) {
      run(seed, Fsync.EVERYSEC);
    }
  }

  @Test
  void noFsyncKeepsAPrefixOfCommandsWhole() {
    for (long seed = 21; seed <= 22; seed++) {
      run(seed, Fsync.NO);
    }
  }

  /** The state after each operation: per collection, its members (a header only if non-empty). */
  private record Recorded(List<Integer> begun, List<Integer> done, List<String> states) {}

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static Recorded record(long seed, Fsync mode, SimulatedFileIO disk) {
    Random random = new Random(seed);
    List<TreeSet<Integer>> model = new ArrayList<>();
    for (int c = 0; c < COLLECTIONS; c++) {
      model.add(new TreeSet<>());
    }
    List<Integer> begun = new ArrayList<>();
    List<Integer> done = new ArrayList<>();
    List<String> states = new ArrayList<>();
    states.add(describe(model)); // before any operation
    try (Cellar db = Cellar.open(dir, PowerLossWorkload.options(mode, disk))) {
      for (int op = 0; op < OPS; op++) {
        int c = random.nextInt(COLLECTIONS);
        TreeSet<Integer> members = model.get(c);
        WriteBatch batch = new WriteBatch();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
          int m = random.nextInt(MEMBERS);
          String element = "c" + c + ":" + m;
          if (members.contains(m) && random.nextBoolean()) {
            members.remove(m);
            batch.deleteElement(b(element));
          } else {
            members.add(m);
            batch.putElement(b(element), b("v" + op + "x".repeat(random.nextInt(600))));
          }
        }
        if (members.isEmpty()) {
          batch.delete(b("c" + c));
        } else {
          batch.putHeader(b("c" + c), b(Integer.toString(members.size())), Cellar.NO_EXPIRY);
        }
        begun.add(disk.mark("op " + op));
        db.write(batch);
        done.add(disk.mark("done " + op));
        states.add(describe(model));
      }
    }
    return new Recorded(begun, done, states);
  }

  private static String describe(List<TreeSet<Integer>> model) {
    return model.toString();
  }

  /** What the recovered store holds, described as the model is; fails on a disagreement. */
  private static String recovered(Cellar db, String where) {
    List<TreeSet<Integer>> found = new ArrayList<>();
    for (int c = 0; c < COLLECTIONS; c++) {
      TreeSet<Integer> members = new TreeSet<>();
      for (int m = 0; m < MEMBERS; m++) {
        if (db.readElement(MemorySegment.ofArray(b("c" + c + ":" + m)), v -> Boolean.TRUE)
            != null) {
          members.add(m);
        }
      }
      String header =
          db.readHeader(
              MemorySegment.ofArray(b("c" + c)),
              v -> new String(v.toArray(ValueLayout.JAVA_BYTE), UTF_8));
      String expected = members.isEmpty() ? null : Integer.toString(members.size());
      if (!java.util.Objects.equals(expected, header)) {
        fail(where + ": collection c" + c + " has header " + header + " but elements " + members);
      }
      found.add(members);
    }
    return describe(found);
  }

  private static void run(long seed, Fsync mode) {
    Recorded recorded;
    List<dev.cellar.io.DiskEvent> trace;
    try (SimulatedFileIO disk = new SimulatedFileIO(PowerLossWorkload.SEGMENT_BYTES)) {
      recorded = record(seed, mode, disk);
      trace = disk.trace();
    }
    Random random = new Random(seed * 31);
    TreeSet<Integer> cuts = new TreeSet<>();
    cuts.add(trace.size());
    while (cuts.size() < 60) {
      cuts.add(random.nextInt(trace.size() + 1));
    }
    PowerLossModel model = new PowerLossModel(trace);
    int checked = 0;
    for (int cut : cuts) {
      model.advanceTo(cut);
      // DROP_ALL first: what the fsyncs alone kept. Every other way of resolving the unsynced
      // writes keeps at least that much, and (under the prefix rule) a prefix of what followed,
      // however the page cache ordered its write-back: a later command's records never survive
      // without an earlier one's.
      Choice[] choices =
          !model.hasUnsyncedState()
              ? new Choice[] {Choice.KEEP_ALL}
              : new Choice[] {Choice.DROP_ALL, Choice.KEEP_ALL, Choice.RANDOM, Choice.ADVERSARIAL};
      int floor = 0;
      for (Choice choice : choices) {
        String where =
            "seed " + seed + ", " + mode + ", cut " + cut + " of " + trace.size() + ", " + choice;
        try (SimulatedFileIO disk =
                SimulatedFileIO.of(
                    model.crashImage(choice, random), PowerLossWorkload.SEGMENT_BYTES);
            Cellar db = Cellar.open(dir, PowerLossWorkload.options(mode, disk))) {
          String state = recovered(db, where);
          int lastDone = -1;
          int lastBegun = -1;
          for (int op = 0; op < OPS; op++) {
            if (recorded.done().get(op) <= cut) {
              lastDone = op;
            }
            if (recorded.begun().get(op) <= cut) {
              lastBegun = op;
            }
          }
          // The state after operation j is states[j + 1]. Under always, the last acknowledged
          // operation survives; otherwise the state the fsyncs kept, or a later one, but never a
          // state that never existed.
          int from = mode == Fsync.ALWAYS ? lastDone + 1 : floor;
          if (choice == Choice.KEEP_ALL) {
            from = lastDone + 1;
          }
          int matched = -1;
          for (int j = from; j <= lastBegun + 1 && matched < 0; j++) {
            if (recorded.states().get(j).equals(state)) {
              matched = j;
            }
          }
          if (matched < 0) {
            fail(
                where
                    + ": recovered "
                    + state
                    + ", which is no state between operations "
                    + (from - 1)
                    + " (kept by the fsyncs, or acknowledged) and "
                    + lastBegun
                    + " (begun)");
          }
          if (choice == Choice.DROP_ALL) {
            floor = matched;
          }
          checked++;
        }
      }
    }
    assertTrue(checked >= 60, "checked only " + checked + " crash states");
  }
}
