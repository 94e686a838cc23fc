package dev.cellar.bench.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class PriceUpdateFlyweightTest {
  private static final PriceUpdate BMW =
      new PriceUpdate(new Instrument("BMW", 2, 846_900), 100, 99.5, 1_000_000_007L, 1_000_050_000L);

  @Test
  void layoutIsContiguousAlignedAnd56Bytes() {
    assertEquals(24, PriceUpdateDescriptor.INSTRUMENT_LENGTH);
    assertEquals(0, PriceUpdateDescriptor.EXCHANGE_TIME_OFFSET % Long.BYTES);
    assertEquals(0, PriceUpdateDescriptor.SEND_TIME_OFFSET % Long.BYTES);
    assertEquals(56, PriceUpdateDescriptor.LENGTH);
  }

  @Test
  void writesAndReadsEveryFieldAtAnOffset() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment segment = arena.allocate(3L * PriceUpdateDescriptor.LENGTH);
      long offset = PriceUpdateDescriptor.LENGTH + 3;
      new PriceUpdateFlyweight().wrap(segment, offset).set(BMW);
      PriceUpdateDescriptor.validate(segment, offset);
      PriceUpdateFlyweight reader = new PriceUpdateFlyweight().wrap(segment, offset);
      assertEquals(BMW, reader.toObject());
      assertEquals(BMW.checksum(), reader.checksum());
    }
  }

  @Test
  void mnemonicsOfEveryLengthRoundTrip() {
    MemorySegment segment = MemorySegment.ofArray(new byte[PriceUpdateDescriptor.LENGTH]);
    PriceUpdateFlyweight flyweight = new PriceUpdateFlyweight().wrap(segment, 0);
    for (String mnemonic : new String[] {"", "A", "BMW", "VOW3", "ABCDEFGH"}) {
      assertEquals(mnemonic, flyweight.mnemonic(mnemonic).mnemonic());
      assertEquals(PriceUpdateDescriptor.mnemonicBits(mnemonic), flyweight.mnemonicBits());
    }
  }

  @Test
  void refusesMnemonicsThatDoNotFit() {
    PriceUpdateFlyweight flyweight =
        new PriceUpdateFlyweight().wrap(MemorySegment.ofArray(new byte[64]), 0);
    assertThrows(IllegalArgumentException.class, () -> flyweight.mnemonic("ABCDEFGHI"));
    assertThrows(IllegalArgumentException.class, () -> flyweight.mnemonic("BMW\u00e9"));
  }

  @Test
  void refusesStructsThatDoNotFit() {
    MemorySegment segment = MemorySegment.ofArray(new byte[PriceUpdateDescriptor.LENGTH + 1]);
    PriceUpdateFlyweight flyweight = new PriceUpdateFlyweight();
    flyweight.wrap(segment, 1);
    assertThrows(IndexOutOfBoundsException.class, () -> flyweight.wrap(segment, 2));
    assertThrows(IndexOutOfBoundsException.class, () -> flyweight.wrap(segment, -1));
  }

  @Test
  void validationCatchesDamage() {
    byte[] bytes = new byte[PriceUpdateDescriptor.LENGTH];
    MemorySegment segment = MemorySegment.ofArray(bytes);
    new PriceUpdateFlyweight().wrap(segment, 0).set(BMW);
    bytes[PriceUpdateDescriptor.RESERVED_OFFSET] = 1;
    assertThrows(IllegalArgumentException.class, () -> PriceUpdateDescriptor.validate(segment, 0));

    new PriceUpdateFlyweight().wrap(segment, 0).set(BMW);
    bytes[PriceUpdateDescriptor.MNEMONIC_OFFSET + 5] = 'X'; // after the NUL padding began
    assertThrows(IllegalArgumentException.class, () -> PriceUpdateDescriptor.validate(segment, 0));
  }
}
