package dev.cellar.crash;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.cellar.CellarOptions;
import dev.cellar.Compression;
import dev.cellar.EncryptionKeys;
import dev.cellar.Fsync;
import dev.cellar.IoMode;
import dev.cellar.log.Segment;
import dev.cellar.log.SegmentHeaderDescriptor;
import dev.cellar.store.Store;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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

  /**
   * The same with the store compressed and encrypted: compaction trains a dictionary on the values
   * the writers wrote and compresses (and re-encrypts) every sealed segment they fill, so kills
   * land inside compaction of compressed segments, while a codec block or a compressed record is
   * half written: each kill waits, past its random count of acknowledged writes, for a moment a
   * compaction pass is running. Every value reads back exactly, no file holds one in plaintext; at
   * the end some segment of the store is compressed, and most kills did land inside a pass (the
   * child says when a pass begins and ends; a pass may end before the kill lands).
   */
  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"ZSTD", "LZ4"})
  void killDuringCompactionOfCompressedEncryptedSegmentsLosesNothing(Compression codec)
      throws Exception {
    keyHex = "8f".repeat(16) + "1e".repeat(16);
    compression = codec;
    aimAtCompaction = true;
    crashLoop(5, true);
    assertSomeSegmentCompressed();
    assertTrue(
        killsInCompaction >= 1, "no kill of 5, nor of 5 more, landed inside a compaction pass");
  }

  /**
   * The same with the store reading with O_DIRECT: compaction reads its victims in large O_DIRECT
   * requests on a read-ahead thread of its own, and the reads of the writers' batches go through
   * the read cache; kills land inside those passes.
   */
  @Test
  void killDuringDirectCompactionOfCompressedEncryptedSegmentsLosesNothing() throws Exception {
    keyHex = "8f".repeat(16) + "1e".repeat(16);
    compression = Compression.ZSTD;
    io = IoMode.DIRECT;
    aimAtCompaction = true;
    crashLoop(5, true);
    assertSomeSegmentCompressed();
    assertTrue(
        killsInCompaction >= 1, "no kill of 5, nor of 5 more, landed inside a compaction pass");
  }

  /**
   * A store that reads and writes with O_DIRECT: under {@code fsync always} (the writer's mode) the
   * log is appended in the process's own memory and written out with O_DIRECT by the group commit
   * before each acknowledgment, and compaction's outputs are written the same way; a kill loses
   * nothing acknowledged, during writes, checkpoints and compaction alike.
   */
  @Test
  void killDuringDirectAppendsLosesNothingAcknowledged() throws Exception {
    io = IoMode.DIRECT;
    crashLoop(6, true);
  }

  @Test
  @Tag("slow")
  void manyKillsDuringDirectAppends() throws Exception {
    io = IoMode.DIRECT;
    crashLoop(40, true);
  }

  @Test
  @Tag("slow")
  void manyKillsDuringDirectCompactionOfCompressedEncryptedSegments() throws Exception {
    keyHex = "8f".repeat(16) + "1e".repeat(16);
    compression = Compression.ZSTD;
    io = IoMode.DIRECT;
    aimAtCompaction = true;
    crashLoop(40, true);
    assertSomeSegmentCompressed();
    assertTrue(killsInCompaction >= 10, killsInCompaction + " of 40 kills inside compaction");
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"ZSTD", "LZ4"})
  @Tag("slow")
  void manyKillsDuringCompactionOfCompressedEncryptedSegments(Compression codec) throws Exception {
    keyHex = "8f".repeat(16) + "1e".repeat(16);
    compression = codec;
    aimAtCompaction = true;
    crashLoop(40, true);
    assertSomeSegmentCompressed();
    assertTrue(killsInCompaction >= 10, killsInCompaction + " of 40 kills inside compaction");
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

  /** Whether each kill waits until a compaction pass is running. */
  private boolean aimAtCompaction;

  /** How many kills of this test landed while a compaction pass was running. */
  private int killsInCompaction;

  /** The codec the store compresses with. */
  private Compression compression = Compression.NONE;

  /** How the store reads its sealed segments. */
  private IoMode io = IoMode.BUFFERED;

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

  private void assertSomeSegmentCompressed() throws IOException {
    int compressed = 0;
    StringBuilder listing = new StringBuilder();
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        listing.append('\n').append(f.getFileName()).append(' ').append(Files.size(f));
        if (Segment.idOf(f.getFileName().toString()) >= 0
            && Files.size(f) >= SegmentHeaderDescriptor.LENGTH) {
          // The whole file: a compressed header is valid only with its codec block after it.
          MemorySegment file = MemorySegment.ofArray(Files.readAllBytes(f));
          if (SegmentHeaderDescriptor.validate(file, f.toString()) == null
              && SegmentHeaderDescriptor.isCompressed(file)) {
            compressed++;
          }
        }
      }
    }
    assertTrue(
        compressed > 0, "no segment of the store is compressed with " + compression + listing);
  }

  /** What the parent knows of one key: its last acknowledged operation. */
  private record Acked(long version, boolean delete) {}

  /**
   * An operation a thread started; the one per thread still open at the kill may or may not have
   * landed.
   */
  private record Attempt(String key, long version, boolean delete) {}

  /** Cycles a loop aimed at compaction may add while none of its kills landed inside a pass. */
  private static final int EXTRA_CYCLES = 5;

  private void crashLoop(int cycles, boolean maintenance) throws Exception {
    Random random = new Random(cycles * 31L + (maintenance ? 1 : 0));
    Map<String, Acked> acked = new HashMap<>();
    int cycle = 0;
    // A kill aimed at compaction can still land after the pass ended (a pass of a small store is
    // short): a loop with none inside a pass goes on, up to EXTRA_CYCLES more, until one is.
    for (;
        cycle < cycles
            || (aimAtCompaction && killsInCompaction == 0 && cycle < cycles + EXTRA_CYCLES);
        cycle++) {
      Process child = startChild(maintenance, (cycle + 1) * 100_000_000L);
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("open", lines.readLine(), "child did not open the store");
      long killAfterAcks = 50 + random.nextInt(1500);
      Map<String, Attempt> inFlight = new HashMap<>();
      long acks = 0;
      boolean compacting = false;
      String line;
      // Past its count of acks, a kill aimed at compaction waits for a line printed while a pass
      // runs: a random point of the pass, or its start.
      while ((acks < killAfterAcks || (aimAtCompaction && !compacting))
          && (line = lines.readLine()) != null) {
        acks += record(line, acked, inFlight);
        compacting = compacting(line, compacting);
      }
      child
          .toHandle()
          .destroyForcibly(); // SIGKILL; unlike Process.destroyForcibly it keeps our pipe open
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      // Acks printed between the kill decision and death are acknowledged too.
      while ((line = lines.readLine()) != null) {
        acks += record(line, acked, inFlight);
        compacting = compacting(line, compacting);
      }
      if (compacting) {
        killsInCompaction++;
      }
      assertTrue(acks > 0, "child acknowledged nothing");
      if (keyHex != null) {
        assertNoPlaintext();
      }
      verify(acked, inFlight.values());
    }
    System.out.println(
        getClass().getSimpleName()
            + ": "
            + killsInCompaction
            + " of "
            + cycle
            + " kills inside compaction ("
            + compression
            + ", io "
            + io
            + ")");
  }

  /** Whether a compaction pass is running after {@code line}, given whether one was before. */
  private static boolean compacting(String line, boolean before) {
    return line.equals("compaction begins") || (before && !line.startsWith("compaction ends"));
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
            .encryptionKeys(keys())
            .compression(compression)
            .io(io)
            .readCacheBytes(8 << 20);
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
        assertArrayEquals(
            CrashWriter.value(key, version), raw, "not the value version " + version + " wrote");
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
            keyHex == null ? "" : keyHex,
            compression.name(),
            io.name())
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
  }
}
