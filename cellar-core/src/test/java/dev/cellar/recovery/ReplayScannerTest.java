package dev.cellar.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.log.RecordDescriptor;
import dev.cellar.log.SegmentScanner;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Recovery reads a segment's valid records with {@link ReplayScanner} and hands the rest, from the
 * first position that holds none, to {@link SegmentScanner}; together they must take exactly the
 * records, and report exactly the end and the damage, that {@link SegmentScanner} alone does. The
 * segments are seeded and damaged in the ways a crash or a bad disk leaves them: flipped bytes,
 * zeroed and overwritten ranges, a torn last record, a record whose seq is not after the previous
 * one, unwritten zeros at the end; sealed and unsealed, with and without seq ordering, at batch
 * sizes that end batches inside and at the edges of damage.
 */
class ReplayScannerTest {
  private static final int CASES = 3000;

  @Test
  void takesWhatTheGeneralScannerTakes() {
    SplittableRandom random = new SplittableRandom(20261126);
    int damaged = 0;
    int outOfOrder = 0;
    int units = 0;
    for (int c = 0; c < CASES; c++) {
      long seed = random.nextLong();
      Log log = write(new SplittableRandom(seed));
      outOfOrder += log.outOfOrder;
      units += log.units;
      byte[] bytes = log.bytes;
      damaged += damage(bytes, log.written, new SplittableRandom(seed + 1));
      MemorySegment memory = MemorySegment.ofArray(bytes);
      long limit = log.written + (c % 3 == 0 ? 0 : new SplittableRandom(seed).nextInt(200));
      limit = Math.min(limit, bytes.length);
      for (boolean sealed : new boolean[] {true, false}) {
        for (boolean ordered : new boolean[] {true, false}) {
          String expected = general(memory, limit, sealed, ordered);
          for (int batch : new int[] {1, 7, Recovery.DEFAULT_BATCH}) {
            assertEquals(
                expected,
                batched(memory, limit, sealed, ordered, batch),
                "seed "
                    + seed
                    + ", sealed "
                    + sealed
                    + ", ordered "
                    + ordered
                    + ", batch "
                    + batch);
          }
        }
      }
    }
    assertTrue(damaged > CASES / 2, "few segments were damaged: the test proves little");
    assertTrue(outOfOrder > CASES / 10, "few seqs out of order: the test proves little");
    assertTrue(units > CASES, "few atomic units: the test proves little");
  }

  /** The general scanner alone, as recovery used to scan. */
  private static String general(MemorySegment memory, long limit, boolean sealed, boolean ordered) {
    List<String> records = new ArrayList<>();
    SegmentScanner.Result result =
        SegmentScanner.scan(
            memory,
            0,
            limit,
            sealed,
            ordered,
            view -> records.add(view.offset() + "+" + view.length() + "@" + view.seq()));
    return describe(records, result);
  }

  /** Recovery's way: batches while the records are valid, then the general scanner. */
  private static String batched(
      MemorySegment memory, long limit, boolean sealed, boolean ordered, int capacity) {
    List<String> records = new ArrayList<>();
    ReplayScanner scanner = new ReplayScanner(memory, 0, limit, ordered);
    ReplayBatch batch = new ReplayBatch(capacity);
    boolean more = true;
    while (more) {
      batch.start(null);
      more = scanner.fill(batch);
      for (int i = 0; i < batch.size(); i++) {
        records.add(batch.offset(i) + "+" + batch.length(i) + "@" + batch.seq(i));
      }
    }
    SegmentScanner.Result rest =
        SegmentScanner.scan(
            memory,
            scanner.position(),
            limit,
            sealed,
            ordered,
            scanner.lastSeq(),
            view -> records.add(view.offset() + "+" + view.length() + "@" + view.seq()));
    assertEquals(scanner.records() + rest.records(), records.size(), "records miscounted");
    return describe(records, rest);
  }

  private static String describe(List<String> records, SegmentScanner.Result result) {
    return "records "
        + records
        + "\nvalid end "
        + result.validEnd()
        + "\ndamage "
        + result.damage();
  }

  private record Log(byte[] bytes, int written, int outOfOrder, int units) {}

  /** Records back to back, with unwritten zeros after them; seqs mostly increasing. */
  private static Log write(SplittableRandom random) {
    byte[] bytes = new byte[8192];
    MemorySegment m = MemorySegment.ofArray(bytes);
    int at = 0;
    long seq = 1 + random.nextInt(1000);
    int outOfOrder = 0;
    int count = 1 + random.nextInt(40);
    int unitSize = 0;
    int unitPos = 0;
    int units = 0;
    for (int i = 0; i < count; i++) {
      byte[] key = new byte[1 + random.nextInt(24)];
      random.nextBytes(key);
      boolean delete = random.nextInt(8) == 0;
      byte[] value = delete ? null : new byte[random.nextInt(120)];
      if (value != null) {
        random.nextBytes(value);
      }
      long expireAt = !delete && random.nextInt(6) == 0 ? 4_102_444_800_000L : 0;
      if (unitPos == unitSize && random.nextInt(6) == 0) {
        unitSize = 2 + random.nextInt(5); // an atomic unit: consecutive seqs, marked records
        unitPos = 0;
        units++;
      }
      int bits = 0;
      if (unitPos < unitSize) {
        bits = RecordDescriptor.unitBits(unitPos++, unitSize);
        seq += 1;
      } else if (random.nextInt(25) == 0) {
        seq -= random.nextInt(3); // the same seq again, or an older one
        outOfOrder++;
      } else {
        seq += 1 + random.nextInt(3);
      }
      int type = (delete ? RecordDescriptor.DELETE : RecordDescriptor.PUT) | bits;
      long length =
          RecordDescriptor.length(key.length, value == null ? 0 : value.length, seq, expireAt != 0);
      if (at + length > bytes.length) {
        break;
      }
      at +=
          RecordDescriptor.write(
              m,
              at,
              type,
              MemorySegment.ofArray(key),
              value == null ? null : MemorySegment.ofArray(value),
              seq,
              expireAt);
    }
    return new Log(bytes, at, outOfOrder, units);
  }

  /** Damages {@code bytes} (records in its first {@code written}); returns 1 if it did. */
  private static int damage(byte[] bytes, int written, SplittableRandom random) {
    if (written == 0) {
      return 0;
    }
    int at = random.nextInt(written);
    int length = 1 + random.nextInt(Math.min(64, bytes.length - at));
    switch (random.nextInt(6)) {
      case 0 -> bytes[at] ^= (byte) (1 << random.nextInt(8));
      case 1 -> Arrays.fill(bytes, at, at + length, (byte) 0);
      case 2 -> {
        for (int i = at; i < at + length; i++) {
          bytes[i] = (byte) random.nextInt(256);
        }
      }
      case 3 -> Arrays.fill(bytes, at, written, (byte) 0); // a torn tail
      case 4 -> bytes[written + random.nextInt(Math.min(16, bytes.length - written))] = 1;
      default -> {
        return 0;
      }
    }
    return 1;
  }
}
