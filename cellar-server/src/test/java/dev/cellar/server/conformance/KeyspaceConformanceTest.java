package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Redis's generic key commands: existence and deletion (duplicates counted as Redis counts them),
 * renames, every expiry form with negative, past and overflowing times, KEYS patterns, and SCAN's
 * guarantee that a full iteration returns every key present throughout, also while other clients
 * write.
 */
class KeyspaceConformanceTest extends AbstractConformanceTest {

  // ------------------------------------------------------------------ existence and deletion

  @Test
  void delExistsTouchAndUnlinkCountAsRedisDoes() throws IOException {
    c.call("MSET", "a", "1", "b", "2");
    assertEquals(
        integer(3),
        c.call("EXISTS", "a", "a", "b", "nope"),
        "EXISTS counts a key each time it is named");
    assertEquals(integer(2), c.call("TOUCH", "a", "nope", "a"));
    assertEquals(integer(1), c.call("DEL", "a", "a", "nope"), "DEL counts keys removed");
    assertEquals(integer(1), c.call("UNLINK", "b", "nope"));
    assertEquals(integer(0), c.call("EXISTS", "a", "b"));
    assertEquals(integer(0), c.call("DEL", "a"));
  }

  /**
   * Redis's matcher gives up past 1,000 nested runs of stars (Redis's own "Regression for pattern
   * matching very long nested loops"): a pattern that needs more matches nothing, one that needs
   * exactly 1,000 still matches.
   */
  @Test
  void patternsNestingTooManyStarsMatchNothing() throws IOException {
    c.call("SET", "a".repeat(2000), "1");
    assertEquals("*0\r\n", c.call("KEYS", "*?".repeat(2000)));
    assertEquals("*0\r\n", c.call("KEYS", "*a".repeat(1001)));
    assertEquals(array("a".repeat(2000)), c.call("KEYS", "*a".repeat(1000)));
    assertEquals(array("a".repeat(2000)), c.call("KEYS", "*a".repeat(1000) + "***"));
  }

  @Test
  void type() throws IOException {
    c.call("SET", "k", "v");
    assertEquals(simple("string"), c.call("TYPE", "k"));
    assertEquals(simple("none"), c.call("TYPE", "nope"));
  }

  // ------------------------------------------------------------------ RENAME RENAMENX

  @Test
  void renameMovesTheValueAndItsTtl() throws IOException {
    c.call("SET", "a", "1", "EX", "100");
    c.call("SET", "b", "2");
    assertEquals(OK, c.call("RENAME", "a", "b"));
    assertEquals(bulk("1"), c.call("GET", "b"));
    assertEquals(integer(100), c.call("TTL", "b"));
    assertEquals(integer(0), c.call("EXISTS", "a"));
    assertEquals(OK, c.call("RENAME", "b", "b"));
    assertEquals(bulk("1"), c.call("GET", "b"));
  }

  @Test
  void renameOfAMissingKey() throws IOException {
    assertEquals(error("ERR no such key"), c.call("RENAME", "nope", "x"));
    assertEquals(error("ERR no such key"), c.call("RENAMENX", "nope", "x"));
    assertEquals(error("ERR no such key"), c.call("RENAME", "nope", "nope"));
  }

  @Test
  void renamenxOnlyToAFreeName() throws IOException {
    c.call("MSET", "a", "1", "b", "2");
    assertEquals(integer(0), c.call("RENAMENX", "a", "b"));
    assertEquals(integer(0), c.call("RENAMENX", "a", "a"));
    assertEquals(integer(1), c.call("RENAMENX", "a", "c"));
    assertEquals(array(null, "2", "1"), c.call("MGET", "a", "b", "c"));
  }

  // ------------------------------------------------------------------ expiry

  @Test
  void ttlOfMissingAndPersistentKeys() throws IOException {
    assertEquals(integer(-2), c.call("TTL", "nope"));
    assertEquals(integer(-2), c.call("PTTL", "nope"));
    assertEquals(integer(-2), c.call("EXPIRETIME", "nope"));
    assertEquals(integer(-2), c.call("PEXPIRETIME", "nope"));
    c.call("SET", "k", "v");
    assertEquals(integer(-1), c.call("TTL", "k"));
    assertEquals(integer(-1), c.call("PTTL", "k"));
    assertEquals(integer(-1), c.call("EXPIRETIME", "k"));
    assertEquals(integer(-1), c.call("PEXPIRETIME", "k"));
  }

  @Test
  void expireAndItsVariants() throws IOException {
    assertEquals(integer(0), c.call("EXPIRE", "nope", "100"));
    c.call("SET", "k", "v");
    assertEquals(integer(1), c.call("EXPIRE", "k", "100"));
    assertEquals(integer(100), c.call("TTL", "k"));
    long pttl = (Long) c.callParsed("PTTL", "k");
    assertTrue(pttl > 95_000 && pttl <= 100_000, "PTTL " + pttl);
    assertEquals(integer(1), c.call("PEXPIRE", "k", "50000"));
    assertEquals(integer(50), c.call("TTL", "k"));
    assertEquals(integer(1), c.call("EXPIREAT", "k", "33177117420"));
    assertEquals(integer(33177117420L), c.call("EXPIRETIME", "k"));
    assertEquals(integer(33177117420000L), c.call("PEXPIRETIME", "k"));
    assertEquals(integer(1), c.call("PEXPIREAT", "k", "33177117420999"));
    assertEquals(integer(33177117420999L), c.call("PEXPIRETIME", "k"));
    assertEquals(
        integer(33177117421L),
        c.call("EXPIRETIME", "k"),
        "EXPIRETIME rounds to the nearest second");
    assertEquals(integer(1), c.call("PEXPIREAT", "k", "33177117420499"));
    assertEquals(integer(33177117420L), c.call("EXPIRETIME", "k"));
  }

  @Test
  void aNegativeOrPastExpiryDeletesTheKey() throws IOException {
    String[][] forms = {
      {"EXPIRE", "-1"},
      {"PEXPIRE", "0"},
      {"EXPIREAT", "1"},
      {"PEXPIREAT", "-5"},
      {"EXPIRE", "-9223372036854775"}
    };
    for (String[] form : forms) {
      c.call("SET", "k", "v");
      assertEquals(integer(1), c.call(form[0], "k", form[1]), form[0] + " " + form[1]);
      assertEquals(integer(0), c.call("EXISTS", "k"), form[0] + " " + form[1]);
      assertEquals(integer(-2), c.call("TTL", "k"));
    }
    assertEquals(integer(0), c.call("EXPIRE", "k", "-1"), "on a missing key");
  }

  @Test
  void expiryOverflowIsAnErrorAndChangesNothing() throws IOException {
    c.call("SET", "k", "v");
    assertEquals(
        error("ERR invalid expire time in 'expire' command"),
        c.call("EXPIRE", "k", "9223372036854775807"));
    assertEquals(
        error("ERR invalid expire time in 'expire' command"),
        c.call("EXPIRE", "k", "-9223372036854775807"));
    assertEquals(
        error("ERR invalid expire time in 'pexpire' command"),
        c.call("PEXPIRE", "k", "9223372036854775807"));
    assertEquals(
        error("ERR invalid expire time in 'expireat' command"),
        c.call("EXPIREAT", "k", "9223372036854775807"));
    assertEquals(integer(-1), c.call("TTL", "k"));
    assertEquals(NOT_INTEGER, c.call("EXPIRE", "k", "ten"));
    assertEquals(NOT_INTEGER, c.call("PEXPIRE", "k", "1.5"));
    assertEquals(NOT_INTEGER, c.call("EXPIRE", "k", "99999999999999999999"));
    // The largest absolute time is accepted: it is not relative, so nothing overflows.
    assertEquals(integer(1), c.call("PEXPIREAT", "k", "9223372036854775807"));
    assertEquals(integer(9223372036854775807L), c.call("PEXPIRETIME", "k"));
    assertEquals(integer(9223372036854776L), c.call("EXPIRETIME", "k"));
  }

  @Test
  void expireOptions() throws IOException {
    c.call("SET", "k", "v");
    assertEquals(integer(0), c.call("EXPIRE", "k", "100", "XX"), "XX needs a TTL");
    assertEquals(
        integer(0), c.call("EXPIRE", "k", "100", "GT"), "no TTL counts as infinite for GT");
    assertEquals(integer(1), c.call("EXPIRE", "k", "100", "LT"), "and for LT");
    assertEquals(integer(0), c.call("EXPIRE", "k", "50", "NX"));
    assertEquals(integer(0), c.call("EXPIRE", "k", "50", "GT"));
    assertEquals(integer(1), c.call("EXPIRE", "k", "200", "gt"));
    assertEquals(integer(0), c.call("EXPIRE", "k", "300", "LT"));
    assertEquals(integer(1), c.call("EXPIRE", "k", "150", "XX", "LT"));
    assertEquals(integer(150), c.call("TTL", "k"));
    assertEquals(
        integer(0), c.call("EXPIRE", "k", "-1", "NX"), "a refused negative expiry deletes nothing");
    assertEquals(integer(1), c.call("EXISTS", "k"));
    assertEquals(integer(1), c.call("PERSIST", "k"));
    assertEquals(integer(1), c.call("EXPIRE", "k", "60", "NX"));
    assertEquals(integer(60), c.call("TTL", "k"));
  }

  @Test
  void expireOptionErrors() throws IOException {
    c.call("SET", "k", "v");
    String nxTogether =
        error("ERR NX and XX, GT or LT options at the same time are not compatible");
    assertEquals(nxTogether, c.call("EXPIRE", "k", "10", "NX", "XX"));
    assertEquals(nxTogether, c.call("EXPIRE", "k", "10", "GT", "NX"));
    assertEquals(nxTogether, c.call("EXPIRE", "k", "10", "LT", "GT", "NX"));
    assertEquals(
        error("ERR GT and LT options at the same time are not compatible"),
        c.call("PEXPIRE", "k", "10", "GT", "LT"));
    assertEquals(error("ERR Unsupported option FOO"), c.call("EXPIRE", "k", "10", "FOO"));
    // Options are read before the time: a bad option wins over a bad number, even on a missing key.
    assertEquals(error("ERR Unsupported option foo"), c.call("EXPIRE", "k", "ten", "foo"));
    assertEquals(error("ERR Unsupported option foo"), c.call("EXPIRE", "nope", "10", "foo"));
    assertEquals(NOT_INTEGER, c.call("EXPIRE", "nope", "ten"));
    assertEquals(integer(-1), c.call("TTL", "k"));
  }

  @Test
  void persist() throws IOException {
    assertEquals(integer(0), c.call("PERSIST", "nope"));
    c.call("SET", "k", "v");
    assertEquals(integer(0), c.call("PERSIST", "k"));
    c.call("EXPIRE", "k", "100");
    assertEquals(integer(1), c.call("PERSIST", "k"));
    assertEquals(integer(-1), c.call("TTL", "k"));
    assertEquals(bulk("v"), c.call("GET", "k"));
  }

  @Test
  void anExpiredKeyIsGoneForEveryCommand() throws Exception {
    c.call("SET", "k", "v", "PX", "30");
    c.call("SET", "stays", "v");
    Thread.sleep(80);
    assertEquals(NIL, c.call("GET", "k"));
    assertEquals(integer(0), c.call("EXISTS", "k"));
    assertEquals(integer(-2), c.call("TTL", "k"));
    assertEquals(simple("none"), c.call("TYPE", "k"));
    assertEquals(array("stays"), c.call("KEYS", "*"));
    assertEquals(List.of("stays"), scanAll(c));
    assertEquals(integer(1), c.call("SETNX", "k", "new"));
  }

  // ------------------------------------------------------------------ KEYS

  @Test
  void keysMatchesGlobPatterns() throws IOException {
    c.call(
        "MSET",
        "firstname",
        "Jack",
        "lastname",
        "Stuntman",
        "age",
        "35",
        "h*llo",
        "1",
        "hello",
        "2",
        "hallo",
        "3");
    assertEquals(Set.of("firstname", "lastname"), keys("*name*"));
    assertEquals(Set.of("age"), keys("a??"));
    assertEquals(Set.of("firstname", "lastname", "age", "h*llo", "hello", "hallo"), keys("*"));
    assertEquals(Set.of("firstname", "lastname"), keys("[fl]*"));
    assertEquals(Set.of("h*llo"), keys("h\\*llo"));
    assertEquals(Set.of("h*llo", "hallo"), keys("h[^e]llo"));
    assertEquals(Set.of("hello", "hallo"), keys("h[a-f]llo"));
    assertEquals(Set.of(), keys("nothing*"));
    assertEquals("*0\r\n", c.call("KEYS", "nothing*"));
  }

  private Set<String> keys(String pattern) throws IOException {
    return new TreeSet<>(strings(c.callParsed("KEYS", pattern)));
  }

  // ------------------------------------------------------------------ SCAN

  @Test
  void scanReturnsEveryKeyAndFiltersByPatternAndType() throws IOException {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      all.add("key:" + i);
      all.add("other:" + i);
    }
    msetAll(c, all);
    assertEquals(new HashSet<>(all), new HashSet<>(scanAll(c)));
    assertEquals(new HashSet<>(all), new HashSet<>(scanAll(c, "COUNT", "7")));
    Set<String> matched = new HashSet<>(scanAll(c, "MATCH", "key:1*", "COUNT", "20"));
    assertEquals(111, matched.size(), "key:1, key:10-19, key:100-199");
    assertTrue(matched.stream().allMatch(k -> k.startsWith("key:1")), matched.toString());
    assertEquals(new HashSet<>(all), new HashSet<>(scanAll(c, "TYPE", "string")));
    assertEquals(List.of(), scanAll(c, "TYPE", "list"));
  }

  @Test
  void scanOfAnEmptyKeyspace() throws IOException {
    assertEquals("*2\r\n$1\r\n0\r\n*0\r\n", c.call("SCAN", "0"));
  }

  @Test
  void scanErrors() throws IOException {
    assertEquals(error("ERR invalid cursor"), c.call("SCAN", "abc"));
    assertEquals(error("ERR invalid cursor"), c.call("SCAN", "1x"));
    assertEquals(SYNTAX, c.call("SCAN", "0", "COUNT", "0"));
    assertEquals(NOT_INTEGER, c.call("SCAN", "0", "COUNT", "many"));
    assertEquals(SYNTAX, c.call("SCAN", "0", "MATCH"));
    assertEquals(SYNTAX, c.call("SCAN", "0", "FOO", "bar"));
    assertEquals(arity("scan"), c.call("SCAN"));
  }

  /**
   * SCAN's guarantee: a full iteration returns every element present from its start to its end,
   * whatever else happens meanwhile. One client overwrites those keys and creates and deletes
   * others throughout; iterations use small pages so that each spans many of those writes, and
   * repeat until a thousand writes have landed while one was under way.
   */
  @Test
  void scanReturnsEveryKeyPresentThroughoutWhileOthersWrite() throws Exception {
    List<String> stable = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      stable.add("stable:" + i);
    }
    msetAll(c, stable);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writes = new AtomicLong();
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> churn(stop, writes));
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (writes.get() < 200 && !writer.isDone() && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      assertTrue(writes.get() >= 200, "the writer did not get going");
      long overlapping = 0;
      int iterations = 0;
      while ((iterations < 3 || overlapping < 1000)
          && !writer.isDone()
          && System.nanoTime() < deadline) {
        long before = writes.get();
        List<String> seen = scanAll(c, "COUNT", "10");
        overlapping += writes.get() - before;
        iterations++;
        Set<String> missing = new TreeSet<>(stable);
        seen.forEach(missing::remove);
        assertEquals(
            Set.of(),
            missing,
            "keys present throughout iteration " + iterations + " but never returned");
        assertTrue(
            seen.stream().allMatch(k -> k.startsWith("stable:") || k.startsWith("churn:")),
            "a key nobody wrote");
      }
      assertTrue(
          overlapping >= 1000,
          "only " + overlapping + " writes overlapped " + iterations + " iterations");
    } finally {
      stop.set(true);
      writer.get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * Creates churn keys, deletes older ones and overwrites stable keys, pipelined, until stopped.
   */
  private void churn(AtomicBoolean stop, AtomicLong writes) {
    try (RawClient w = server.connect()) {
      for (int round = 0; !stop.get(); round++) {
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < 20; i++) {
          int n = round * 20 + i;
          batch.append(RawClient.command("SET", "churn:" + n, "v"));
          batch.append(RawClient.command("DEL", "churn:" + (n - 100)));
          batch.append(RawClient.command("SET", "stable:" + (n % 2000), "v" + round));
        }
        w.sendRaw(batch.toString());
        for (int i = 0; i < 60; i++) {
          w.readReply();
        }
        writes.addAndGet(60);
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  // ------------------------------------------------------------------ RANDOMKEY

  @Test
  void randomkey() throws IOException {
    assertEquals(NIL, c.call("RANDOMKEY"));
    c.call("SET", "only", "v");
    assertEquals(bulk("only"), c.call("RANDOMKEY"));
    c.call("MSET", "a", "1", "b", "2");
    Object key = c.callParsed("RANDOMKEY");
    assertTrue(Set.of("only", "a", "b").contains(key), "RANDOMKEY gave " + key);
  }

  // ------------------------------------------------------------------ helpers

  /** A complete SCAN iteration: every page's keys, in order, duplicates kept. */
  static List<String> scanAll(RawClient client, String... options) throws IOException {
    List<String> keys = new ArrayList<>();
    String cursor = "0";
    int pages = 0;
    do {
      String[] args = new String[2 + options.length];
      args[0] = "SCAN";
      args[1] = cursor;
      System.arraycopy(options, 0, args, 2, options.length);
      Object reply = client.callParsed(args);
      List<?> page = assertInstanceOf(List.class, reply, () -> "SCAN answered " + reply);
      cursor = (String) page.get(0);
      keys.addAll(strings(page.get(1)));
      assertTrue(++pages < 1_000_000, "SCAN does not finish");
    } while (!cursor.equals("0"));
    return keys;
  }

  static void msetAll(RawClient client, List<String> keys) throws IOException {
    for (int from = 0; from < keys.size(); from += 500) {
      List<String> args = new ArrayList<>(List.of("MSET"));
      for (String k : keys.subList(from, Math.min(keys.size(), from + 500))) {
        args.add(k);
        args.add("v");
      }
      assertEquals(OK, client.call(args.toArray(String[]::new)));
    }
  }

  static List<String> strings(Object reply) {
    List<?> list = assertInstanceOf(List.class, reply, () -> "expected an array, got " + reply);
    List<String> out = new ArrayList<>();
    for (Object o : list) {
      out.add((String) o);
    }
    return out;
  }
}
