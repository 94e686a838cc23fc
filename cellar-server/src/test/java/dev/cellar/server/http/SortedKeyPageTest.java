package dev.cellar.server.http;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SortedKeyPageTest {
  @Test
  void pagesWalkTheKeysInUnsignedOrder() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      TreeSet<byte[]> model = new TreeSet<>(Arrays::compareUnsigned);
      int n = random.nextInt(60);
      while (model.size() < n) {
        byte[] key = new byte[1 + random.nextInt(3)];
        random.nextBytes(key);
        model.add(key);
      }
      int count = 1 + random.nextInt(10);
      List<byte[]> walked = new ArrayList<>();
      byte[] cursor = null;
      do {
        SortedKeyPage page = new SortedKeyPage(cursor, count);
        List<byte[]> shuffled = new ArrayList<>(model);
        Collections.shuffle(shuffled, random);
        shuffled.forEach(page::offer);
        List<byte[]> keys = page.keys();
        assertTrue(keys.size() <= count);
        walked.addAll(keys);
        cursor = page.more() ? keys.getLast() : null;
        assertTrue(page.more() || walked.size() == model.size(), "a short page is the last");
      } while (cursor != null);
      assertEquals(render(new ArrayList<>(model)), render(walked));
    }
  }

  @Test
  void aPageEndingExactlyAtTheLastKeySaysNoMore() {
    SortedKeyPage page = new SortedKeyPage(null, 2);
    page.offer(new byte[] {2});
    page.offer(new byte[] {1});
    assertFalse(page.more());
    assertEquals("[[1], [2]]", render(page.keys()));
  }

  @Test
  void bytesCompareUnsigned() {
    SortedKeyPage page = new SortedKeyPage(new byte[] {0x7F}, 5);
    page.offer(new byte[] {(byte) 0x80});
    page.offer(new byte[] {0x7F});
    page.offer(new byte[] {0x01});
    page.offer(new byte[] {(byte) 0xFF});
    assertEquals("[[-128], [-1]]", render(page.keys()));
  }

  private static String render(List<byte[]> keys) {
    return keys.stream().map(Arrays::toString).toList().toString();
  }
}
