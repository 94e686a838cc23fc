package dev.cellar.server.command;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Redis's latency monitor ({@code LATENCY LATEST/HISTORY/RESET}): for each event, the last 160
 * samples of at least {@code latency-monitor-threshold} milliseconds, one per second (the largest
 * of that second), and the largest ever seen. Cellar's events are Redis's {@code command} and
 * {@code fast-command}: a command flagged {@code fast} is a {@code fast-command}.
 *
 * <p>Concurrency: the dispatcher compares a command's time with the threshold before calling here,
 * so only commands over it take the lock, and with the monitor off (threshold 0, the default) none
 * do.
 */
public final class LatencyMonitor {
  static final int HISTORY = 160;

  /** One sample: the second it was taken in and the latency in milliseconds. */
  public record Sample(long unixSeconds, long millis) {}

  /** One event's history; a ring of {@link #HISTORY} samples. */
  private static final class Series {
    final Sample[] samples = new Sample[HISTORY];
    int next;
    long max;

    void add(long second, long millis) {
      int last = (next + HISTORY - 1) % HISTORY;
      if (samples[last] != null && samples[last].unixSeconds() == second) {
        samples[last] = new Sample(second, Math.max(millis, samples[last].millis()));
      } else {
        samples[next] = new Sample(second, millis);
        next = (next + 1) % HISTORY;
      }
      max = Math.max(max, millis);
    }

    Sample latest() {
      return samples[(next + HISTORY - 1) % HISTORY];
    }

    List<Sample> oldestFirst() {
      List<Sample> out = new ArrayList<>();
      for (int i = 0; i < HISTORY; i++) {
        Sample s = samples[(next + i) % HISTORY];
        if (s != null) {
          out.add(s);
        }
      }
      return out;
    }
  }

  /** What {@code LATENCY LATEST} shows of one event. */
  public record Latest(String event, long unixSeconds, long millis, long maxMillis) {}

  private final Map<String, Series> events = new TreeMap<>();

  public synchronized void record(String event, long millis) {
    events.computeIfAbsent(event, e -> new Series()).add(System.currentTimeMillis() / 1000, millis);
  }

  public synchronized List<Latest> latest() {
    List<Latest> out = new ArrayList<>();
    events.forEach(
        (name, series) -> {
          Sample s = series.latest();
          out.add(new Latest(name, s.unixSeconds(), s.millis(), series.max));
        });
    return out;
  }

  public synchronized List<Sample> history(String event) {
    Series series = events.get(event);
    return series == null ? List.of() : series.oldestFirst();
  }

  /** Forgets the named events (every event when none is named); returns how many there were. */
  public synchronized int reset(List<String> names) {
    if (names.isEmpty()) {
      int n = events.size();
      events.clear();
      return n;
    }
    int n = 0;
    for (String name : names) {
      if (events.remove(name) != null) {
        n++;
      }
    }
    return n;
  }
}
