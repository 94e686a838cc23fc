package dev.cellar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Codecs#struct} through a real store: typed maps, reopening, in-place reads. */
class StructCodecTest {
  private static final Codec<StructTestUser> CODEC = Codecs.struct(StructTestUser.TYPE);

  @TempDir Path dir;

  private static StructTestUser ada() {
    return StructTestUser.TYPE
        .allocate()
        .id(36)
        .age(36)
        .flags((short) -2)
        .name("Ada Lovelace")
        .position(51.5, -0.13);
  }

  /** The raw key a typed map named "users" with long keys stores {@code id} under. */
  private static byte[] rawKey(long id) {
    byte[] prefix = "users:".getBytes(StandardCharsets.UTF_8);
    byte[] key = Codecs.longs().encode(id);
    byte[] raw = new byte[prefix.length + key.length];
    System.arraycopy(prefix, 0, raw, 0, prefix.length);
    System.arraycopy(key, 0, raw, prefix.length, key.length);
    return raw;
  }

  @Test
  void aStructPutThroughATypedMapReadsBackAfterReopen() {
    try (Cellar db = Cellar.open(dir)) {
      db.map("users", Codecs.longs(), CODEC).put(36L, ada());
    }
    try (Cellar db = Cellar.open(dir)) {
      TypedMap<Long, StructTestUser> users = db.map("users", Codecs.longs(), CODEC);
      StructTestUser back = users.get(36L);
      assertEquals(ada().toPlain(), back.toPlain());
      assertArrayEquals(ada().toBytes(), db.get(rawKey(36)));
      assertNull(users.get(37L));
    }
  }

  @Test
  void aDecodedStructIsACopyOfItsOwnThatCanBeChanged() {
    try (Cellar db = Cellar.open(dir)) {
      TypedMap<Long, StructTestUser> users = db.map("users", Codecs.longs(), CODEC);
      users.put(36L, ada());
      StructTestUser back = users.get(36L);
      assertFalse(back.segment().isNative(), "decode copies the value to the heap");
      back.age(37);
      users.put(36L, back);
      assertEquals(37, users.get(36L).age());
    }
  }

  @Test
  void aValueOfAnotherLengthIsRefusedNamingBothSizes() {
    try (Cellar db = Cellar.open(dir)) {
      db.put(rawKey(1), new byte[40]);
      TypedMap<Long, StructTestUser> users = db.map("users", Codecs.longs(), CODEC);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> users.get(1L));
      assertTrue(
          e.getMessage().contains("StructTestUser struct is 64 bytes, the value has 40"),
          e.getMessage());
    }
  }

  @Test
  void aStructOfAnotherTypeIsNotEncoded() {
    StructType<StructTestUser> other =
        StructType.of(StructTestUser::new, StructTestUser.TYPE.layout());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CODEC.encode(other.allocate()));
    assertTrue(e.getMessage().contains("was given a StructTestUser struct"), e.getMessage());
  }

  @Test
  void aStructIsReadInPlaceInsideTheReaderWithoutACopy() {
    try (Cellar db = Cellar.open(dir)) {
      db.map("users", Codecs.longs(), CODEC).put(36L, ada());
    }
    try (Cellar db = Cellar.open(dir)) {
      String name =
          db.read(
              rawKey(36),
              value -> {
                StructTestUser view = StructTestUser.TYPE.wrap(value);
                assertTrue(view.segment().isNative(), "the view is over the log, not a copy");
                assertThrows(IllegalArgumentException.class, () -> view.age(1));
                return view.name();
              });
      assertEquals("Ada Lovelace", name);
    }
  }

  @Test
  void oneFlyweightReadsManyValuesThroughAValueSink() {
    try (Cellar db = Cellar.open(dir)) {
      TypedMap<Long, StructTestUser> users = db.map("users", Codecs.longs(), CODEC);
      StructTestUser writer = StructTestUser.TYPE.allocate();
      for (long id = 0; id < 100; id++) {
        users.put(id, writer.id(id).age((int) id * 2));
      }
      StructTestUser reader = StructTestUser.TYPE.allocate();
      long[] ageSum = {0};
      ValueSink sink =
          (source, offset, length) -> {
            reader.wrap(source, offset, length); // one flyweight for every value: no allocation
            ageSum[0] += reader.age();
          };
      for (long id = 0; id < 100; id++) {
        MemorySegment key = MemorySegment.ofArray(rawKey(id));
        assertTrue(db.read(key, 0, key.byteSize(), sink));
      }
      assertEquals(2 * 99 * 100 / 2, ageSum[0]);
    }
  }

  @Test
  void aSinkGivenAValueOfAnotherLengthIsRefused() {
    try (Cellar db = Cellar.open(dir)) {
      db.put(rawKey(1), new byte[65]);
      StructTestUser reader = StructTestUser.TYPE.allocate();
      MemorySegment key = MemorySegment.ofArray(rawKey(1));
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> db.read(key, 0, key.byteSize(), (s, o, l) -> reader.wrap(s, o, l)));
      assertTrue(e.getMessage().contains("is 64 bytes, the value has 65"), e.getMessage());
    }
  }
}
