package dev.cellar.bench.codecs;

import java.io.Serial;
import java.io.Serializable;
import java.util.Objects;

/**
 * The benchmark's message, after the seed's price update: an embedded {@link Instrument}, a
 * quantity, a price and two timestamps. This is the object form the serializers encode; {@link
 * PriceUpdateFlyweight} is the same message as bytes.
 */
public final class PriceUpdate implements Serializable {
  @Serial private static final long serialVersionUID = 1L;

  private Instrument instrument;
  private int quantity;
  private double price;
  private long exchangeTimeNanos;
  private long sendTimeNanos;

  public PriceUpdate() {}

  public PriceUpdate(
      Instrument instrument,
      int quantity,
      double price,
      long exchangeTimeNanos,
      long sendTimeNanos) {
    this.instrument = instrument;
    this.quantity = quantity;
    this.price = price;
    this.exchangeTimeNanos = exchangeTimeNanos;
    this.sendTimeNanos = sendTimeNanos;
  }

  public Instrument instrument() {
    return instrument;
  }

  public int quantity() {
    return quantity;
  }

  public double price() {
    return price;
  }

  public long exchangeTimeNanos() {
    return exchangeTimeNanos;
  }

  public long sendTimeNanos() {
    return sendTimeNanos;
  }

  /**
   * Folds every field into one number, the same way {@link PriceUpdateFlyweight#checksum()} does:
   * the benchmark consumes it so that no decoded field can be optimised away, and compares the two
   * forms with it.
   */
  public long checksum() {
    return Checksum.of(
        PriceUpdateDescriptor.mnemonicBits(instrument.mnemonic()),
        instrument.marketId(),
        instrument.instrumentId(),
        quantity,
        Double.doubleToRawLongBits(price),
        exchangeTimeNanos,
        sendTimeNanos);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PriceUpdate other
        && Objects.equals(instrument, other.instrument)
        && quantity == other.quantity
        && Double.compare(price, other.price) == 0
        && exchangeTimeNanos == other.exchangeTimeNanos
        && sendTimeNanos == other.sendTimeNanos;
  }

  @Override
  public int hashCode() {
    return Objects.hash(instrument, quantity, price, exchangeTimeNanos, sendTimeNanos);
  }

  @Override
  public String toString() {
    return quantity
        + " "
        + instrument
        + " @ "
        + price
        + " (exchange "
        + exchangeTimeNanos
        + ", sent "
        + sendTimeNanos
        + ")";
  }
}
