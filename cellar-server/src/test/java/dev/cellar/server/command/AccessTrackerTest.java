package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.resp.Request;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The access tracker's counts follow Redis's logarithmic counter (factor 10: about 18 after a
 * thousand uses, per Redis's own table), start at 5, and a key's last use is recent; a key never
 * used reads as idle since the start with no uses.
 */
class AccessTrackerTest {
  private static final CommandTable COMMANDS = Commands.table();

  private static Request[] gets(String key, int n) {
    Request[] run = new Request[n];
    for (int i = 0; i < n; i++) {
      run[i] = new Request();
      run[i].set(
          new byte[][] {
            "GET".getBytes(StandardCharsets.US_ASCII), key.getBytes(StandardCharsets.UTF_8)
          });
    }
    return run;
  }

  @Test
  void countsGrowLogarithmicallyFromFive() {
    AccessTracker tracker = new AccessTracker(16);
    long[] scratch = new long[AccessTracker.RUN];
    tracker.touchRun(COMMANDS, gets("k", 1), 1, true, scratch);
    assertEquals(5, tracker.frequency(b("k")), "a key first seen starts at 5");
    Request[] run = gets("k", 32);
    for (int i = 0; i < 1000 / 32; i++) {
      tracker.touchRun(COMMANDS, run, run.length, true, scratch);
    }
    int f = tracker.frequency(b("k"));
    assertTrue(f >= 12 && f <= 26, "after about a thousand uses: " + f);
    assertEquals(0, tracker.frequency(b("never")), "never used");
  }

  @Test
  void aUseIsRecentAndNoUseIsAsOldAsTheTracker() throws Exception {
    AccessTracker tracker = new AccessTracker(16);
    Thread.sleep(120);
    tracker.touchRun(COMMANDS, gets("k", 1), 1, false, new long[AccessTracker.RUN]);
    assertTrue(tracker.idleMillis(b("k")) <= 20, "just used: " + tracker.idleMillis(b("k")));
    assertTrue(
        tracker.idleMillis(b("never")) >= 100, "never used: " + tracker.idleMillis(b("never")));
  }

  @Test
  void commandsThatOnlyLookAreNotUses() {
    AccessTracker tracker = new AccessTracker(16);
    Request ttl = new Request();
    ttl.set(new byte[][] {b("TTL"), b("k")});
    tracker.touchRun(COMMANDS, new Request[] {ttl}, 1, true, new long[AccessTracker.RUN]);
    assertEquals(0, tracker.frequency(b("k")));
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
