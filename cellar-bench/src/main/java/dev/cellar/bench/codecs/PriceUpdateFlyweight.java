package dev.cellar.bench.codecs;

import static dev.cellar.bench.codecs.PriceUpdateDescriptor.DOUBLE;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.EXCHANGE_TIME_OFFSET;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.INSTRUMENT_ID_OFFSET;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.INT;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.LONG;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.MARKET_ID_OFFSET;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.MNEMONIC_LENGTH;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.MNEMONIC_OFFSET;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.PRICE_OFFSET;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.QUANTITY_OFFSET;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.RESERVED_OFFSET;
import static dev.cellar.bench.codecs.PriceUpdateDescriptor.SEND_TIME_OFFSET;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * A price update read and written in place, in a {@link MemorySegment} laid out by {@link
 * PriceUpdateDescriptor}: the seed's "flyweight wrapper". One instance serves any number of
 * messages by {@link #wrap moving} over them, so reading or writing a message allocates nothing.
 *
 * <p>Not thread-safe: a flyweight is a cursor, owned by one thread. The memory it points at may be
 * shared, with whatever ordering its owner arranges.
 */
public final class PriceUpdateFlyweight {
  private MemorySegment segment = MemorySegment.NULL;
  private long offset;

  /** Points this flyweight at the struct at {@code offset} in {@code segment}. */
  public PriceUpdateFlyweight wrap(MemorySegment segment, long offset) {
    PriceUpdateDescriptor.checkFits(segment, offset);
    this.segment = segment;
    this.offset = offset;
    return this;
  }

  /** Writes every field from {@code update}: the flyweight's "encode". */
  public PriceUpdateFlyweight set(PriceUpdate update) {
    Instrument instrument = update.instrument();
    return mnemonic(instrument.mnemonic())
        .marketId(instrument.marketId())
        .instrumentId(instrument.instrumentId())
        .price(update.price())
        .quantity(update.quantity())
        .exchangeTimeNanos(update.exchangeTimeNanos())
        .sendTimeNanos(update.sendTimeNanos());
  }

  /** Builds the object form; allocates, so it is for tests and tools, not for the hot path. */
  public PriceUpdate toObject() {
    return new PriceUpdate(
        new Instrument(mnemonic(), marketId(), instrumentId()),
        quantity(),
        price(),
        exchangeTimeNanos(),
        sendTimeNanos());
  }

  /** Writes the mnemonic, NUL-padded; at most {@link PriceUpdateDescriptor#MNEMONIC_LENGTH}. */
  public PriceUpdateFlyweight mnemonic(CharSequence mnemonic) {
    segment.set(LONG, offset + MNEMONIC_OFFSET, PriceUpdateDescriptor.mnemonicBits(mnemonic));
    return this;
  }

  /** The mnemonic's 8 stored bytes as one long: compare or hash it without a {@code String}. */
  public long mnemonicBits() {
    return segment.get(LONG, offset + MNEMONIC_OFFSET);
  }

  /** The mnemonic as a {@code String}; allocates. */
  public String mnemonic() {
    long bits = mnemonicBits();
    int length = bits == 0 ? 0 : MNEMONIC_LENGTH - Long.numberOfLeadingZeros(bits) / Byte.SIZE;
    byte[] ascii = new byte[length];
    for (int i = 0; i < length; i++) {
      ascii[i] = (byte) (bits >>> (Byte.SIZE * i));
    }
    return new String(ascii, StandardCharsets.US_ASCII);
  }

  public long marketId() {
    return segment.get(LONG, offset + MARKET_ID_OFFSET);
  }

  public PriceUpdateFlyweight marketId(long marketId) {
    segment.set(LONG, offset + MARKET_ID_OFFSET, marketId);
    return this;
  }

  public long instrumentId() {
    return segment.get(LONG, offset + INSTRUMENT_ID_OFFSET);
  }

  public PriceUpdateFlyweight instrumentId(long instrumentId) {
    segment.set(LONG, offset + INSTRUMENT_ID_OFFSET, instrumentId);
    return this;
  }

  public double price() {
    return segment.get(DOUBLE, offset + PRICE_OFFSET);
  }

  public PriceUpdateFlyweight price(double price) {
    segment.set(DOUBLE, offset + PRICE_OFFSET, price);
    return this;
  }

  public int quantity() {
    return segment.get(INT, offset + QUANTITY_OFFSET);
  }

  /** Writes the quantity and clears the reserved word that shares its 8 bytes. */
  public PriceUpdateFlyweight quantity(int quantity) {
    segment.set(INT, offset + QUANTITY_OFFSET, quantity);
    segment.set(INT, offset + RESERVED_OFFSET, 0);
    return this;
  }

  public long exchangeTimeNanos() {
    return segment.get(LONG, offset + EXCHANGE_TIME_OFFSET);
  }

  public PriceUpdateFlyweight exchangeTimeNanos(long nanos) {
    segment.set(LONG, offset + EXCHANGE_TIME_OFFSET, nanos);
    return this;
  }

  public long sendTimeNanos() {
    return segment.get(LONG, offset + SEND_TIME_OFFSET);
  }

  public PriceUpdateFlyweight sendTimeNanos(long nanos) {
    segment.set(LONG, offset + SEND_TIME_OFFSET, nanos);
    return this;
  }

  /** The same fold as {@link PriceUpdate#checksum()}, read straight from memory. */
  public long checksum() {
    return Checksum.of(
        mnemonicBits(),
        marketId(),
        instrumentId(),
        quantity(),
        Double.doubleToRawLongBits(price()),
        exchangeTimeNanos(),
        sendTimeNanos());
  }

  @Override
  public String toString() {
    return "PriceUpdateFlyweight[offset " + offset + "] " + toObject();
  }
}
