package dev.cellar.server.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ConfigException;
import dev.cellar.server.testsupport.LocalServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Several databases across restarts, with what Cellar does on purpose where Redis cannot be the
 * reference: the map of databases on disk, its damage, too few {@code databases} for the data, and
 * the refusal of commands that would make a transaction or script span databases.
 */
class DatabasesTest {
  @TempDir Path dir;

  private static Jedis client(CellarServer server) {
    return new Jedis("127.0.0.1", server.port());
  }

  @Test
  void theMapIsTheFormatDocumentsExample() {
    int[] slots = new int[16];
    for (int i = 0; i < 16; i++) {
      slots[i] = i;
    }
    slots[0] = 3;
    slots[3] = 0;
    byte[] bytes = DatabaseMapDescriptor.encode(slots);
    assertEquals(16 + 4 * 16 + 4, bytes.length);
    assertEquals(
        "43454c4c41524442010000001000000003000000010000000200000000000000",
        java.util.HexFormat.of().formatHex(bytes, 0, 32),
        "docs/format/databases.md");
    assertEquals(
        java.util.Arrays.toString(slots),
        java.util.Arrays.toString(DatabaseMapDescriptor.decode(bytes)));
    bytes[20] = 3; // database 1 names slot 3 too
    IllegalArgumentException twice =
        assertThrows(IllegalArgumentException.class, () -> DatabaseMapDescriptor.decode(bytes));
    assertTrue(twice.getMessage().contains("checksum"), "the CRC catches it first");
  }

  @Test
  void everyDatabaseAndEverySwapSurvivesARestart() {
    try (CellarServer server = LocalServer.start(dir);
        Jedis jedis = client(server)) {
      for (int db = 0; db < 16; db += 5) {
        jedis.select(db);
        jedis.set("which", "db" + db);
        jedis.rpush("list", "a" + db, "b" + db);
      }
      jedis.swapDB(0, 15);
      jedis.swapDB(5, 7);
    }
    assertTrue(Files.exists(dir.resolve(DatabaseMapDescriptor.FILE_NAME)));
    try (CellarServer server = LocalServer.start(dir);
        Jedis jedis = client(server)) {
      assertEquals("db15", jedis.get("which"));
      assertEquals(List.of("a15", "b15"), jedis.lrange("list", 0, -1));
      jedis.select(15);
      assertEquals("db0", jedis.get("which"));
      jedis.select(7);
      assertEquals("db5", jedis.get("which"));
      jedis.select(5);
      assertNull(jedis.get("which"), "database 7 was empty before the swap");
      jedis.select(10);
      assertEquals("db10", jedis.get("which"));
      String keyspace = jedis.info("keyspace");
      for (String line : List.of("db0:keys=2,", "db7:keys=2,", "db10:keys=2,", "db15:keys=2,")) {
        assertTrue(keyspace.contains(line), keyspace);
      }
    }
  }

  @Test
  void aDamagedMapStopsTheStartWithAClearReasonAndChangesNothing() throws IOException {
    try (CellarServer server = LocalServer.start(dir);
        Jedis jedis = client(server)) {
      jedis.select(1);
      jedis.set("k", "v");
      jedis.swapDB(0, 1);
    }
    Path map = dir.resolve(DatabaseMapDescriptor.FILE_NAME);
    byte[] bytes = Files.readAllBytes(map);
    bytes[bytes.length - 6] ^= 1;
    Files.write(map, bytes);
    ConfigException e = assertThrows(ConfigException.class, () -> LocalServer.start(dir));
    assertTrue(e.getMessage().contains("databases.map is damaged"), e.getMessage());
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    bytes[bytes.length - 6] ^= 1;
    Files.write(map, bytes);
    try (CellarServer server = LocalServer.start(dir);
        Jedis jedis = client(server)) {
      assertEquals("v", jedis.get("k"), "the repaired map serves the data again");
    }
  }

  @Test
  void fewerDatabasesThanHoldDataIsRefusedNamingTheDirectory() {
    try (CellarServer server = LocalServer.start(dir);
        Jedis jedis = client(server)) {
      jedis.select(12);
      jedis.set("k", "v");
    }
    ConfigException e =
        assertThrows(ConfigException.class, () -> LocalServer.start(dir, "databases", "8"));
    assertTrue(e.getMessage().contains("database 12 has files in"), e.getMessage());
    assertTrue(e.getMessage().contains("db-12"), e.getMessage());
    try (CellarServer server = LocalServer.start(dir, "databases", "32");
        Jedis jedis = client(server)) {
      jedis.select(12);
      assertEquals("v", jedis.get("k"));
      jedis.select(31);
      jedis.set("last", "1");
      assertThrows(JedisDataException.class, () -> jedis.select(32));
    }
  }

  @Test
  void aTransactionOrScriptStaysInOneDatabase() {
    try (CellarServer server = LocalServer.start(dir);
        Jedis jedis = client(server)) {
      jedis.set("k", "v");
      Transaction t = jedis.multi();
      t.set("a", "1");
      t.sendCommand(redis.clients.jedis.Protocol.Command.MOVE, "k", "1");
      t.set("b", "1");
      JedisDataException refused = assertThrows(JedisDataException.class, t::exec);
      assertTrue(refused.getMessage().startsWith("EXECABORT"), refused.getMessage());
      assertNull(jedis.get("a"), "nothing of the refused transaction ran");
      assertEquals("v", jedis.get("k"));

      Transaction same = jedis.multi();
      same.sendCommand(redis.clients.jedis.Protocol.Command.SELECT, "0");
      same.set("a", "1");
      List<Object> replies = same.exec();
      assertEquals(2, replies.size(), "SELECT of the same database is fine: " + replies);
      assertEquals("OK", replies.get(1));

      Object reply = jedis.eval("return redis.pcall('select', 0)");
      assertEquals("OK", reply);
      JedisDataException inScript =
          assertThrows(
              JedisDataException.class, () -> jedis.eval("return redis.call('select', 2)"));
      assertTrue(inScript.getMessage().contains("runs in one database"), inScript.getMessage());
      assertThrows(JedisDataException.class, () -> jedis.eval("return redis.call('swapdb', 0, 1)"));
      assertThrows(JedisDataException.class, () -> jedis.eval("return redis.call('move', 'k', 1)"));
      assertEquals("v", jedis.get("k"));
      jedis.select(1);
      jedis.set("other", "1");
      jedis.select(0);
      assertThrows(JedisDataException.class, () -> jedis.eval("return redis.call('flushall')"));
      Transaction flush = jedis.multi();
      flush.set("c", "1");
      flush.sendCommand(redis.clients.jedis.Protocol.Command.FLUSHALL, new String[0]);
      assertThrows(JedisDataException.class, flush::exec, "FLUSHALL over two databases");
      assertEquals("v", jedis.get("k"));
      assertNull(jedis.get("c"));
    }
  }

  @Test
  void aScriptRunsInTheCallersDatabase() {
    try (CellarServer server = LocalServer.start(dir);
        Jedis jedis = client(server)) {
      jedis.select(4);
      jedis.eval("redis.call('set', KEYS[1], ARGV[1])", List.of("s"), List.of("four"));
      assertEquals("four", jedis.get("s"));
      Transaction t = jedis.multi();
      t.incr("n");
      t.get("s");
      assertEquals(List.of(1L, "four"), t.exec());
      jedis.select(0);
      assertNull(jedis.get("s"));
      assertNull(jedis.get("n"));
    }
  }
}
