package dev.cellar.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cellar.Cellar;
import dev.cellar.Codec;
import dev.cellar.Codecs;
import dev.cellar.TypedMap;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One typed map, two places: what the engine wrote through {@code Cellar.map} the client reads
 * through {@code client.map} once a server serves the directory, and back, with the same codecs.
 */
class TypedMapSharingTest {
  record Point(int x, int y) {}

  static final Codec<Point> POINTS =
      new Codec<>() {
        @Override
        public byte[] encode(Point p) {
          return ByteBuffer.allocate(8).putInt(p.x()).putInt(p.y()).array();
        }

        @Override
        public Point decode(MemorySegment bytes) {
          ValueLayout.OfInt big =
              ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
          return new Point(bytes.get(big, 0), bytes.get(big, 4));
        }
      };

  @Test
  void theEngineAndTheClientShareKeysAndCodecs(@TempDir Path dir) {
    try (Cellar db = Cellar.open(dir.resolve("data"))) {
      TypedMap<Long, Point> points = db.map("points", Codecs.longs(), POINTS);
      for (long i = 0; i < 100; i++) {
        points.put(i, new Point((int) i, (int) -i));
      }
    }
    try (TestServer server = TestServer.start(dir);
        CellarClient client = CellarClient.connect(server.uri())) {
      TypedMap<Long, Point> points = client.map("points", Codecs.longs(), POINTS);
      assertEquals(new Point(7, -7), points.get(7L));
      Map<Long, Point> all = new HashMap<>();
      try (var cursor = points.scan()) {
        cursor.forEachRemaining(e -> all.put(e.getKey(), e.getValue()));
      }
      assertEquals(100, all.size());
      assertEquals(new Point(99, -99), all.get(99L));
      points.delete(0L);
      points.put(1000L, new Point(1, 2));
    }
    try (Cellar db = Cellar.open(dir.resolve("data"))) {
      TypedMap<Long, Point> points = db.map("points", Codecs.longs(), POINTS);
      assertNull(points.get(0L));
      assertEquals(new Point(1, 2), points.get(1000L));
    }
  }
}
