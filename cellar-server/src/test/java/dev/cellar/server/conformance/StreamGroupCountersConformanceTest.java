package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A consumer group's {@code entries-read} and {@code lag} as Redis keeps and estimates them: exact
 * while nothing deleted lies ahead of the group, unknown (nil) where an XDEL leaves a gap Redis
 * cannot count across, known again once the group reaches the last entry; and {@code XINFO STREAM
 * FULL}'s groups, pending entries and consumers. The sequences are those of Redis's own tests.
 */
class StreamGroupCountersConformanceTest extends AbstractConformanceTest {

  @Test
  void readCounterAndLag() throws IOException {
    for (int i = 1; i <= 5; i++) {
      c.call("XADD", "x", i + "-0", "data", "v" + i);
    }
    c.call("XGROUP", "CREATE", "x", "g1", "0");
    assertCounters("g1", null, 5L);
    c.call("XREADGROUP", "GROUP", "g1", "c11", "COUNT", "1", "STREAMS", "x", ">");
    assertCounters("g1", 1L, 4L);
    c.call("XREADGROUP", "GROUP", "g1", "c12", "COUNT", "10", "STREAMS", "x", ">");
    assertCounters("g1", 5L, 0L);
    c.call("XADD", "x", "6-0", "data", "f");
    assertCounters("g1", 5L, 1L);
    // SETID without ENTRIESREAD forgets the counter (and an id amid the entries has no
    // estimate); with it, sets it.
    c.call("XGROUP", "SETID", "x", "g1", "2-0");
    assertCounters("g1", null, null);
    c.call("XGROUP", "SETID", "x", "g1", "2-0", "ENTRIESREAD", "2");
    assertCounters("g1", 2L, 4L);
    // A group made at $ has no counter, and no lag.
    c.call("XGROUP", "CREATE", "x", "g2", "$");
    assertCounters("g2", null, 0L);
  }

  @Test
  void lagAcrossDeletions() throws IOException {
    for (int i = 1; i <= 5; i++) {
      c.call("XADD", "x", i + "-0", "data", "v" + i);
    }
    c.call("XDEL", "x", "3-0");
    c.call("XGROUP", "CREATE", "x", "g1", "0");
    c.call("XGROUP", "CREATE", "x", "g2", "0");
    assertCounters("g1", null, null);
    for (int read = 1; read <= 3; read++) {
      c.call("XREADGROUP", "GROUP", "g1", "c11", "COUNT", "1", "STREAMS", "x", ">");
      assertCounters("g1", null, null);
    }
    c.call("XREADGROUP", "GROUP", "g1", "c11", "COUNT", "1", "STREAMS", "x", ">");
    assertCounters("g1", 5L, 0L);
    c.call("XADD", "x", "6-0", "data", "f");
    assertCounters("g1", 5L, 1L);
    c.call("XTRIM", "x", "MINID", "=", "3-0");
    assertCounters("g1", 5L, 1L);
    assertCounters("g2", null, 3L);
    c.call("XTRIM", "x", "MINID", "=", "5-0");
    assertCounters("g1", 5L, 1L);
    assertCounters("g2", null, 2L);
  }

  @Test
  void emptyStreams() throws IOException {
    c.call("XGROUP", "CREATE", "x", "g1", "$", "MKSTREAM");
    assertCounters("g1", null, 0L);
    c.call("XADD", "x", "1-0", "data", "a");
    c.call("XDEL", "x", "1-0");
    assertCounters("g1", null, 0L);
  }

  @Test
  void fullStreamInfo() throws IOException {
    c.call("XADD", "x", "100-0", "a", "1");
    c.call("XADD", "x", "101-0", "b", "1");
    c.call("XADD", "x", "102-0", "c", "1");
    c.call("XGROUP", "CREATE", "x", "g1", "0");
    c.call("XGROUP", "CREATE", "x", "g0", "0");
    c.call("XREADGROUP", "GROUP", "g1", "Alice", "COUNT", "1", "STREAMS", "x", ">");
    c.call("XREADGROUP", "GROUP", "g1", "Bob", "COUNT", "1", "STREAMS", "x", ">");

    Map<String, Object> full = map(c.callParsed("XINFO", "STREAM", "x", "FULL", "COUNT", "2"));
    List<String> keys = new ArrayList<>(full.keySet());
    assertEquals(
        List.of(
            "length",
            "radix-tree-keys",
            "radix-tree-nodes",
            "last-generated-id",
            "max-deleted-entry-id",
            "entries-added",
            "recorded-first-entry-id",
            "entries",
            "groups"),
        keys);
    assertEquals(3L, full.get("length"));
    assertEquals(2, ((List<?>) full.get("entries")).size(), "COUNT 2");
    List<?> groups = (List<?>) full.get("groups");
    assertEquals(2, groups.size());
    assertEquals("g0", map(groups.get(0)).get("name"), "in name order");
    Map<String, Object> g1 = map(groups.get(1));
    assertEquals("g1", g1.get("name"));
    assertEquals("101-0", g1.get("last-delivered-id"));
    assertEquals(2L, g1.get("entries-read"));
    assertEquals(1L, g1.get("lag"));
    assertEquals(2L, g1.get("pel-count"));
    List<?> pending = (List<?>) g1.get("pending");
    assertEquals(List.of("100-0", "Alice"), ((List<?>) pending.get(0)).subList(0, 2));
    assertEquals(1L, ((List<?>) pending.get(1)).get(3), "delivered once");
    List<?> consumers = (List<?>) g1.get("consumers");
    Map<String, Object> alice = map(consumers.get(0));
    assertEquals("Alice", alice.get("name"));
    assertEquals(1L, alice.get("pel-count"));
    assertEquals("100-0", ((List<?>) ((List<?>) alice.get("pending")).get(0)).get(0));
    if (redis72()) {
      assertEquals(alice.get("seen-time"), alice.get("active-time"));
    }
    assertEquals(
        "-ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.\r\n",
        c.call("XINFO", "STREAM", "x", "FULL", "COUNT"));
  }

  /** Asserts the group's entries-read and lag as XINFO GROUPS reports them (null: nil). */
  private void assertCounters(String group, Long entriesRead, Long lag) throws IOException {
    for (Object g : assertInstanceOf(List.class, c.callParsed("XINFO", "GROUPS", "x"))) {
      Map<String, Object> fields = map(g);
      if (group.equals(fields.get("name"))) {
        assertEquals(
            Arrays.asList(entriesRead, lag),
            Arrays.asList(fields.get("entries-read"), fields.get("lag")),
            group + ": entries-read and lag");
        return;
      }
    }
    throw new AssertionError("no group " + group);
  }

  private static Map<String, Object> map(Object flat) {
    List<?> list = assertInstanceOf(List.class, flat);
    Map<String, Object> out = new LinkedHashMap<>();
    for (int i = 0; i + 1 < list.size(); i += 2) {
      out.put((String) list.get(i), list.get(i + 1));
    }
    return out;
  }
}
