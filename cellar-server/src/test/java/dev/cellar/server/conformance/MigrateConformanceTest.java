package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MIGRATE between two servers of the target's kind (two Cellars, or two redis-servers for the
 * reference run): keys of every kind arrive with their expiries and leave the source, COPY keeps
 * them, REPLACE overwrites, KEYS moves several, and the target's errors and an unreachable target
 * come back as Redis words them.
 */
class MigrateConformanceTest extends AbstractConformanceTest {
  private TargetServer other;
  private Path otherDir;
  private RawClient d;

  @BeforeAll
  void startOther() throws IOException {
    otherDir = Files.createTempDirectory("cellar-migrate-target");
    other = TargetServer.start(otherDir);
  }

  @AfterAll
  void stopOther() throws IOException {
    if (d != null) {
      d.close();
    }
    if (other != null) {
      other.close();
    }
    deleteRecursively(otherDir);
  }

  private RawClient target() throws IOException {
    if (d == null) {
      d = other.connect();
    }
    return d;
  }

  private String port() {
    return Integer.toString(other.port());
  }

  @Test
  void keysMoveWithTheirValuesAndExpiries() throws IOException {
    RawClient t = target();
    t.call("FLUSHALL");
    c.call("SET", "s", "v", "PX", "100000");
    c.call("RPUSH", "l", "a", "b", "c");
    c.call("HSET", "h", "f", "1", "g", "2");
    assertEquals(OK, c.call("MIGRATE", "127.0.0.1", port(), "s", "0", "5000"));
    assertEquals(NIL, c.call("GET", "s"));
    assertEquals(bulk("v"), t.call("GET", "s"));
    String ttl = t.call("PTTL", "s");
    long left = Long.parseLong(ttl.substring(1).trim());
    assertTrue(left > 90_000 && left <= 100_000, ttl);

    assertEquals(OK, c.call("MIGRATE", "127.0.0.1", port(), "l", "3", "5000", "COPY"));
    assertEquals(integer(3), c.call("LLEN", "l"), "COPY keeps the key");
    t.call("SELECT", "3");
    assertEquals(array("a", "b", "c"), t.call("LRANGE", "l", "0", "-1"));
    t.call("SELECT", "0");

    assertEquals(
        OK, c.call("MIGRATE", "127.0.0.1", port(), "", "0", "5000", "KEYS", "h", "l", "nokey"));
    assertEquals(integer(0), c.call("EXISTS", "h", "l"));
    assertEquals(bulk("2"), t.call("HGET", "h", "g"));
    assertEquals(integer(3), t.call("LLEN", "l"));
    assertEquals(simple("NOKEY"), c.call("MIGRATE", "127.0.0.1", port(), "nokey", "0", "5000"));
  }

  /**
   * A target that accepts but never reads nor answers: the MIGRATE fails within its timeout
   * (writing, for a value larger than the sockets' buffers; reading, for a small one) and keeps the
   * key. Java's socket writes have no timeout of their own; without a bound this held the event
   * loop for good.
   */
  @Test
  void aTargetThatNeverAnswersTimesOut() throws Exception {
    try (ServerSocket silent = new ServerSocket(0)) {
      String port = Integer.toString(silent.getLocalPort());
      c.call("SET", "small", "v");
      long start = System.nanoTime();
      assertEquals(
          error("IOERR error or timeout reading to target instance"),
          c.call("MIGRATE", "127.0.0.1", port, "small", "0", "300"));
      // More than loopback's socket buffers hold, and not compressible (Redis compresses DUMP).
      java.util.Random random = new java.util.Random(5);
      StringBuilder big = new StringBuilder(16 << 20);
      for (int i = 0; i < 16 << 20; i++) {
        big.append((char) ('a' + random.nextInt(26)));
      }
      c.call("SET", "big", big.toString());
      assertEquals(
          error("IOERR error or timeout writing to target instance"),
          c.call("MIGRATE", "127.0.0.1", port, "big", "0", "300"));
      assertTrue(
          System.nanoTime() - start < 8_000_000_000L, "each gave up after about its timeout");
      assertEquals(integer(2), c.call("EXISTS", "small", "big"), "both kept");
    }
  }

  @Test
  void targetErrorsAndOptions() throws IOException {
    RawClient t = target();
    t.call("FLUSHALL");
    t.call("SET", "k", "there");
    c.call("SET", "k", "here");
    assertEquals(
        error("ERR Target instance replied with error: BUSYKEY Target key name already exists."),
        c.call("MIGRATE", "127.0.0.1", port(), "k", "0", "5000"));
    assertEquals(bulk("here"), c.call("GET", "k"), "kept when the target refused it");
    assertEquals(OK, c.call("MIGRATE", "127.0.0.1", port(), "k", "0", "5000", "REPLACE"));
    assertEquals(bulk("here"), t.call("GET", "k"));

    c.call("SET", "k", "again");
    String auth = c.call("MIGRATE", "127.0.0.1", port(), "k", "0", "5000", "AUTH", "pw");
    assertTrue(auth.startsWith("-ERR Target instance replied with error: ERR AUTH"), auth);
    assertEquals(bulk("again"), c.call("GET", "k"));

    assertEquals(
        error(
            "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"),
        c.call("MIGRATE", "127.0.0.1", port(), "k", "0", "5000", "KEYS", "k"));
    assertEquals(SYNTAX, c.call("MIGRATE", "127.0.0.1", port(), "k", "0", "5000", "AUTH"));
    assertEquals(SYNTAX, c.call("MIGRATE", "127.0.0.1", port(), "k", "0", "5000", "NOPE"));

    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    // Refused: Redis does not look at its connect's outcome, and its first write fails.
    assertEquals(
        error("IOERR error or timeout writing to target instance"),
        c.call("MIGRATE", "127.0.0.1", Integer.toString(closed), "k", "0", "1000"));
    assertEquals(
        error("IOERR error or timeout connecting to the client"),
        c.call("MIGRATE", "no-such-host.invalid", "6379", "k", "0", "1000"));
    assertEquals(bulk("again"), c.call("GET", "k"));
    assertEquals(
        "*1\r\n$1\r\nk\r\n", c.call("COMMAND", "GETKEYS", "MIGRATE", "h", "1", "k", "0", "10"));
    assertEquals(
        "*2\r\n$1\r\na\r\n$1\r\nb\r\n",
        c.call(
            "COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "10", "AUTH", "KEYS", "KEYS", "a",
            "b"));
  }
}
