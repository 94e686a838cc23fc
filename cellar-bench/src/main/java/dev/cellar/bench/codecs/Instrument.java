package dev.cellar.bench.codecs;

import java.io.Serial;
import java.io.Serializable;
import java.util.Objects;

/**
 * The tradable thing a {@link PriceUpdate} is about: the embedded struct of the seed's message. A
 * plain mutable object, as the serializers under test expect one.
 */
public final class Instrument implements Serializable {
  @Serial private static final long serialVersionUID = 1L;

  private String mnemonic;
  private long marketId;
  private long instrumentId;

  public Instrument() {}

  public Instrument(String mnemonic, long marketId, long instrumentId) {
    this.mnemonic = mnemonic;
    this.marketId = marketId;
    this.instrumentId = instrumentId;
  }

  /** Up to {@link PriceUpdateDescriptor#MNEMONIC_LENGTH} ASCII characters, such as "BMW". */
  public String mnemonic() {
    return mnemonic;
  }

  public long marketId() {
    return marketId;
  }

  public long instrumentId() {
    return instrumentId;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Instrument other
        && Objects.equals(mnemonic, other.mnemonic)
        && marketId == other.marketId
        && instrumentId == other.instrumentId;
  }

  @Override
  public int hashCode() {
    return Objects.hash(mnemonic, marketId, instrumentId);
  }

  @Override
  public String toString() {
    return mnemonic + "@" + marketId + "#" + instrumentId;
  }
}
