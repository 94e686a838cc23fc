package dev.cellar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many random structs stored, overwritten and reopened, against a map of on-heap records: every
 * field, every length of name (multi-byte UTF-8 included), and the edge values of each type.
 */
class StructRandomTest {
  private static final long SEED = 0x5eed_57c7L;
  private static final int KEYS = 2_000;
  private static final String ALPHABET = "abcXYZ 09-é€𝄞";

  @TempDir Path dir;

  @Test
  void randomStructsMatchTheirOnHeapModelBeforeAndAfterReopen() {
    SplittableRandom random = new SplittableRandom(SEED);
    Map<Long, StructTestUser.Plain> model = new HashMap<>();
    Codec<StructTestUser> codec = Codecs.struct(StructTestUser.TYPE);
    StructTestUser writer = StructTestUser.TYPE.allocate();
    try (Cellar db = Cellar.open(dir)) {
      TypedMap<Long, StructTestUser> users = db.map("users", Codecs.longs(), codec);
      for (int i = 0; i < KEYS * 3; i++) {
        long key = random.nextLong(KEYS);
        StructTestUser.Plain plain = randomPlain(random);
        users.put(key, plain.writeTo(writer));
        model.put(key, plain);
      }
      check(users, model);
    }
    try (Cellar db = Cellar.open(dir)) {
      check(db.map("users", Codecs.longs(), codec), model);
    }
  }

  @Test
  void randomStructsSurviveTheCodecAlone() {
    SplittableRandom random = new SplittableRandom(SEED + 1);
    Codec<StructTestUser> codec = Codecs.struct(StructTestUser.TYPE);
    StructTestUser writer = StructTestUser.TYPE.allocate();
    for (int i = 0; i < 10_000; i++) {
      StructTestUser.Plain plain = randomPlain(random);
      byte[] bytes = codec.encode(plain.writeTo(writer));
      assertEquals(StructTestUser.TYPE.byteSize(), bytes.length);
      assertEquals(plain, codec.decode(java.lang.foreign.MemorySegment.ofArray(bytes)).toPlain());
    }
  }

  private static void check(
      TypedMap<Long, StructTestUser> users, Map<Long, StructTestUser.Plain> model) {
    for (long key = 0; key < KEYS; key++) {
      StructTestUser back = users.get(key);
      StructTestUser.Plain expected = model.get(key);
      assertEquals(expected, back == null ? null : back.toPlain(), "key " + key);
    }
  }

  private static StructTestUser.Plain randomPlain(SplittableRandom random) {
    return new StructTestUser.Plain(
        edgeOr(random, random.nextLong(), Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L),
        edgeOr(random, random.nextInt(), Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1),
        edgeOr(random, (short) random.nextInt(), Short.MIN_VALUE, Short.MAX_VALUE, (short) 0),
        randomName(random),
        edgeOr(random, random.nextDouble(-1e9, 1e9), Double.NaN, -0.0, Double.MAX_VALUE),
        edgeOr(random, random.nextDouble(), Double.NEGATIVE_INFINITY, Double.MIN_VALUE));
  }

  @SafeVarargs
  private static <V> V edgeOr(SplittableRandom random, V usual, V... edges) {
    return random.nextInt(8) == 0 ? edges[random.nextInt(edges.length)] : usual;
  }

  /** A name of up to 32 bytes of UTF-8: often exactly 32, so that no NUL ends it. */
  private static String randomName(SplittableRandom random) {
    StringBuilder name = new StringBuilder();
    int budget = random.nextInt(4) == 0 ? 32 : random.nextInt(33);
    while (true) {
      int at = random.nextInt(ALPHABET.length());
      int codePoint =
          ALPHABET.codePointAt(Character.isLowSurrogate(ALPHABET.charAt(at)) ? at - 1 : at);
      int bytes =
          new String(Character.toChars(codePoint))
              .getBytes(java.nio.charset.StandardCharsets.UTF_8)
              .length;
      if (bytes > budget) {
        return name.toString();
      }
      name.appendCodePoint(codePoint);
      budget -= bytes;
    }
  }
}
