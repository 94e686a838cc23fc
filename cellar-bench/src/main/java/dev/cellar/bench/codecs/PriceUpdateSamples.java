package dev.cellar.bench.codecs;

import java.util.SplittableRandom;

/**
 * The messages a run encodes: varied enough that no codec sees one value over and over, and the
 * same for every run with the same seed.
 */
final class PriceUpdateSamples {
  private static final String[] MNEMONICS = {
    "BMW", "SAP", "SIE", "ALV", "DTE", "BAS", "VOW3", "MBG", "IFX", "ADS", "DBK", "EOAN"
  };

  /** 2014-12-22T00:00:00Z, the seed's date, in epoch nanoseconds. */
  private static final long START_NANOS = 1_419_206_400_000_000_000L;

  private PriceUpdateSamples() {}

  static PriceUpdate[] generate(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    PriceUpdate[] updates = new PriceUpdate[count];
    long exchangeTime = START_NANOS;
    for (int i = 0; i < count; i++) {
      int symbol = random.nextInt(MNEMONICS.length);
      Instrument instrument = new Instrument(MNEMONICS[symbol], 1 + symbol % 3, 846_900L + symbol);
      double price = Math.round(random.nextDouble(10, 500) * 100) / 100.0;
      exchangeTime += random.nextLong(1_000, 2_000_000);
      long sendTime = exchangeTime + random.nextLong(5_000, 80_000);
      updates[i] =
          new PriceUpdate(instrument, random.nextInt(1, 10_000), price, exchangeTime, sendTime);
    }
    return updates;
  }
}
