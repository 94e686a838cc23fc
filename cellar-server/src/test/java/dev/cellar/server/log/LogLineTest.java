package dev.cellar.server.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LogLineTest {
  private static final Instant T = Instant.parse("2026-11-25T19:55:01.123456Z");

  @Test
  void timestampLevelComponentMessageOnOneLine() {
    assertEquals(
        "2026-11-25T19:55:01.123Z INFO    [server] serving data",
        LogLine.format(T, Level.INFO, "dev.cellar.server", "serving data", null, false));
    assertEquals(
        "2026-11-25T19:55:01.123Z WARNING [store] disk full: a b",
        LogLine.format(T, Level.WARNING, "dev.cellar", "disk full:\na b", null, false));
    assertEquals(
        "2026-11-25T19:55:01.123Z DEBUG   [netty] x",
        LogLine.format(
            T, Level.DEBUG, "io.netty.channel.DefaultChannelPipeline", "x", null, false));
  }

  @Test
  void anExceptionIsOneLineUnlessStackTracesAreAskedFor() {
    Exception e = new UncheckedIOException("fsync failed", new IOException("Input/output error"));
    String line = LogLine.format(T, Level.ERROR, "dev.cellar.server", "oops", e, false);
    assertEquals(1, line.lines().count(), line);
    assertTrue(
        line.endsWith(
            "oops: java.io.UncheckedIOException: fsync failed; caused by java.io.IOException: Input/output error"),
        line);
    String traced = LogLine.format(T, Level.ERROR, "dev.cellar.server", "oops", e, true);
    assertTrue(
        traced.lines().count() > 2 && traced.contains("\tat dev.cellar.server.log.LogLineTest"),
        traced);
  }

  @Test
  void redisLevelsLetThroughWhatTheirNamesSay() {
    assertTrue(LogLevel.parse("notice").allows(Level.INFO) && !LogLevel.NOTICE.allows(Level.DEBUG));
    assertTrue(
        LogLevel.parse("WARNING").allows(Level.ERROR) && !LogLevel.WARNING.allows(Level.INFO));
    assertTrue(LogLevel.VERBOSE.allows(Level.DEBUG) && !LogLevel.VERBOSE.allows(Level.TRACE));
    assertTrue(LogLevel.DEBUG.allows(Level.TRACE) && !LogLevel.NOTHING.allows(Level.ERROR));
  }
}
