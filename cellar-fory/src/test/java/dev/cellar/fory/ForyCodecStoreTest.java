package dev.cellar.fory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cellar.Cellar;
import dev.cellar.Codecs;
import dev.cellar.TypedMap;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ForyCodec through a real store: values written, the store closed, reopened and read. */
class ForyCodecStoreTest {
  @TempDir Path dir;

  @Test
  void usersSurviveCloseAndReopen() {
    User grace = new User("Grace Hopper", "grace@example.com", 85, List.of(1L));
    try (Cellar db = Cellar.open(dir)) {
      TypedMap<String, User> users = db.map("users", Codecs.utf8(), ForyCodec.of(User.class));
      users.put("ada", User.ada());
      users.put("grace", grace);
    }
    try (Cellar db = Cellar.open(dir)) {
      TypedMap<String, User> users = db.map("users", Codecs.utf8(), ForyCodec.of(User.class));
      assertEquals(User.ada(), users.get("ada"));
      assertEquals(grace, users.get("grace"));
      assertNull(users.get("alan"));
    }
  }

  @Test
  void scansDecodeEveryUser() {
    Map<String, User> expected = new HashMap<>();
    try (Cellar db = Cellar.open(dir)) {
      TypedMap<String, User> users = db.map("users", Codecs.utf8(), ForyCodec.of(User.class));
      for (int i = 0; i < 500; i++) {
        User user = new User("user" + i, "u" + i + "@example.com", i % 90, List.of((long) i + 1));
        users.put("u" + i, user);
        expected.put("u" + i, user);
      }
    }
    Map<String, User> found = new HashMap<>();
    try (Cellar db = Cellar.open(dir);
        var cursor = db.map("users", Codecs.utf8(), ForyCodec.of(User.class)).scan()) {
      cursor.forEachRemaining(entry -> found.put(entry.getKey(), entry.getValue()));
    }
    assertEquals(expected, found);
  }
}
