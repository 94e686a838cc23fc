package dev.cellar.server;

import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.CellarOptions;
import dev.cellar.server.config.ConfigException;
import dev.cellar.server.config.ServerConfig;
import org.junit.jupiter.api.Test;

/**
 * The engine settings the server's configuration decides: compaction's trigger and segment size.
 */
class StoreOptionsTest {
  @Test
  void aofRewritePercentageSetsHowFarTheLogMayOutgrowItsLiveData() {
    CellarOptions defaults =
        CellarServer.storeOptions(new ServerConfig(), CellarOptions.defaults());
    assertEquals(2.0, defaults.compactionSpaceAmplification());
    assertTrue(defaults.backgroundCompaction());

    ServerConfig lazier = new ServerConfig().set("auto-aof-rewrite-percentage", "300");
    assertEquals("300", lazier.all().get("auto-aof-rewrite-percentage"));
    assertEquals(
        4.0,
        CellarServer.storeOptions(lazier, CellarOptions.defaults()).compactionSpaceAmplification());

    ServerConfig off = new ServerConfig().set("auto-aof-rewrite-percentage", "0");
    assertFalse(CellarServer.storeOptions(off, CellarOptions.defaults()).backgroundCompaction());
  }

  @Test
  void aofRewritePercentageOutOfRangeIsRefusedWithItsRange() {
    ConfigException negative =
        assertThrows(
            ConfigException.class,
            () -> new ServerConfig().set("auto-aof-rewrite-percentage", "-1"));
    assertTrue(negative.getMessage().contains("between 0 and 9900"), negative.getMessage());
    assertThrows(
        ConfigException.class, () -> new ServerConfig().set("auto-aof-rewrite-percentage", "lots"));
  }

  @Test
  void smallSegmentsCapValuesAtWhatFitsBesideTheLargestKey() {
    CellarOptions options =
        CellarServer.storeOptions(
            new ServerConfig().set("segment-size", "1mb"), CellarOptions.defaults());
    assertEquals(1 << 20, options.segmentBytes());
    options.validate();
  }

  @Test
  void appendfsyncAlwaysMapsTheLogTailWithSmallPages() {
    // Under everysec each second's fsync would write the tail's whole 2 MiB folio back.
    assertFalse(
        CellarServer.storeOptions(
                new ServerConfig().set("appendfsync", "everysec"), CellarOptions.defaults())
            .hugePageLogTail());
    assertTrue(
        CellarServer.storeOptions(
                new ServerConfig().set("appendfsync", "no"), CellarOptions.defaults())
            .hugePageLogTail());
    // The server opens the engine with fsync no under "always" (its barrier fsyncs), so the option
    // must say it.
    assertFalse(
        CellarServer.storeOptions(
                new ServerConfig().set("appendfsync", "always"), CellarOptions.defaults())
            .hugePageLogTail());
  }
}
