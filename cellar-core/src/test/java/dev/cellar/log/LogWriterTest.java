package dev.cellar.log;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.CellarException;
import dev.cellar.io.FileIO;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log writer on its own: sequence numbers, locations, rolling to new segments, sync. */
class LogWriterTest {
  private static final long SEGMENT_BYTES = 64 << 10;

  @TempDir Path dir;
  private final SegmentTable table = new SegmentTable();
  private LogWriter log;

  private LogWriter open(long nextSeq) {
    log =
        new LogWriter(
            FileIO.platform(),
            dir,
            table,
            new AtomicLong(),
            SEGMENT_BYTES,
            nextSeq,
            System::currentTimeMillis);
    log.start(null);
    return log;
  }

  @AfterEach
  void close() {
    if (log != null) {
      log.stopPrefaulting();
    }
    for (Segment s : table.all()) {
      s.close();
    }
  }

  private static MemorySegment bytes(String s) {
    return MemorySegment.ofArray(s.getBytes(UTF_8));
  }

  @Test
  void eachAppendGetsTheNextSeqAndALocationItCanBeReadBackFrom() {
    open(100);
    List<Long> locations = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      locations.add(log.append(RecordDescriptor.PUT, bytes("k" + i), bytes("value " + i), 0));
      assertEquals(100 + i, log.appendedSeq());
    }
    RecordView view = new RecordView();
    for (int i = 0; i < 10; i++) {
      long location = locations.get(i);
      Segment segment = table.get(LogLocation.slot(location));
      assertTrue(view.parse(segment.memory(), LogLocation.offset(location), segment.end()));
      assertTrue(view.checksumValid(), "record " + i + " checks");
      assertEquals(100 + i, view.seq());
      assertEquals(
          "k" + i, new String(view.key().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), UTF_8));
      assertEquals(
          "value " + i,
          new String(view.value().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), UTF_8));
    }
  }

  @Test
  void theLastSeqBelowTheLimitIsWrittenAndTheNextWriteIsRefusedWithNothingAppended() {
    open(RecordDescriptor.SEQ_LIMIT - 1);
    long location = log.append(RecordDescriptor.PUT, bytes("last"), bytes("v"), 0);
    RecordView view = new RecordView();
    Segment segment = table.get(LogLocation.slot(location));
    assertTrue(view.parse(segment.memory(), LogLocation.offset(location), segment.end()));
    assertEquals(RecordDescriptor.SEQ_LIMIT - 1, view.seq(), "readers accept the last seq");
    long end = segment.end();
    CellarException refused =
        assertThrows(
            CellarException.class,
            () -> log.append(RecordDescriptor.PUT, bytes("past"), bytes("v"), 0));
    assertEquals(CellarException.Category.CORRUPT, refused.category());
    assertEquals(end, segment.end(), "nothing was appended");
    assertEquals(RecordDescriptor.SEQ_LIMIT, log.nextSeq());
  }

  @Test
  void aFullSegmentRollsToANewOneAndTellsItsListener() {
    open(1);
    AtomicInteger full = new AtomicInteger();
    log.onSegmentFull(full::incrementAndGet);
    byte[] value = new byte[1000];
    long first = log.append(RecordDescriptor.PUT, bytes("k0"), MemorySegment.ofArray(value), 0);
    long last = first;
    for (int i = 1; i < 200; i++) { // about 200 KB: three segments of 64 KiB
      last = log.append(RecordDescriptor.PUT, bytes("k" + i), MemorySegment.ofArray(value), 0);
    }
    assertTrue(LogLocation.slot(last) != LogLocation.slot(first), "the log moved on");
    assertTrue(full.get() >= 2, full.get() + " segments reported full");
    assertTrue(table.count() >= 3, table.count() + " segments");
    // Records never span segments, and every segment's seqs follow on from the previous one's.
    long next = 1;
    RecordView view = new RecordView();
    for (Segment s : table.all()) {
      long offset = SegmentHeaderDescriptor.LENGTH;
      while (offset < s.end()) {
        assertTrue(view.parse(s.memory(), offset, s.end()), "record at " + offset);
        assertEquals(next++, view.seq());
        offset += view.length();
      }
      assertEquals(s.end(), offset, "the last record ends at the segment's end");
    }
    assertEquals(201, next);
  }

  @Test
  void syncCoversEverythingAppendedBeforeIt() throws Exception {
    open(1);
    for (int i = 0; i < 50; i++) {
      log.append(RecordDescriptor.PUT, bytes("k" + i), bytes("v"), 0);
    }
    assertEquals(50, log.sync());
    log.append(RecordDescriptor.DELETE, bytes("k0"), null, 0);
    assertEquals(51, log.sync());
    assertEquals(52, log.nextSeq());
  }
}
