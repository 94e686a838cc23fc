package dev.cellar.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shard's commands on a real store: their effects, replies and errors, as Redis gives them. */
class ShardCommandsTest {
  @TempDir Path dir;

  private static String apply(Cellar store, ShardCommands commands, String... args) {
    ShardCommands.Outcome outcome = commands.apply(list(args));
    if (outcome.writes() != null) {
      store.write(outcome.writes());
    }
    return new String(outcome.reply(), StandardCharsets.UTF_8);
  }

  private static List<byte[]> list(String... args) {
    return java.util.Arrays.stream(args).map(a -> a.getBytes(StandardCharsets.UTF_8)).toList();
  }

  @Test
  void commandsDoWhatRedisDoes() {
    try (Cellar store = Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.NO))) {
      ShardCommands c = new ShardCommands(store);
      assertEquals("+OK\r\n", apply(store, c, "SET", "k", "v"));
      assertEquals("$-1\r\n", apply(store, c, "set", "k", "w", "NX"));
      assertEquals("+OK\r\n", apply(store, c, "SET", "k", "w", "XX"));
      assertEquals("$-1\r\n", apply(store, c, "SET", "absent", "w", "XX"));
      assertEquals("$1\r\nw\r\n", new String(c.read(list("GET", "k")), StandardCharsets.UTF_8));
      assertEquals("-ERR syntax error\r\n", apply(store, c, "SET", "k", "v", "NX", "XX"));
      assertEquals(
          "-ERR invalid expire time in 'set' command\r\n",
          apply(store, c, "SET", "k", "v", "PXAT", "0"));
      assertEquals(
          "-ERR value is not an integer or out of range\r\n", apply(store, c, "INCR", "k"));
      long future = System.currentTimeMillis() + 3_600_000;
      assertEquals("+OK\r\n", apply(store, c, "SET", "n", "41", "PXAT", Long.toString(future)));
      assertEquals(":42\r\n", apply(store, c, "INCR", "n"));
      assertEquals(future, store.expiryOf(bytes("n")), "INCR keeps the expiry");
      assertEquals(":32\r\n", apply(store, c, "DECRBY", "n", "10"));
      assertEquals(":-1\r\n", apply(store, c, "DECR", "fresh"));
      assertEquals("+OK\r\n", apply(store, c, "SET", "max", Long.toString(Long.MAX_VALUE)));
      assertEquals(
          "-ERR increment or decrement would overflow\r\n", apply(store, c, "INCR", "max"));
      assertEquals(
          "-ERR value is not an integer or out of range\r\n", apply(store, c, "INCRBY", "n", "+1"));
      assertEquals(":2\r\n", apply(store, c, "DEL", "k", "n", "k", "nothing"));
      assertNull(store.get(bytes("k")));
      assertEquals(
          ":1\r\n", new String(c.read(list("EXISTS", "max", "k")), StandardCharsets.UTF_8));
      assertEquals(
          "-ERR keys starting with a NUL byte are reserved in a cluster\r\n",
          apply(store, c, "SET", "\0raft.a", "x"));
      assertEquals(
          "-ERR wrong number of arguments for 'incr' command\r\n", apply(store, c, "INCR"));
      assertEquals(
          "-ERR unknown command 'hset' for a shard\r\n", apply(store, c, "HSET", "h", "f", "v"));
      assertArrayEquals(bytes(Long.toString(Long.MAX_VALUE)), store.get(bytes("max")));
    }
  }

  @Test
  void logEntriesRoundTripAndBadOnesAreRefused() {
    byte[] entry = ShardLogEntry.encode(list("SET", "k", "", "\r\n"));
    List<byte[]> back = ShardLogEntry.decode(entry);
    assertEquals(4, back.size());
    assertEquals("\r\n", new String(back.get(3), StandardCharsets.UTF_8));
    for (String bad :
        List.of("", "*0\r\n", "*1\r\n$3\r\nGET", "*1\r\n$3\r\nGETX", "*1\r\n$-1\r\n", "+OK\r\n")) {
      assertThrows(
          IllegalArgumentException.class,
          () -> ShardLogEntry.decode(bad.getBytes(StandardCharsets.UTF_8)),
          bad);
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> ShardLogEntry.decode((new String(entry, StandardCharsets.UTF_8) + "x").getBytes()));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
