package dev.cellar.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlatnessTest {
  private static final long MIB = 1 << 20;

  /**
   * Thirty minutes of readings every 10 s: a 400 MiB sawtooth of period 40 s over {@code base},
   * rising {@code mibPerMinute}.
   */
  private static List<Sample> sawtooth(long base, double mibPerMinute) {
    List<Sample> samples = new ArrayList<>();
    for (long t = 10; t <= 1800; t += 10) {
      long rss = base + (t % 40) * 10 * MIB + (long) (mibPerMinute * MIB * t / 60);
      samples.add(
          new Sample(t, rss, 70 * MIB, 15 * MIB, t % 30 == 0 ? 12 * MIB : -1, 0, 0, 0, 0, 0, 0, 0));
    }
    return samples;
  }

  @Test
  void aSawtoothThatDoesNotRiseIsFlat() {
    Flatness rss = Flatness.of("rss", sawtooth(500 * MIB, 0), Sample::vmRss);
    assertTrue(rss.flat(), () -> "fitted " + rss.secondHalf());
    assertEquals(800 * MIB, rss.max());
  }

  @Test
  void aSawtoothThatRisesTwoMibAMinuteGrows() {
    Flatness rss = Flatness.of("rss", sawtooth(500 * MIB, 2), Sample::vmRss);
    assertFalse(rss.flat(), () -> "fitted " + rss.secondHalf());
    assertEquals(20, rss.secondHalf().mibPerTenMinutes(), 2);
  }

  @Test
  void growthUnderTwentyMibButOverFivePercentOfASmallHeapGrows() {
    List<Sample> samples = new ArrayList<>();
    for (long t = 30; t <= 1800; t += 30) {
      samples.add(new Sample(t, 0, 0, 0, 10 * MIB + t * 2 * MIB / 1800, 0, 0, 0, 0, 0, 0, 0));
    }
    Flatness heap = Flatness.of("heap", samples, Sample::heapLive);
    assertFalse(heap.flat(), () -> "fitted " + heap.secondHalf());
  }

  /**
   * Thirty minutes of readings every 10 s, a full collection every 30 s: between collections a
   * pseudo-random peak of up to 900 MiB over {@code base} (the hostile cycles), after each the
   * base, rising {@code mibPerMinute}, and every seventh one left 100 MiB up (a collection that did
   * not shrink the heap).
   */
  private static List<Sample> hostileCycles(long base, double mibPerMinute) {
    List<Sample> samples = new ArrayList<>();
    java.util.Random random = new java.util.Random(42);
    for (long t = 10; t <= 1800; t += 10) {
      boolean collected = t % 30 == 0;
      long rise = (long) (mibPerMinute * MIB * t / 60);
      long anon =
          collected
              ? base + rise + (t % 210 == 0 ? 100 * MIB : 0)
              : base + rise + (long) (random.nextDouble() * 900 * MIB);
      samples.add(
          new Sample(t, anon + 300 * MIB, anon, 0, collected ? 8 * MIB : -1, 0, 0, 0, 0, 0, 0, 0));
    }
    return samples;
  }

  @Test
  void randomPeaksOverSteadyReadingsAfterCollectionsAreFlat() {
    List<Sample> samples = hostileCycles(90 * MIB, 0);
    Flatness anon = Flatness.afterCollections("anon", samples, Sample::rssAnon);
    assertTrue(anon.judged());
    assertTrue(anon.flat(), () -> "fitted " + anon.secondHalf());
    assertTrue(anon.max() > 800 * MIB, "the peaks are still reported");
  }

  @Test
  void readingsAfterCollectionsThatRiseAMibAMinuteGrowHoweverThePeaksFall() {
    List<Sample> samples = hostileCycles(90 * MIB, 1);
    Flatness anon = Flatness.afterCollections("anon", samples, Sample::rssAnon);
    assertFalse(anon.flat(), () -> "fitted " + anon.secondHalf());
    assertEquals(10, anon.secondHalf().mibPerTenMinutes(), 1);
  }

  @Test
  void withoutCollectionsThePeaksAreJudged() {
    List<Sample> samples =
        sawtooth(500 * MIB, 2).stream()
            .map(s -> new Sample(s.seconds(), s.vmRss(), s.vmRss(), 0, -1, 0, 0, 0, 0, 0, 0, 0))
            .toList();
    Flatness rss = Flatness.afterCollections("rss", samples, Sample::rssAnon);
    assertFalse(rss.flat(), () -> "fitted " + rss.secondHalf());
    assertEquals(20, rss.secondHalf().mibPerTenMinutes(), 2);
  }

  @Test
  void aSecondHalfUnderFiveMinutesGetsNoVerdict() {
    List<Sample> samples = sawtooth(500 * MIB, 0).stream().filter(s -> s.seconds() <= 590).toList();
    Flatness rss = Flatness.of("rss", samples, Sample::vmRss);
    assertFalse(rss.judged());
    assertFalse(rss.flat());
  }

  @Test
  void readingsThatAreAbsentAreLeftOutAndTooFewGiveNoVerdict() {
    List<Sample> samples =
        List.of(
            new Sample(10, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0),
            new Sample(20, 0, 0, 0, 5 * MIB, 0, 0, 0, 0, 0, 0, 0));
    Flatness heap = Flatness.of("heap", samples, Sample::heapLive);
    assertFalse(heap.judged());
    assertFalse(heap.flat());
    assertEquals(5 * MIB, heap.first());
  }
}
