package dev.cellar.bench.codecs;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.cellar.Struct;
import dev.cellar.StructField;
import dev.cellar.StructType;
import java.lang.foreign.MemoryLayout;

/**
 * A price update as a Cellar {@link Struct}: the same 56 bytes as {@link PriceUpdateDescriptor}
 * lays out for the hand-written {@link PriceUpdateFlyweight}, but described once as a layout, with
 * the offsets and accessors derived from it. The two write identical bytes ({@link
 * StructCodecApproach} checks it), so the rows compare the access paths alone.
 *
 * <p>The mnemonic is declared as one {@code long}: its 8 ASCII bytes, NUL-padded, read as one
 * little-endian word, as the hand-written flyweight reads them, so the checksum needs no string.
 */
final class PriceUpdateStruct extends Struct {
  static final StructType<PriceUpdateStruct> TYPE =
      StructType.of(
          PriceUpdateStruct::new,
          MemoryLayout.structLayout(
              MemoryLayout.structLayout(
                      JAVA_LONG.withName("mnemonic"),
                      JAVA_LONG.withName("marketId"),
                      JAVA_LONG.withName("instrumentId"))
                  .withName("instrument"),
              JAVA_DOUBLE.withName("price"),
              JAVA_INT.withName("quantity"),
              MemoryLayout.paddingLayout(Integer.BYTES),
              JAVA_LONG.withName("exchangeTimeNanos"),
              JAVA_LONG.withName("sendTimeNanos")));

  private static final StructField.OfLong MNEMONIC = TYPE.longField("instrument", "mnemonic");
  private static final StructField.OfLong MARKET_ID = TYPE.longField("instrument", "marketId");
  private static final StructField.OfLong INSTRUMENT_ID =
      TYPE.longField("instrument", "instrumentId");
  private static final StructField.OfDouble PRICE = TYPE.doubleField("price");
  private static final StructField.OfInt QUANTITY = TYPE.intField("quantity");
  private static final StructField.OfLong EXCHANGE_TIME = TYPE.longField("exchangeTimeNanos");
  private static final StructField.OfLong SEND_TIME = TYPE.longField("sendTimeNanos");

  /** Writes every field from {@code update}; the padding is left as it is (zero from allocate). */
  PriceUpdateStruct set(PriceUpdate update) {
    Instrument instrument = update.instrument();
    MNEMONIC.set(this, PriceUpdateDescriptor.mnemonicBits(instrument.mnemonic()));
    MARKET_ID.set(this, instrument.marketId());
    INSTRUMENT_ID.set(this, instrument.instrumentId());
    PRICE.set(this, update.price());
    QUANTITY.set(this, update.quantity());
    EXCHANGE_TIME.set(this, update.exchangeTimeNanos());
    SEND_TIME.set(this, update.sendTimeNanos());
    return this;
  }

  /** The same fold as {@link PriceUpdate#checksum()}, read straight from memory. */
  long checksum() {
    return Checksum.of(
        MNEMONIC.get(this),
        MARKET_ID.get(this),
        INSTRUMENT_ID.get(this),
        QUANTITY.get(this),
        Double.doubleToRawLongBits(PRICE.get(this)),
        EXCHANGE_TIME.get(this),
        SEND_TIME.get(this));
  }

  /** Builds the object form; allocates, so it is for verification only. */
  PriceUpdate toObject() {
    return new PriceUpdateFlyweight().wrap(segment(), 0).toObject();
  }
}
