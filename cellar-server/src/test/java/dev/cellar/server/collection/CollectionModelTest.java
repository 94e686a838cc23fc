package dev.cellar.server.collection;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Members} and {@link ListItems} on a real store against models on the heap: seeded random
 * operations, each command's edits written as one unit, the store reopened, checkpointed and
 * compacted between rounds; and the worked example of docs/format/collections.md, byte for byte.
 */
class CollectionModelTest {
  @TempDir Path dir;

  private static CellarOptions options() {
    return CellarOptions.defaults()
        .fsync(Fsync.NO)
        .segmentBytes(256 << 10)
        .maxKeyBytes(1 << 10)
        .maxValueBytes(8 << 10)
        .shards(8);
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static Header header(Cellar db, String key) {
    return db.readHeader(MemorySegment.ofArray(b(key)), CollectionDescriptor::decodeHeader);
  }

  private static byte[] element(Cellar db, byte[] key) {
    return db.readElement(MemorySegment.ofArray(key), v -> v.toArray(ValueLayout.JAVA_BYTE));
  }

  @Test
  void theWorkedExampleIsWhatAHashWrites() {
    try (Cellar db = Cellar.open(dir, options())) {
      CollectionIds ids = new CollectionIds(db);
      ElementEdits edits = new ElementEdits(db);
      Members h = new Members(edits, b("h"), CollectionDescriptor.HASH, null, Cellar.NO_EXPIRY);
      h.put(b("a"), b("1"), ids);
      h.put(b("b"), b("2"), ids);
      h.finish();
      edits.commit();
      HexFormat hex = HexFormat.of();
      // Packed: the fields and values in the header, after its 34 bytes; no id, no owner record.
      assertEquals(
          "0102" + "0000000000000000" + "0200000000000000" + "00".repeat(16) + "0161013101620132",
          hex.formatHex(
              db.readHeader(MemorySegment.ofArray(b("h")), v -> v.toArray(ValueLayout.JAVA_BYTE))));
      assertEquals(1, db.elementCount(), "the id allocator's block end only");

      // A value over 64 bytes spreads it: member and slot records, the header back to 34 bytes, and
      // an id, the block's second (the first marked the store as holding collections); next is 1,
      // since Redis would now hold the hash as a table for good.
      edits = new ElementEdits(db);
      h = new Members(edits, b("h"), CollectionDescriptor.HASH, header(db, "h"), Cellar.NO_EXPIRY);
      h.put(b("c"), b("v".repeat(65)), ids);
      h.finish();
      edits.commit();
      assertEquals(
          "0101" + "0200000000000000" + "0300000000000000" + "00".repeat(8) + "0100000000000000",
          hex.formatHex(
              db.readHeader(MemorySegment.ofArray(b("h")), v -> v.toArray(ValueLayout.JAVA_BYTE))));
      assertArrayEquals(b("h"), element(db, hex.parseHex("00000000000000024f")));
      assertArrayEquals(hex.parseHex("0031"), element(db, hex.parseHex("00000000000000024d61")));
      assertArrayEquals(
          b("a"), element(db, hex.parseHex("000000000000000253" + "0000000000000000")));
      assertArrayEquals(hex.parseHex("0132"), element(db, hex.parseHex("00000000000000024d62")));
      assertArrayEquals(
          b("b"), element(db, hex.parseHex("000000000000000253" + "0000000000000001")));
      assertArrayEquals(
          b("c"), element(db, hex.parseHex("000000000000000253" + "0000000000000002")));
      assertEquals(8, db.elementCount(), "six elements, the owner and the block end");

      edits = new ElementEdits(db);
      h = new Members(edits, b("h"), CollectionDescriptor.HASH, header(db, "h"), Cellar.NO_EXPIRY);
      h.remove(b("c"));
      h.remove(b("a"));
      h.finish();
      edits.commit();
      assertArrayEquals(hex.parseHex("0032"), element(db, hex.parseHex("00000000000000024d62")));
      assertArrayEquals(
          b("b"), element(db, hex.parseHex("000000000000000253" + "0000000000000000")));
      assertNull(element(db, hex.parseHex("000000000000000253" + "0000000000000001")));
      assertNull(element(db, hex.parseHex("00000000000000024d61")));
      assertEquals(1, header(db, "h").count());
      assertNull(header(db, "h").items(), "a spread hash stays spread");
      assertEquals(1, header(db, "h").next(), "and a table, as Redis's would");
    }
  }

  @Test
  void oneCommandsChangesAreBoundedBeforeTheyAreGathered() {
    try (Cellar db = Cellar.open(dir, options())) {
      ElementEdits edits = new ElementEdits(db);
      byte[] value = new byte[1 << 20];
      org.junit.jupiter.api.Assertions.assertThrows(
          dev.cellar.LimitExceededException.class,
          () -> {
            for (int i = 0; i < 100; i++) {
              edits.put(b("k" + i), value);
            }
          });
      assertEquals(0, db.elementCount(), "nothing was written");
    }
  }

  /**
   * A list is packed into its header until it passes 128 elements or takes one over 64 bytes; then
   * its elements are element records, and it stays so however small it becomes.
   */
  @Test
  void aSmallListIsPackedInItsHeaderAndSpreadsPastTheLimits() {
    try (Cellar db = Cellar.open(dir, options())) {
      CollectionIds ids = new CollectionIds(db);
      for (int i = 0; i < CollectionDescriptor.PACK_MAX_ITEMS; i++) {
        push(db, ids, "small", "e" + i);
      }
      long packedElements = db.elementCount();
      Header h = header(db, "small");
      assertEquals(CollectionDescriptor.PACK_MAX_ITEMS, h.count());
      org.junit.jupiter.api.Assertions.assertNotNull(h.items(), "128 short elements stay packed");
      push(db, ids, "small", "one more");
      h = header(db, "small");
      assertNull(h.items(), "the 129th element spreads the list");
      assertEquals(
          packedElements + CollectionDescriptor.PACK_MAX_ITEMS + 2,
          db.elementCount(),
          "the 129 elements and the owner record the list takes with its id");
      ListItems l = new ListItems(new ElementEdits(db), b("small"), h, 0);
      assertArrayEquals(b("e0"), l.get(0));
      assertArrayEquals(b("one more"), l.get(CollectionDescriptor.PACK_MAX_ITEMS));

      push(db, ids, "long", "a");
      assertEquals(1, header(db, "long").count());
      org.junit.jupiter.api.Assertions.assertNotNull(header(db, "long").items());
      push(db, ids, "long", "x".repeat(CollectionDescriptor.PACK_MAX_ITEM_BYTES + 1));
      assertNull(header(db, "long").items(), "an element over 64 bytes spreads the list");
      ElementEdits edits = new ElementEdits(db);
      l = new ListItems(edits, b("long"), header(db, "long"), 0);
      l.popRight();
      l.finish();
      edits.commit();
      assertNull(header(db, "long").items(), "a spread list stays spread");
      assertEquals(1, header(db, "long").count());
    }
    try (Cellar db = Cellar.open(dir, options())) {
      ListItems l = new ListItems(new ElementEdits(db), b("long"), header(db, "long"), 0);
      assertArrayEquals(b("a"), l.get(0));
    }
  }

  /**
   * A store that holds only packed collections, which take no id, still knows after a reopen that
   * it holds collections (the string read path looks for a header on a miss only then).
   */
  @Test
  void aStoreOfPackedCollectionsKnowsItHoldsCollections() {
    try (Cellar db = Cellar.open(dir, options())) {
      CollectionIds ids = new CollectionIds(db);
      org.junit.jupiter.api.Assertions.assertFalse(ids.used());
      push(db, ids, "small", "e");
      org.junit.jupiter.api.Assertions.assertTrue(ids.used());
      assertEquals(0, header(db, "small").id(), "packed, it took no id");
    }
    try (Cellar db = Cellar.open(dir, options())) {
      org.junit.jupiter.api.Assertions.assertTrue(new CollectionIds(db).used());
    }
  }

  private static void push(Cellar db, CollectionIds ids, String key, String value) {
    ElementEdits edits = new ElementEdits(db);
    ListItems l = new ListItems(edits, b(key), header(db, key), 0);
    l.pushRight(b(value), ids);
    l.finish();
    edits.commit();
  }

  @Test
  void aPackedHeaderCutShortIsRefused() {
    byte[] header =
        CollectionDescriptor.encodeHeader(
            CollectionDescriptor.LIST,
            1,
            2,
            0,
            0,
            CollectionDescriptor.packItems(List.of(b("ab"), b("c"))));
    Header h = CollectionDescriptor.decodeHeader(MemorySegment.ofArray(header));
    assertEquals(2, CollectionDescriptor.unpackItems(h.items(), 2).size());
    byte[] cut = java.util.Arrays.copyOf(header, header.length - 1);
    Header shortened = CollectionDescriptor.decodeHeader(MemorySegment.ofArray(cut));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalStateException.class, () -> CollectionDescriptor.unpackItems(shortened.items(), 2));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalStateException.class, () -> CollectionDescriptor.unpackItems(h.items(), 1));
  }

  @Test
  void randomHashSetAndListOperationsMatchTheirModels() {
    for (long seed = 1; seed <= 5; seed++) {
      Path at = dir.resolve("seed" + seed);
      SplittableRandom random = new SplittableRandom(seed);
      Map<String, Map<ByteBuffer, byte[]>> hashes = new HashMap<>();
      Map<String, List<byte[]>> lists = new HashMap<>();
      for (int round = 0; round < 5; round++) {
        try (Cellar db = Cellar.open(at, options())) {
          CollectionIds ids = new CollectionIds(db);
          String when = "seed " + seed + " round " + round;
          check(db, hashes, lists, when + " (reopened)");
          for (int op = 0; op < 800; op++) {
            if (random.nextBoolean()) {
              hashOp(db, ids, random, hashes);
            } else {
              listOp(db, ids, random, lists);
            }
          }
          check(db, hashes, lists, when);
          if (round % 2 == 0) {
            db.checkpoint();
          } else {
            db.compact();
          }
          check(db, hashes, lists, when + " (after maintenance)");
        }
      }
    }
  }

  /**
   * A sorted set grown past many node splits and shrunk again, against a sorted model: every
   * member's score and rank, ranges from both ends, and counts below score bounds, through reopen.
   */
  @Test
  void aSortedSetKeepsItsOrderThroughSplitsRemovalsAndReopen() {
    SplittableRandom random = new SplittableRandom(7);
    java.util.TreeMap<String, Double> byMember = new java.util.TreeMap<>();
    for (int round = 0; round < 4; round++) {
      try (Cellar db = Cellar.open(dir, options())) {
        CollectionIds ids = new CollectionIds(db);
        checkSorted(db, byMember, "round " + round + " (reopened)");
        for (int op = 0; op < 40; op++) {
          ElementEdits edits = new ElementEdits(db);
          SortedMembers z = new SortedMembers(edits, b("z"), header(db, "z"), 0);
          int n = 1 + random.nextInt(200);
          boolean grow = round < 2 || random.nextInt(3) == 0;
          for (int i = 0; i < n; i++) {
            String m = "m" + random.nextInt(round < 2 ? 20_000 : 5_000);
            if (grow || random.nextInt(4) == 0) {
              double score = random.nextInt(50) - 25 + (random.nextBoolean() ? 0.5 : 0);
              z.put(b(m), score, ids);
              byMember.put(m, score);
            } else {
              z.remove(b(m));
              byMember.remove(m);
            }
          }
          z.finish();
          edits.commit();
        }
        checkSorted(db, byMember, "round " + round);
        db.checkpoint();
      }
    }
  }

  private static void checkSorted(Cellar db, java.util.TreeMap<String, Double> model, String when) {
    List<String> order = new ArrayList<>(model.keySet());
    order.sort((x, y) -> SortedMembers.compare(model.get(x), b(x), model.get(y), b(y)));
    Header h = header(db, "z");
    if (model.isEmpty()) {
      assertNull(h, when);
      return;
    }
    SortedMembers z = new SortedMembers(new ElementEdits(db), b("z"), h, 0);
    assertEquals(order.size(), z.count(), when + ": count");
    List<String> forward = new ArrayList<>();
    z.range(0, z.count() - 1, false, e -> forward.add(new String(e.member(), UTF_8)));
    assertEquals(order, forward, when + ": order");
    List<String> backward = new ArrayList<>();
    z.range(3, z.count() - 1, true, e -> backward.add(new String(e.member(), UTF_8)));
    assertEquals(
        new ArrayList<>(order.subList(Math.min(3, order.size()), order.size())).reversed(),
        backward,
        when + ": reverse");
    for (int i = 0; i < order.size(); i += 1 + order.size() / 50) {
      String m = order.get(i);
      assertEquals(model.get(m), z.score(b(m)), when + ": score of " + m);
      assertEquals(i, z.rank(model.get(m), b(m)), when + ": rank of " + m);
      assertEquals(m, new String(z.at(i).member(), UTF_8), when + ": member at " + i);
    }
    for (double bound = -26; bound <= 26; bound += 6.5) {
      double v = bound;
      long below = model.values().stream().filter(x -> x < v).count();
      assertEquals(below, z.countBelow((sc, m) -> sc < v), when + ": below " + v);
    }
  }

  private static void hashOp(
      Cellar db,
      CollectionIds ids,
      SplittableRandom random,
      Map<String, Map<ByteBuffer, byte[]>> m) {
    String key = "h" + random.nextInt(4);
    Map<ByteBuffer, byte[]> model = m.computeIfAbsent(key, k -> new LinkedHashMap<>());
    ElementEdits edits = new ElementEdits(db);
    Members h = new Members(edits, b(key), CollectionDescriptor.HASH, header(db, key), 0);
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      // h3 outgrows the packed form by its size; the others now and then by a long value.
      byte[] field = b("f" + random.nextInt(key.equals("h3") ? 300 : 40));
      if (random.nextInt(3) == 0) {
        h.remove(field);
        model.remove(ByteBuffer.wrap(field));
      } else {
        byte[] value =
            random.nextInt(60) == 0
                ? b("long" + "v".repeat(61 + random.nextInt(10)))
                : b("v" + random.nextInt(1000));
        h.put(field, value, ids);
        model.put(ByteBuffer.wrap(field), value);
      }
    }
    h.finish();
    edits.commit();
  }

  private static void listOp(
      Cellar db, CollectionIds ids, SplittableRandom random, Map<String, List<byte[]>> m) {
    String key = "l" + random.nextInt(3);
    List<byte[]> model = m.computeIfAbsent(key, k -> new ArrayList<>());
    ElementEdits edits = new ElementEdits(db);
    ListItems l = new ListItems(edits, b(key), header(db, key), 0);
    // Now and then an element too long to stay packed (docs/format/collections.md, "Lists").
    byte[] value =
        random.nextInt(40) == 0
            ? b("long" + "e".repeat(60 + random.nextInt(20)))
            : b("e" + random.nextInt(1000));
    switch (random.nextInt(8)) {
      case 0 -> {
        l.pushLeft(value, ids);
        model.addFirst(value);
      }
      case 1, 2 -> {
        l.pushRight(value, ids);
        model.addLast(value);
      }
      case 3 -> {
        if (!model.isEmpty()) {
          assertArrayEquals(model.removeFirst(), l.popLeft());
        }
      }
      case 4 -> {
        if (!model.isEmpty()) {
          assertArrayEquals(model.removeLast(), l.popRight());
        }
      }
      case 5 -> {
        if (model.isEmpty()) {
          return; // LINSERT needs a list to insert into
        }
        int p = random.nextInt(model.size() + 1);
        l.insert(p, value, ids);
        model.add(p, value);
      }
      case 6 -> {
        if (!model.isEmpty()) {
          int p = random.nextInt(model.size());
          l.removeAt(p);
          model.remove(p);
        }
      }
      default -> {
        if (!model.isEmpty()) {
          int from = random.nextInt(model.size());
          int to = from + random.nextInt(model.size() - from);
          l.trim(from, to);
          List<byte[]> kept = new ArrayList<>(model.subList(from, to + 1));
          model.clear();
          model.addAll(kept);
        }
      }
    }
    l.finish();
    edits.commit();
  }

  private static void check(
      Cellar db,
      Map<String, Map<ByteBuffer, byte[]>> hashes,
      Map<String, List<byte[]>> lists,
      String when) {
    // The id allocator's block end, once the first id was drawn.
    long elements = element(db, CollectionIds.KEY) == null ? 0 : 1;
    long keys = 0;
    for (var e : hashes.entrySet()) {
      Header h = header(db, e.getKey());
      Map<ByteBuffer, byte[]> model = e.getValue();
      if (model.isEmpty()) {
        assertNull(h, when + ": an empty hash has no header");
        continue;
      }
      keys++;
      // Packed, nothing; spread, the owner record and a member and a slot record per field.
      elements += h.items() != null ? 0 : 2L * model.size() + 1;
      assertEquals(h.items() != null, h.id() == 0, when + ": a packed hash has no id");
      assertEquals(model.size(), h.count(), when + ": " + e.getKey() + " count");
      Members m = new Members(new ElementEdits(db), b(e.getKey()), CollectionDescriptor.HASH, h, 0);
      Map<ByteBuffer, byte[]> seen = new HashMap<>();
      for (long slot = 0; slot < h.count(); slot++) {
        byte[] field = m.memberAt(slot);
        seen.put(ByteBuffer.wrap(field), m.payload(field));
      }
      assertEquals(model.keySet(), seen.keySet(), when + ": " + e.getKey() + " fields");
      for (var f : model.entrySet()) {
        assertArrayEquals(f.getValue(), seen.get(f.getKey()), when + ": a field's value");
      }
    }
    for (var e : lists.entrySet()) {
      Header h = header(db, e.getKey());
      List<byte[]> model = e.getValue();
      if (model.isEmpty()) {
        assertNull(h, when + ": an empty list has no header");
        continue;
      }
      keys++;
      // Packed, nothing; spread, the owner record and an element record per element.
      elements += h.items() != null ? 0 : model.size() + 1;
      assertEquals(h.items() != null, h.id() == 0, when + ": a packed list has no id");
      ListItems l = new ListItems(new ElementEdits(db), b(e.getKey()), h, 0);
      assertEquals(model.size(), l.count(), when + ": " + e.getKey() + " length");
      for (int p = 0; p < model.size(); p++) {
        assertArrayEquals(model.get(p), l.get(p), when + ": " + e.getKey() + "[" + p + "]");
      }
    }
    assertEquals(keys, db.size(), when + ": keys");
    assertEquals(elements, db.elementCount(), when + ": no element left behind, none missing");
  }
}
