package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class LatencyMonitorTest {

  @Test
  void oneSamplePerSecondKeepingTheLargest() {
    LatencyMonitor monitor = new LatencyMonitor();
    monitor.record("command", 5);
    monitor.record("command", 9);
    monitor.record("command", 7);
    List<LatencyMonitor.Sample> history = monitor.history("command");
    // Three samples in (almost certainly) one second merge into one; across a second boundary, two.
    assertTrue(history.size() <= 2, history.toString());
    assertEquals(9, history.stream().mapToLong(LatencyMonitor.Sample::millis).max().orElseThrow());
    LatencyMonitor.Latest latest = monitor.latest().getFirst();
    assertEquals("command", latest.event());
    assertEquals(9, latest.maxMillis());
  }

  @Test
  void resetForgetsNamedOrAllEvents() {
    LatencyMonitor monitor = new LatencyMonitor();
    monitor.record("command", 5);
    monitor.record("fast-command", 2);
    assertEquals(
        List.of("command", "fast-command"),
        monitor.latest().stream().map(LatencyMonitor.Latest::event).toList());
    assertEquals(1, monitor.reset(List.of("fast-command", "no-such-event")));
    assertEquals(1, monitor.reset(List.of()));
    assertTrue(monitor.latest().isEmpty());
    assertEquals(List.of(), monitor.history("command"));
  }
}
