package dev.cellar.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The verdict on one memory series: flat when, over the second half of the run (the first half
 * fills the store and warms the JIT, so its growth says nothing), the line fitted through the
 * series' peaks rises by less than {@value #MAX_RELATIVE_GROWTH} of its level and by less than
 * {@value #MAX_GROWTH_MIB} MiB. Both bounds, because a small heap may double by a few MiB without
 * anything leaking, and a large resident set may hide a steady leak inside a small percentage.
 *
 * <p>Why peaks. The resident set is a sawtooth: sealed log segments stay resident, dead records
 * included, until compaction replaces them, which it does once they are about half garbage. A line
 * through every reading swings with where the last teeth fall; a leak raises the peaks as surely as
 * the troughs, and the peak of each window of up to {@value #PEAK_WINDOW_SECONDS} s (a sixth of the
 * half, so short trial runs still get points) is steady from window to window.
 *
 * <h2>Why, with hostile clients, resident memory is judged after each full collection</h2>
 *
 * The hostile cycles fill the heap: stalled 52 MB requests take what maxmemory-clients allows,
 * their arrays go to the old generation, and the heap grows toward its maximum until a collection
 * frees them. Where in that a window's peak falls depends on when the collector last ran: in the
 * 30-minute run of 2026-11-26 the anonymous RSS of the window peaks ranged over 560 to 1,019 MiB
 * with no trend (the highest of the first half 1,016 MiB, of the second 1,019), and a line through
 * fifteen such peaks rose or fell by tens of MiB on noise alone ("GROWS" by 62 MiB while the
 * readings after each collection stayed at 90 to 93 MiB). A leak is what is still held once the
 * hostile connections are closed and the garbage is collected, which is exactly what the readings
 * after each full collection are (the cycles end there: {@link CycleClock}); a leak of a MiB a
 * minute moves them by 15 MiB over the second half, and nothing else does. So when the run asks for
 * full collections, {@link #afterCollections} judges those readings, every one of them (they are
 * taken at one phase of the cycle, so no window is needed), by a line that a few readings far off
 * the rest do not tilt ({@link Trend#robust}); without them, the peaks are judged. VmRSS is
 * reported, not judged: above the anonymous part it holds the store's own mapped log pages, which
 * compaction saws and the kernel may drop at any time (the log is judged on disk).
 *
 * @param name what the series is, for the report
 * @param first first reading, bytes
 * @param last last reading, bytes
 * @param max highest reading, bytes
 * @param secondHalfSeconds how long the second half lasted
 * @param secondHalf the line fitted through the second half's window peaks
 */
record Flatness(
    String name, long first, long last, long max, long secondHalfSeconds, Trend secondHalf) {
  static final double MAX_RELATIVE_GROWTH = 0.05;
  static final long MAX_GROWTH_MIB = 20;
  static final long PEAK_WINDOW_SECONDS = 60;

  /** Second-half peaks below which no verdict is given. */
  static final int MIN_POINTS = 3;

  /**
   * A second half shorter than this gets no verdict: a few teeth of the sawtooth (a trial run of a
   * couple of minutes) tilt the line by more than the bounds allow.
   */
  static final long MIN_JUDGED_SECONDS = 300;

  /**
   * The series judged on the readings taken right after a full collection (those with a live-heap
   * reading); first, last and max still come from every reading. With fewer than {@code 2 x}
   * {@value #MIN_POINTS} such readings (the run asked for none, or few), the same as {@link #of}.
   */
  static Flatness afterCollections(
      String name, List<Sample> samples, ToLongFunction<Sample> value) {
    List<Sample> collected =
        samples.stream().filter(s -> s.heapLive() >= 0 && value.applyAsLong(s) >= 0).toList();
    if (collected.size() < 2 * MIN_POINTS) {
      return of(name, samples, value);
    }
    List<Sample> present = samples.stream().filter(s -> value.applyAsLong(s) >= 0).toList();
    long half = present.getLast().seconds() / 2;
    List<Sample> secondHalf = collected.stream().filter(s -> s.seconds() >= half).toList();
    if (secondHalf.isEmpty()) {
      return of(name, samples, value);
    }
    return new Flatness(
        name,
        value.applyAsLong(present.getFirst()),
        value.applyAsLong(present.getLast()),
        present.stream().mapToLong(value).max().orElse(-1),
        secondHalf.getLast().seconds() - secondHalf.getFirst().seconds(),
        Trend.robust(secondHalf, value));
  }

  static Flatness of(String name, List<Sample> samples, ToLongFunction<Sample> value) {
    List<Sample> present = samples.stream().filter(s -> value.applyAsLong(s) >= 0).toList();
    if (present.isEmpty()) {
      return new Flatness(name, -1, -1, -1, 0, new Trend(0, 0, 0, 0));
    }
    long half = present.getLast().seconds() / 2;
    List<Sample> secondHalf = present.stream().filter(s -> s.seconds() >= half).toList();
    return new Flatness(
        name,
        value.applyAsLong(present.getFirst()),
        value.applyAsLong(present.getLast()),
        present.stream().mapToLong(value).max().orElse(-1),
        secondHalf.getLast().seconds() - secondHalf.getFirst().seconds(),
        Trend.fit(peaks(secondHalf, value), value));
  }

  /**
   * The highest reading of each window of the samples, in order. Windows are counted back from the
   * last sample, and a first window with fewer samples than the last is left out: a window cut
   * short holds a random part of a tooth, and would pull the line at its end.
   */
  static List<Sample> peaks(List<Sample> samples, ToLongFunction<Sample> value) {
    if (samples.isEmpty()) {
      return samples;
    }
    long end = samples.getLast().seconds();
    long window =
        Math.max(1, Math.min(PEAK_WINDOW_SECONDS, (end - samples.getFirst().seconds()) / 6));
    List<Sample> peaks = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    long current = -1;
    for (Sample s : samples) {
      long w = (end - s.seconds()) / window;
      if (w != current) {
        peaks.add(s);
        counts.add(1);
        current = w;
      } else {
        counts.set(counts.size() - 1, counts.getLast() + 1);
        if (value.applyAsLong(s) > value.applyAsLong(peaks.getLast())) {
          peaks.set(peaks.size() - 1, s);
        }
      }
    }
    if (peaks.size() > 1 && counts.getFirst() < counts.getLast()) {
      peaks.removeFirst();
    }
    return peaks;
  }

  boolean judged() {
    return secondHalf.points() >= MIN_POINTS && secondHalfSeconds >= MIN_JUDGED_SECONDS;
  }

  boolean flat() {
    return judged()
        && secondHalf.growth() < MAX_RELATIVE_GROWTH * Math.max(1, secondHalf.start())
        && secondHalf.growth() < MAX_GROWTH_MIB * (1 << 20);
  }

  String verdict() {
    return !judged() ? "too short to judge" : flat() ? "flat" : "GROWS";
  }
}
