package dev.cellar.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.DiskFullException;
import dev.cellar.Fsync;
import dev.cellar.StoreIOException;
import dev.cellar.io.FaultInjectingFileIO;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultTest {
  @TempDir Path dir;

  @Test
  void diskFullFailsWritesKeepsReadsAndRecoversWhenSpaceReturns() {
    FaultInjectingFileIO io = new FaultInjectingFileIO();
    CellarOptions options =
        CellarOptions.defaults().fsync(Fsync.ALWAYS).segmentBytes(1 << 20).maxValueBytes(8 << 10).shards(4).fileIO(io);
    int acknowledged = 0;
    try (Cellar db = Cellar.open(dir, options)) {
      byte[] value = new byte[1000];
      io.diskFull = true;
      DiskFullException full = null;
      for (int i = 0; i < 100_000 && full == null; i++) {
        try {
          db.put(("k" + i).getBytes(UTF_8), value);
          acknowledged = i + 1;
        } catch (DiskFullException e) {
          full = e;
        }
      }
      assertNotNull(full, "the disk never filled");
      assertTrue(full.getMessage().contains("disk full"), full.getMessage());
      // Reads go on, and nothing acknowledged is lost.
      for (int i = 0; i < acknowledged; i++) {
        assertNotNull(db.get(("k" + i).getBytes(UTF_8)), "k" + i);
      }
      assertThrows(DiskFullException.class, () -> db.put("more".getBytes(UTF_8), value));
      io.diskFull = false;
      db.put("after".getBytes(UTF_8), "space returned".getBytes(UTF_8));
      assertArrayEquals("space returned".getBytes(UTF_8), db.get("after".getBytes(UTF_8)));
    }
    try (Cellar db = Cellar.open(dir, options.fileIO(new FaultInjectingFileIO()))) {
      for (int i = 0; i < acknowledged; i++) {
        assertNotNull(db.get(("k" + i).getBytes(UTF_8)), "k" + i + " after reopen");
      }
      assertNotNull(db.get("after".getBytes(UTF_8)));
    }
  }

  @Test
  void failedFsyncDisablesWritesButNotReads() {
    FaultInjectingFileIO io = new FaultInjectingFileIO();
    CellarOptions options = CellarOptions.defaults().fsync(Fsync.ALWAYS).segmentBytes(1 << 20).maxValueBytes(8 << 10).shards(4).fileIO(io);
    Cellar db = Cellar.open(dir, options);
    db.put("a".getBytes(UTF_8), "1".getBytes(UTF_8));
    io.fsyncFails = true;
    StoreIOException first = assertThrows(StoreIOException.class, () -> db.put("b".getBytes(UTF_8), "2".getBytes(UTF_8)));
    assertTrue(first.getMessage().contains("fsync failed"), first.getMessage());
    io.fsyncFails = false;
    // No retry-and-pretend: writes stay refused even though fsync would now succeed.
    StoreIOException later = assertThrows(StoreIOException.class, () -> db.put("c".getBytes(UTF_8), "3".getBytes(UTF_8)));
    assertTrue(later.getMessage().contains("writes are disabled"), later.getMessage());
    assertArrayEquals("1".getBytes(UTF_8), db.get("a".getBytes(UTF_8)));
    // Close releases everything without a checkpoint (nothing is promised past the failure).
    db.close();
    try (Cellar reopened = Cellar.open(dir, options.fileIO(new FaultInjectingFileIO()))) {
      assertArrayEquals("1".getBytes(UTF_8), reopened.get("a".getBytes(UTF_8)));
      reopened.put("c".getBytes(UTF_8), "3".getBytes(UTF_8));
    }
  }
}
