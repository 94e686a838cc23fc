package dev.cellar.crash;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.cellar.CellarOptions;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.store.Store;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a writing child JVM with SIGKILL at random moments, reopens the store each time, and checks
 * that every acknowledged write survived and nothing unacknowledged came back corrupt.
 *
 * <p>Per key and writer, the store must hold the last acknowledged operation or a later one the
 * writer had started (at most one per thread is in flight when the kill lands).
 */
class CrashRecoveryTest {
  @TempDir Path dir;

  @Test
  void killDuringWritesLosesNothingAcknowledged() throws Exception {
    crashLoop(8, false);
  }

  @Test
  void killDuringCompactionAndCheckpointsLosesNothingAcknowledged() throws Exception {
    crashLoop(8, true);
  }

  /**
   * The same with the store encrypted: kills land inside compaction of encrypted segments (which
   * decrypts and re-encrypts every record it moves), and after every cycle no file of the store
   * holds a value in plaintext, whatever the kill left half-written.
   */
  @Test
  void killDuringCompactionOfEncryptedSegmentsLosesNothingAndLeaksNothing() throws Exception {
    keyHex = "8f".repeat(16) + "1e".repeat(16);
    crashLoop(6, true);
  }

  @Test
  @Tag("slow")
  void manyKillsDuringEverything() throws Exception {
    crashLoop(60, true);
  }

  @Test
  @Tag("slow")
  void manyKillsDuringEverythingEncrypted() throws Exception {
    keyHex = "8f".repeat(16) + "1e".repeat(16);
    crashLoop(40, true);
  }

  /** The store's key in hex, or null for a plaintext store. */
  private String keyHex;

  private EncryptionKeys keys() {
    return keyHex == null ? null : EncryptionKeys.of(HexFormat.of().parseHex(keyHex));
  }

  /** A value as CrashWriter writes it ({@code <key>=<version>|}) found in any file of the store. */
  private static final Pattern PLAINTEXT_VALUE = Pattern.compile("t[0-9]+:k[0-9]+=[0-9]{9}");

  private void assertNoPlaintext() throws IOException {
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)) {
          String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
          Matcher m = PLAINTEXT_VALUE.matcher(bytes);
          assertFalse(m.find(), () -> f.getFileName() + " holds plaintext " + m.group());
        }
      }
    }
  }

  /** What the parent knows of one key: its last acknowledged operation. */
  private record Acked(long version, boolean delete) {}

  /**
   * An operation a thread started; the one per thread still open at the kill may or may not have
   * landed.
   */
  private record Attempt(String key, long version, boolean delete) {}

  private void crashLoop(int cycles, boolean maintenance) throws Exception {
    Random random = new Random(cycles * 31L + (maintenance ? 1 : 0));
    Map<String, Acked> acked = new HashMap<>();
    for (int cycle = 0; cycle < cycles; cycle++) {
      Process child = startChild(maintenance, (cycle + 1) * 100_000_000L);
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("open", lines.readLine(), "child did not open the store");
      long killAfterAcks = 50 + random.nextInt(1500);
      Map<String, Attempt> inFlight = new HashMap<>();
      long acks = 0;
      String line;
      while (acks < killAfterAcks && (line = lines.readLine()) != null) {
        acks += record(line, acked, inFlight);
      }
      child
          .toHandle()
          .destroyForcibly(); // SIGKILL; unlike Process.destroyForcibly it keeps our pipe open
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      // Acks printed between the kill decision and death are acknowledged too.
      while ((line = lines.readLine()) != null) {
        acks += record(line, acked, inFlight);
      }
      assertTrue(acks > 0, "child acknowledged nothing");
      if (keyHex != null) {
        assertNoPlaintext();
      }
      verify(acked, inFlight.values());
    }
  }

  private static int record(String line, Map<String, Acked> acked, Map<String, Attempt> inFlight) {
    String[] f = line.split(" ");
    if (f.length != 5) {
      return 0; // a line cut by the kill
    }
    String thread = f[1];
    Attempt attempt = new Attempt(f[2], Long.parseLong(f[3]), f[4].equals("del"));
    if (f[0].equals("try")) {
      inFlight.put(thread, attempt);
      return 0;
    }
    inFlight.remove(thread);
    acked.put(attempt.key(), new Acked(attempt.version(), attempt.delete()));
    return 1;
  }

  private void verify(Map<String, Acked> acked, java.util.Collection<Attempt> inFlight) {
    Map<String, Attempt> pending = new HashMap<>();
    for (Attempt a : inFlight) {
      pending.put(a.key(), a);
    }
    CellarOptions options =
        CellarOptions.defaults()
            .fsync(Fsync.NO)
            .segmentBytes(256 << 10)
            .maxValueBytes(4 << 10)
            .encryptionKeys(keys());
    try (Store db = Store.open(dir, options)) {
      // A key first written by an in-flight put that landed is acknowledged from now on.
      for (Attempt a : pending.values()) {
        if (!a.delete()
            && !acked.containsKey(a.key())
            && db.get(a.key().getBytes(StandardCharsets.UTF_8)) != null) {
          acked.put(a.key(), new Acked(a.version(), false));
        }
      }
      for (var e : acked.entrySet()) {
        String key = e.getKey();
        Acked last = e.getValue();
        Attempt maybe = pending.get(key);
        byte[] raw = db.get(key.getBytes(StandardCharsets.UTF_8));
        String context =
            key
                + " last acknowledged "
                + last
                + ", in flight "
                + maybe
                + "\n"
                + db.recoveryReport();
        if (raw == null) {
          assertTrue(
              last.delete() || (maybe != null && maybe.delete()),
              "acknowledged put lost: " + context);
          e.setValue(
              new Acked(maybe != null && maybe.delete() ? maybe.version() : last.version(), true));
          continue;
        }
        String value = new String(raw, StandardCharsets.UTF_8);
        assertTrue(
            value.startsWith(key + "=") && value.indexOf('|') > 0,
            "corrupt value " + value + " for " + context);
        long version = Long.parseLong(value.substring(key.length() + 1, value.indexOf('|')));
        boolean isLastAck = version == last.version() && !last.delete();
        boolean isInFlight = maybe != null && !maybe.delete() && version == maybe.version();
        assertTrue(
            isLastAck || isInFlight, "stale or phantom version " + version + " for " + context);
        // What the store now holds is the state later cycles build on.
        e.setValue(new Acked(version, false));
      }
    }
  }

  private Process startChild(boolean maintenance, long versionBase) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    return new ProcessBuilder(
            java,
            "--enable-native-access=ALL-UNNAMED",
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            CrashWriter.class.getName(),
            dir.toString(),
            "4",
            Boolean.toString(maintenance),
            Long.toString(versionBase),
            keyHex == null ? "" : keyHex)
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
  }
}
