package dev.cellar.log;

import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target for {@link SegmentScanner} and {@link RecordView} on their own: thousands of times
 * faster than opening a store ({@code SegmentFileFuzzTest} does that), so the fuzzer gets deep into
 * the record decoder and the resynchronisation rules.
 *
 * <h2>Properties, for a sealed and an unsealed scan, with and without seq ordering</h2>
 *
 * <ul>
 *   <li>No exception; nothing outside {@code [start, limit)} is read (the bytes are scanned inside
 *       a larger segment whose surroundings change, and the result must not).
 *   <li>Records visited carry a valid CRC, follow each other or a reported damaged region, and
 *       (with seq ordering) have increasing seqs.
 *   <li>Records and damage tile {@code [start, validEnd)} in order without overlap; damage after
 *       {@code validEnd} lies inside the limit.
 *   <li>The fast and byte-wise header decoders agree at every visited record.
 * </ul>
 */
class SegmentScannerFuzzTest {
  private static final int PAD = 16;

  @MethodSource("records")
  @FuzzTest(maxDuration = "15s")
  void scan(byte[] bytes) {
    for (boolean sealed : new boolean[] {true, false}) {
      for (boolean ordered : new boolean[] {true, false}) {
        List<long[]> a = checkedScan(bytes, sealed, ordered, (byte) 0);
        List<long[]> b = checkedScan(bytes, sealed, ordered, (byte) RecordDescriptor.PUT);
        assertEquals(describe(a), describe(b), "the scan read outside its range");
      }
    }
  }

  /** A few records back to back, as a log holds them: the fuzzer's starting points. */
  static Stream<byte[]> records() {
    byte[] log = new byte[512];
    MemorySegment m = MemorySegment.ofArray(log);
    int at = 0;
    at += RecordDescriptor.write(m, at, RecordDescriptor.PUT, bytes("key1"), bytes("value1"), 1, 0);
    at +=
        RecordDescriptor.write(
            m, at, RecordDescriptor.PUT, bytes("k"), bytes(""), 2, 4_102_444_800_000L);
    at += RecordDescriptor.write(m, at, RecordDescriptor.DELETE, bytes("key1"), null, 3, 0);
    at +=
        RecordDescriptor.write(
            m, at, RecordDescriptor.PUT, bytes("key2"), bytes("v".repeat(200)), 300, 0);
    return Stream.of(Arrays.copyOf(log, at), Arrays.copyOf(log, at + 20));
  }

  /** Scans {@code bytes} placed between {@code filler}s; returns records and damage in order. */
  private static List<long[]> checkedScan(
      byte[] bytes, boolean sealed, boolean ordered, byte filler) {
    byte[] buf = new byte[PAD + bytes.length + PAD];
    Arrays.fill(buf, filler);
    System.arraycopy(bytes, 0, buf, PAD, bytes.length);
    MemorySegment memory = MemorySegment.ofArray(buf);
    long start = PAD;
    long limit = PAD + bytes.length;
    List<long[]> records = new ArrayList<>();
    long[] lastSeq = {-1};
    RecordView slow = new RecordView();
    SegmentScanner.Result result =
        SegmentScanner.scan(
            memory,
            start,
            limit,
            sealed,
            ordered,
            view -> {
              assertTrue(
                  view.offset() >= start && view.offset() + view.length() <= limit,
                  "record outside the range");
              assertTrue(
                  view.checksumValid(), "visited a record with a bad CRC at " + view.offset());
              assertTrue(
                  slow.parseSlow(memory, view.offset(), limit),
                  "byte-wise decoder rejects a record at " + view.offset());
              assertEquals(view.length(), slow.length());
              assertEquals(view.seq(), slow.seq());
              assertEquals(view.expireAt(), slow.expireAt());
              if (ordered) {
                assertTrue(view.seq() > lastSeq[0], "seq " + view.seq() + " after " + lastSeq[0]);
                lastSeq[0] = view.seq();
              }
              records.add(new long[] {view.offset() - start, view.length(), 0});
            });
    assertEquals(records.size(), result.records());
    List<long[]> all = new ArrayList<>(records);
    for (SegmentScanner.Damage d : result.damage()) {
      assertTrue(d.length() > 0, "empty damage at " + d.offset());
      assertTrue(
          d.offset() >= start && d.offset() + d.length() <= limit,
          "damage outside the range: " + d);
      all.add(new long[] {d.offset() - start, d.length(), 1});
    }
    all.sort((x, y) -> Long.compare(x[0], y[0]));
    long at = 0;
    long validEnd = result.validEnd() - start;
    for (long[] piece : all) {
      if (piece[0] < validEnd) {
        assertEquals(
            at, piece[0], "a gap or overlap before offset " + piece[0] + " in " + describe(all));
      } else {
        assertTrue(piece[0] >= at, "overlap at " + piece[0] + " in " + describe(all));
      }
      at = piece[0] + piece[1];
    }
    assertTrue(validEnd >= 0 && validEnd <= bytes.length, "validEnd " + validEnd);
    if (!records.isEmpty()) {
      long[] last = records.getLast();
      assertEquals(validEnd, last[0] + last[1], "validEnd is not the end of the last record");
    }
    return all;
  }

  private static String describe(List<long[]> pieces) {
    return pieces.stream()
        .map(p -> (p[2] == 0 ? "record@" : "damage@") + p[0] + "+" + p[1])
        .toList()
        .toString();
  }

  private static MemorySegment bytes(String s) {
    return MemorySegment.ofArray(s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
  }
}
