package dev.cellar.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a child JVM ({@link UnitCrashWriter}) with SIGKILL while it writes atomic units under
 * {@code always} with compaction and checkpoints running, reopens the store each time and checks
 * every group: all of its keys hold one version's values or all are absent (never half a unit), and
 * that version is the last acknowledged one or the one in flight (nothing acknowledged is lost).
 */
class AtomicUnitCrashTest {
  private static final int THREADS = 3;

  @TempDir Path dir;

  @Test
  void killDuringAtomicWritesNeverLeavesHalfAUnit() throws Exception {
    crashLoop(6);
  }

  @Test
  @Tag("slow")
  void manyKillsDuringAtomicWrites() throws Exception {
    crashLoop(40);
  }

  private void crashLoop(int cycles) throws Exception {
    Random random = new Random(cycles);
    long[] acked = new long[THREADS];
    long[] tried = new long[THREADS];
    for (int cycle = 0; cycle < cycles; cycle++) {
      long base = (cycle + 1) * 100_000_000L;
      Process child = start(base);
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("open", lines.readLine(), "child did not open the store");
      int killAfter = 30 + random.nextInt(600);
      int acks = 0;
      String line;
      while (acks < killAfter && (line = lines.readLine()) != null) {
        acks += record(line, acked, tried);
      }
      child.toHandle().destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      while ((line = lines.readLine()) != null) {
        acks += record(line, acked, tried);
      }
      assertTrue(acks > 0, "child acknowledged nothing");
      verify(acked, tried);
    }
  }

  private static int record(String line, long[] acked, long[] tried) {
    String[] f = line.split(" ");
    if (f.length != 3) {
      return 0; // a line cut by the kill
    }
    int t = Integer.parseInt(f[1]);
    long v = Long.parseLong(f[2]);
    if (f[0].equals("try")) {
      tried[t] = v;
      return 0;
    }
    acked[t] = v;
    return 1;
  }

  /** Checks each group and sets its acknowledged version to what the store holds. */
  private void verify(long[] acked, long[] tried) {
    try (Cellar db =
        Cellar.open(dir, CellarOptions.defaults().segmentBytes(256 << 10).maxValueBytes(4 << 10))) {
      for (int t = 0; t < THREADS; t++) {
        long held = -1; // -1: not known yet; 0: absent
        for (int k = 0; k < UnitCrashWriter.groupSize(t); k++) {
          byte[] value = db.get(UnitCrashWriter.key(t, k));
          long v = value == null ? 0 : version(value);
          if (value != null) {
            assertEquals(
                new String(UnitCrashWriter.value(v, k), StandardCharsets.UTF_8),
                new String(value, StandardCharsets.UTF_8),
                "value of key " + k + " of group " + t);
          }
          if (held >= 0 && v != held) {
            fail(
                "group "
                    + t
                    + " holds half a unit: key "
                    + k
                    + " has version "
                    + v
                    + " after "
                    + held
                    + " (0 = absent)");
          }
          held = v;
        }
        boolean ok;
        if (held == 0) {
          // Absent: the last acknowledged version deleted, or the one in flight did.
          ok =
              UnitCrashWriter.deletes(acked[t])
                  || (tried[t] > acked[t] && UnitCrashWriter.deletes(tried[t]));
        } else {
          ok = held == acked[t] || (held == tried[t] && tried[t] > acked[t]);
        }
        assertTrue(
            ok,
            "group "
                + t
                + " holds version "
                + held
                + " (0 = absent); last acknowledged "
                + acked[t]
                + ", last tried "
                + tried[t]);
        // What the store holds (0: absent) is what later cycles build on.
        acked[t] = held;
        tried[t] = held;
      }
    }
  }

  private static long version(byte[] value) {
    String s = new String(value, StandardCharsets.UTF_8);
    return Long.parseLong(s.substring(0, s.indexOf('|')));
  }

  private Process start(long versionBase) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    return new ProcessBuilder(
            java,
            "--enable-native-access=ALL-UNNAMED",
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            UnitCrashWriter.class.getName(),
            dir.toString(),
            Integer.toString(THREADS),
            Long.toString(versionBase))
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
  }
}
