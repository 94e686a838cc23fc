package dev.cellar.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ClientUriTest {
  @Test
  void forms() {
    assertEquals(
        new ClientUri("localhost", 6379, null, null), ClientUri.parse("cellar://localhost"));
    assertEquals(
        new ClientUri("10.0.0.5", 7000, null, null), ClientUri.parse("cellar://10.0.0.5:7000"));
    assertEquals(
        new ClientUri("h", 1, "app", "s3cret"), ClientUri.parse("cellar://app:s3cret@h:1"));
    assertEquals(new ClientUri("h", 1, null, "pw"), ClientUri.parse("cellar://:pw@h:1"));
    assertEquals(new ClientUri("h", 1, "u", "p@:ss"), ClientUri.parse("cellar://u:p%40%3Ass@h:1/"));
  }

  @Test
  void refusalsNameTheFormWithoutThePassword() {
    for (String bad :
        new String[] {
          "redis://h:1", "cellar://", "cellar://h:1/0", "cellar://h:1?timeout=1", "cellar://u@h:1"
        }) {
      assertThrows(IllegalArgumentException.class, () -> ClientUri.parse(bad), bad);
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> ClientUri.parse("cellar://u:topsecret@h:1/x"));
    assertFalse(e.getMessage().contains("topsecret"), e.getMessage());
  }
}
