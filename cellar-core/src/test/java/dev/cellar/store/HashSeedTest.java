package dev.cellar.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every store draws its own hash seed (see {@code HostileKeysTest} for why) and keeps it across
 * reopen.
 */
class HashSeedTest {
  @TempDir Path first;
  @TempDir Path second;

  @Test
  void eachStoreHasItsOwnSeedWhichSurvivesReopen() throws IOException {
    Cellar.open(first, CellarOptions.defaults()).close();
    Cellar.open(second, CellarOptions.defaults()).close();
    StoreMetaDescriptor a = StoreMetaDescriptor.read(FileIO.platform(), first);
    StoreMetaDescriptor b = StoreMetaDescriptor.read(FileIO.platform(), second);
    assertNotEquals(a.seed0(), b.seed0());
    assertNotEquals(a.seed1(), b.seed1());

    Cellar.open(first, CellarOptions.defaults()).close();
    StoreMetaDescriptor reopened = StoreMetaDescriptor.read(FileIO.platform(), first);
    assertEquals(a.seed0(), reopened.seed0());
    assertEquals(a.seed1(), reopened.seed1());
  }
}
