package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The DUMP payload's checksum, footer and round trip; Redis's own payloads are read in
 * DifferentialTest.
 */
class DumpPayloadTest {
  @Test
  void theChecksumIsRedisCrc64() {
    byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
    assertEquals(0xe9c6d914c4b8d9caL, DumpPayload.Crc64.of(check, 0, check.length));
  }

  @Test
  void aStringRoundTripsAndADamagedPayloadIsRefused() {
    byte[] p = DumpPayload.string("hello".getBytes(StandardCharsets.US_ASCII));
    assertArrayEquals("hello".getBytes(StandardCharsets.US_ASCII), DumpPayload.read(p).string());
    assertEquals(DumpPayload.RDB_VERSION, p[p.length - 10]);
    p[3] ^= 1;
    assertSame(
        DumpPayload.BAD_PAYLOAD, assertThrows(CommandError.class, () -> DumpPayload.read(p)));
    assertThrows(CommandError.class, () -> DumpPayload.read(new byte[5]));
  }

  @Test
  void collectionsRoundTrip() {
    List<byte[]> items = List.of(b("f"), b("v"), b("g"), b("w"));
    DumpPayload.Value hash = DumpPayload.read(DumpPayload.items(DumpPayload.HASH, items));
    assertEquals(DumpPayload.HASH, hash.type());
    assertEquals(4, hash.items().size());
    DumpPayload.Value z =
        DumpPayload.read(DumpPayload.sortedSet(List.of(b("a"), b("b")), List.of(1.5, -2.0)));
    assertEquals(List.of(1.5, -2.0), z.scores());
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
