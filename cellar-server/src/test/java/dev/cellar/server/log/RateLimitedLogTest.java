package dev.cellar.server.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimitedLogTest {
  @Test
  void oneLinePerIntervalAndTheNextCountsWhatWasLeftOut() {
    List<String> lines = new ArrayList<>();
    AtomicLong now = new AtomicLong(1_000);
    RateLimitedLog log =
        new RateLimitedLog(recorder(lines), System.Logger.Level.WARNING, 1_000, now::get);
    log.log("a");
    for (int i = 0; i < 5; i++) {
      now.addAndGet(100);
      log.log("b");
    }
    now.addAndGet(500); // 1,000 after the first line
    log.log("c");
    now.addAndGet(1_000);
    log.log("d");
    assertEquals(List.of("a", "c (and 5 more like it not logged)", "d"), lines);
  }

  private static System.Logger recorder(List<String> lines) {
    return new System.Logger() {
      @Override
      public String getName() {
        return "test";
      }

      @Override
      public boolean isLoggable(Level level) {
        return true;
      }

      @Override
      public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        lines.add(msg);
      }

      @Override
      public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        lines.add(format);
      }
    };
  }
}
