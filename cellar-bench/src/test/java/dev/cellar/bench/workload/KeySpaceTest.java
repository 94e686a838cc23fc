package dev.cellar.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeySpaceTest {

  @Test
  void encodesKeysAsUtf8Text() {
    KeySpace space = new KeySpace(1000);
    assertArrayEquals("user:0".getBytes(StandardCharsets.UTF_8), space.key(0));
    assertArrayEquals("user:907".getBytes(StandardCharsets.UTF_8), space.key(907));
    assertArrayEquals("miss:42".getBytes(StandardCharsets.UTF_8), space.missKey(42));
    assertArrayEquals(
        ("user:" + Long.MAX_VALUE).getBytes(StandardCharsets.UTF_8), space.key(Long.MAX_VALUE));
  }

  @Test
  void averageKeyBytesCountsDigitsExactly() {
    assertEquals(6.0, new KeySpace(10).averageKeyBytes(), 1e-9);
    assertEquals(5 + (10 * 1 + 90 * 2) / 100.0, new KeySpace(100).averageKeyBytes(), 1e-9);
    assertEquals(5 + (10 + 90 * 2 + 5 * 3) / 105.0, new KeySpace(105).averageKeyBytes(), 1e-9);
    assertEquals(6.0, new KeySpace(1).averageKeyBytes(), 1e-9);
  }

  @Test
  void maxKeyBytesIsTheLastKeysLength() {
    assertEquals(6, new KeySpace(10).maxKeyBytes());
    assertEquals(7, new KeySpace(11).maxKeyBytes());
    assertEquals(13, new KeySpace(15_000_000).maxKeyBytes());
  }
}
