package dev.cellar.io;

import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.io.PowerLossModel.Choice;
import dev.cellar.io.StoreFile.MapKind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The simulated disk and its power-loss model, on hand-made histories with known answers. */
class PowerLossModelTest {
  private static final Path DIR = Path.of("/sim");
  private static final Path FILE = DIR.resolve("f");
  private static final int SECTOR = DiskEvent.SECTOR;

  @Test
  void fsyncedDataSurvivesAndUnsyncedDataMayNot() throws Exception {
    try (SimulatedFileIO disk = new SimulatedFileIO(4096)) {
      StoreFile f = disk.open(FILE, true);
      disk.syncDirectory(DIR);
      f.write(filled(SECTOR, 1), 0);
      f.force();
      f.write(filled(SECTOR, 2), 0);
      PowerLossModel model = atEnd(disk);
      assertEquals(1, model.crashImage(Choice.DROP_ALL, new Random(1)).get(FILE)[0]);
      assertEquals(2, model.crashImage(Choice.KEEP_ALL, new Random(1)).get(FILE)[0]);
    }
  }

  @Test
  void aFileWhoseCreationWasNotFollowedByADirectorySyncMayVanish() throws Exception {
    try (SimulatedFileIO disk = new SimulatedFileIO(4096)) {
      StoreFile f = disk.open(FILE, true);
      f.write(filled(10, 1), 0);
      f.force();
      PowerLossModel model = atEnd(disk);
      assertFalse(model.crashImage(Choice.DROP_ALL, new Random(1)).containsKey(FILE));
      assertTrue(model.crashImage(Choice.KEEP_ALL, new Random(1)).containsKey(FILE));
      disk.syncDirectory(DIR);
      disk.rename(FILE, DIR.resolve("g"));
      model = atEnd(disk);
      Map<Path, byte[]> dropped = model.crashImage(Choice.DROP_ALL, new Random(1));
      assertEquals(Set.of(FILE), dropped.keySet(), "an unsynced rename is undone");
      assertArrayEquals(filled(10, 1).array(), dropped.get(FILE));
      assertEquals(
          Set.of(DIR.resolve("g")), model.crashImage(Choice.KEEP_ALL, new Random(1)).keySet());
    }
  }

  @Test
  void writesThroughAMappingAreSeenAtTheNextSeamCall() throws Exception {
    try (SimulatedFileIO disk = new SimulatedFileIO(4096)) {
      StoreFile f = disk.open(FILE, true);
      disk.syncDirectory(DIR);
      MemorySegment mapped = f.map(MapKind.READ_WRITE, 0, 4096, Arena.ofAuto());
      assertEquals(4096, f.size(), "a writable mapping extends the file, as FileChannel.map does");
      mapped.set(ValueLayout.JAVA_BYTE, 3 * SECTOR, (byte) 7);
      f.force();
      PowerLossModel model = atEnd(disk);
      assertEquals(7, model.crashImage(Choice.DROP_ALL, new Random(1)).get(FILE)[3 * SECTOR]);
      ByteBuffer read = ByteBuffer.allocate(1);
      f.read(read, 3 * SECTOR);
      assertEquals(7, read.get(0), "read sees what the mapping wrote");
    }
  }

  @Test
  void aWriteThroughAMappingPastTheEndOfTheFileIsAViolation() throws Exception {
    try (SimulatedFileIO disk = new SimulatedFileIO(4096)) {
      StoreFile f = disk.open(FILE, true);
      MemorySegment mapped = f.map(MapKind.READ_WRITE, 0, 4096, Arena.ofAuto());
      f.truncate(SECTOR);
      mapped.set(ValueLayout.JAVA_BYTE, 2 * SECTOR, (byte) 1);
      f.force();
      assertEquals(1, disk.violations().size(), disk.violations().toString());
    }
  }

  @Test
  void randomChoicesTearSectorsIndependentlyAndKeepIntermediateVersions() throws Exception {
    try (SimulatedFileIO disk = new SimulatedFileIO(4096)) {
      StoreFile f = disk.open(FILE, true);
      disk.syncDirectory(DIR);
      f.write(filled(2 * SECTOR, 0), 0);
      f.force();
      f.write(filled(2 * SECTOR, 1), 0);
      f.write(filled(2 * SECTOR, 2), 0);
      PowerLossModel model = atEnd(disk);
      Set<String> seen = new HashSet<>();
      Random random = new Random(42);
      for (int i = 0; i < 200; i++) {
        byte[] image = model.crashImage(Choice.RANDOM, random).get(FILE);
        seen.add(image[0] + "," + image[SECTOR]);
      }
      assertEquals(9, seen.size(), "every version of each sector, in every combination: " + seen);
    }
  }

  @Test
  void adversarialChoiceKeepsLaterSectorsAndDropsEarlierOnes() throws Exception {
    try (SimulatedFileIO disk = new SimulatedFileIO(4096)) {
      StoreFile f = disk.open(FILE, true);
      disk.syncDirectory(DIR);
      f.truncate(4 * SECTOR);
      f.force();
      f.write(filled(4 * SECTOR, 9), 0);
      byte[] image = atEnd(disk).crashImage(Choice.ADVERSARIAL, new Random(3)).get(FILE);
      assertEquals(0, image[0], "the first written sector is dropped");
      assertEquals(9, image[3 * SECTOR], "the last written sector is kept");
    }
  }

  @Test
  void aRecordingDiskStartsFromADurableImage() throws Exception {
    Map<Path, byte[]> image = Map.of(FILE, filled(SECTOR, 5).array());
    try (SimulatedFileIO disk = SimulatedFileIO.recording(image, 4096)) {
      disk.open(FILE, false).write(filled(SECTOR, 6), 0);
      PowerLossModel model = new PowerLossModel(image, disk.trace());
      model.advanceTo(disk.trace().size());
      assertEquals(5, model.crashImage(Choice.DROP_ALL, new Random(1)).get(FILE)[0]);
      assertEquals(6, model.crashImage(Choice.KEEP_ALL, new Random(1)).get(FILE)[0]);
    }
  }

  private static PowerLossModel atEnd(SimulatedFileIO disk) {
    PowerLossModel model = new PowerLossModel(disk.trace());
    model.advanceTo(disk.trace().size());
    return model;
  }

  private static ByteBuffer filled(int length, int value) {
    byte[] bytes = new byte[length];
    java.util.Arrays.fill(bytes, (byte) value);
    return ByteBuffer.wrap(bytes);
  }
}
