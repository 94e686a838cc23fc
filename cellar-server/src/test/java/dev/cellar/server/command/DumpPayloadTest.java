package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cellar.server.collection.StreamId;
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

  private static StreamPayload stream() {
    List<StreamPayload.Entry> entries = new java.util.ArrayList<>();
    for (int i = 0; i < 230; i++) {
      List<byte[]> fields =
          i % 50 == 7
              ? List.of(b("other"), b("x".repeat(i)))
              : List.of(b("f"), b("v" + i), b("n"), b(Integer.toString(i - 100)));
      entries.add(new StreamPayload.Entry(new StreamId(1000 + i / 3, i % 3), fields));
    }
    StreamPayload.Group g =
        new StreamPayload.Group(
            b("g1"),
            new StreamId(1001, 2),
            6,
            List.of(
                new StreamPayload.Pending(new StreamId(1000, 1), 1234, 2, b("bob")),
                new StreamPayload.Pending(new StreamId(1001, 0), 5678, 1, b("alice"))),
            List.of(
                new StreamPayload.Consumer(b("alice"), 99, 99),
                new StreamPayload.Consumer(b("bob"), 77, 77)));
    return new StreamPayload(
        entries,
        new StreamId(2000, 0),
        new StreamId(1000, 0),
        new StreamId(1500, 1),
        400,
        List.of(g));
  }

  @Test
  void aStreamRoundTripsInNodesWithItsGroups() {
    StreamPayload original = stream();
    StreamPayload back = DumpPayload.read(original.write()).stream();
    assertEquals(original.entries().size(), back.entries().size());
    for (int i = 0; i < original.entries().size(); i++) {
      StreamPayload.Entry a = original.entries().get(i);
      StreamPayload.Entry c = back.entries().get(i);
      assertEquals(a.id(), c.id());
      assertEquals(a.fields().size(), c.fields().size());
      for (int f = 0; f < a.fields().size(); f++) {
        assertArrayEquals(a.fields().get(f), c.fields().get(f), "entry " + i + " field " + f);
      }
    }
    assertEquals(original.last(), back.last());
    assertEquals(original.maxDeleted(), back.maxDeleted());
    assertEquals(400, back.entriesAdded());
    StreamPayload.Group g = back.groups().getFirst();
    assertEquals(6, g.entriesRead());
    assertEquals(new StreamId(1000, 1), g.pending().getFirst().id());
    assertArrayEquals(b("bob"), g.pending().getFirst().consumer());
    assertEquals(2, g.pending().getFirst().deliveries());
    assertEquals(1234, g.pending().getFirst().deliveredAt());
  }

  /**
   * Every truncation of a stream's payload, resealed so that its checksum holds, and a pending
   * entry no consumer owns, are refused as bad data: never another exception, never a stream that
   * breaks what Cellar's structures rely on.
   */
  @Test
  void aDamagedStreamPayloadIsRefused() {
    byte[] p = stream().write();
    int body = p.length - 10;
    for (int cut = 1; cut < body; cut++) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      out.write(p, 0, cut);
      byte[] truncated = DumpPayload.seal(out);
      assertThrows(CommandError.class, () -> DumpPayload.read(truncated), "cut at " + cut);
    }
    StreamPayload s = stream();
    StreamPayload.Group g = s.groups().getFirst();
    StreamPayload orphan =
        new StreamPayload(
            s.entries(),
            s.last(),
            s.first(),
            s.maxDeleted(),
            s.entriesAdded(),
            List.of(
                new StreamPayload.Group(
                    g.name(),
                    g.last(),
                    g.entriesRead(),
                    g.pending(),
                    List.of(g.consumers().getFirst()))));
    assertSame(
        DumpPayload.BAD_DATA,
        assertThrows(CommandError.class, () -> DumpPayload.read(orphan.write())));
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
