package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Client-side caching ({@code CLIENT TRACKING}) as Redis 7.2 answers it, byte for byte: the
 * invalidation pushes of the default mode, OPTIN and OPTOUT with {@code CLIENT CACHING}, NOLOOP,
 * BCAST with prefixes (one message per prefix for what a command changed), redirection to a RESP2
 * subscriber of {@code __redis__:invalidate}, flushes, expiry, the table's bound, and the errors.
 *
 * <p>Pushes reach a client in one order, so "nothing was sent for X" is checked by changing a key
 * that is tracked afterwards and finding its invalidation next.
 */
class TrackingConformanceTest extends AbstractConformanceTest {
  private static String invalidate(String... keys) {
    StringBuilder b = new StringBuilder(">2\r\n").append(bulk("invalidate"));
    b.append('*').append(keys.length).append("\r\n");
    for (String k : keys) {
      b.append(bulk(k));
    }
    return b.toString();
  }

  /** A RESP3 client with tracking turned on with {@code options}. */
  private RawClient tracking(String... options) throws IOException {
    RawClient client = server.connect();
    client.call("HELLO", "3");
    String[] args = new String[3 + options.length];
    args[0] = "CLIENT";
    args[1] = "TRACKING";
    args[2] = "on";
    System.arraycopy(options, 0, args, 3, options.length);
    assertEquals(OK, client.call(args));
    return client;
  }

  @Test
  void aReadKeyIsInvalidatedOnceWhenAnotherClientChangesIt() throws IOException {
    try (RawClient t = tracking();
        RawClient other = server.connect()) {
      other.call("SET", "k", "1");
      assertEquals("$1\r\n1\r\n", t.call("GET", "k"));
      other.call("SET", "k", "2");
      assertEquals(invalidate("k"), t.readReply());
      other.call("SET", "k", "3"); // not read again since: nothing sent
      t.call("GET", "sentinel");
      other.call("SET", "sentinel", "x");
      assertEquals(invalidate("sentinel"), t.readReply(), "k's second change sent nothing");
      // A deletion is a change (of keys that exist: deleting nothing changes nothing).
      other.call("MSET", "a", "1", "b", "2");
      t.call("MGET", "a", "b");
      other.call("DEL", "a", "b", "absent");
      assertEquals(invalidate("a"), t.readReply());
      assertEquals(invalidate("b"), t.readReply());
    }
  }

  @Test
  void optinRemembersOnlyAfterCachingYesAndOptoutAllButAfterCachingNo() throws IOException {
    try (RawClient in = tracking("OPTIN");
        RawClient out = tracking("OPTOUT");
        RawClient other = server.connect()) {
      in.call("GET", "plain");
      assertEquals(OK, in.call("CLIENT", "CACHING", "yes"));
      in.call("GET", "cached");
      in.call("GET", "after");
      other.call("MSET", "plain", "1", "cached", "1", "after", "1");
      assertEquals(invalidate("cached"), in.readReply());
      in.call("GET", "sentinel");
      // Only the command right after CACHING yes was remembered; "sentinel" was not either.
      assertEquals(OK, in.call("CLIENT", "CACHING", "yes"));
      in.call("GET", "sentinel");
      other.call("SET", "sentinel", "x");
      assertEquals(invalidate("sentinel"), in.readReply());

      assertEquals(OK, out.call("CLIENT", "CACHING", "no"));
      out.call("GET", "skipped");
      out.call("GET", "kept");
      other.call("MSET", "skipped", "1", "kept", "1");
      assertEquals(invalidate("kept"), out.readReply());
    }
  }

  @Test
  void noloopLeavesOutTheClientsOwnChanges() throws IOException {
    try (RawClient t = tracking("NOLOOP");
        RawClient other = server.connect()) {
      t.call("GET", "mine");
      t.call("SET", "mine", "1");
      t.call("GET", "mine");
      other.call("SET", "mine", "2");
      assertEquals(invalidate("mine"), t.readReply(), "only the other client's change");
    }
  }

  @Test
  void broadcastSendsOneMessagePerPrefixForWhatACommandChanged() throws IOException {
    try (RawClient t = tracking("BCAST", "PREFIX", "a:", "PREFIX", "b:");
        RawClient other = server.connect()) {
      other.call("MSET", "a:1", "x", "a:2", "x", "c:1", "x");
      assertEquals(invalidate("a:1", "a:2"), t.readReply());
      other.call("MULTI");
      other.call("INCR", "a:3");
      other.call("INCR", "b:1");
      other.call("INCR", "c:2");
      other.call("EXEC");
      assertEquals(invalidate("a:3"), t.readReply());
      assertEquals(invalidate("b:1"), t.readReply());
      assertEquals(
          error(
              "ERR Prefix 'a:x' overlaps with an existing prefix 'a:'. Prefixes for a single"
                  + " client must not overlap."),
          t.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a:x"));
      assertEquals(OK, t.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "z"));
      other.call("SET", "zz", "1");
      assertEquals(invalidate("zz"), t.readReply(), "an added prefix broadcasts too");
    }
  }

  @Test
  void aRedirectReachesARESP2SubscriberOfTheInvalidateChannel() throws IOException {
    try (RawClient listener = server.connect();
        RawClient t = server.connect();
        RawClient other = server.connect()) {
      String id = listener.call("CLIENT", "ID").substring(1).trim();
      listener.call("SUBSCRIBE", "__redis__:invalidate");
      assertEquals(OK, t.call("CLIENT", "TRACKING", "on", "REDIRECT", id));
      assertEquals(integer(Long.parseLong(id)), t.call("CLIENT", "GETREDIR"));
      t.call("GET", "k");
      other.call("SET", "k", "v");
      assertEquals(
          "*3\r\n" + bulk("message") + bulk("__redis__:invalidate") + "*1\r\n" + bulk("k"),
          listener.readReply());
      other.call("FLUSHALL");
      assertEquals(
          "*3\r\n" + bulk("message") + bulk("__redis__:invalidate") + NIL, listener.readReply());
    }
  }

  @Test
  void aFlushTellsEveryTrackingClientToDropEverything() throws IOException {
    try (RawClient t = tracking();
        RawClient b = tracking("BCAST");
        RawClient other = server.connect()) {
      t.call("GET", "k");
      other.call("FLUSHALL");
      assertEquals(">2\r\n" + bulk("invalidate") + "_\r\n", t.readReply());
      assertEquals(">2\r\n" + bulk("invalidate") + "_\r\n", b.readReply());
      other.call("SET", "k", "1");
      assertEquals(invalidate("k"), b.readReply(), "BCAST still sees every key");
      t.call("GET", "sentinel");
      other.call("SET", "sentinel", "1");
      assertEquals(invalidate("sentinel"), t.readReply(), "the flush emptied the table");
    }
  }

  @Test
  void anExpiredKeyIsInvalidated() throws Exception {
    try (RawClient t = tracking();
        RawClient other = server.connect()) {
      other.call("SET", "brief", "1", "PX", "50");
      t.call("GET", "brief");
      t.readTimeout(5_000);
      assertEquals(invalidate("brief"), t.readReply());
    }
  }

  @Test
  void theTableStaysWithinItsBoundAndTellsWhatItDrops() throws IOException {
    try (RawClient t = tracking();
        RawClient other = server.connect()) {
      other.call("CONFIG", "SET", "tracking-table-max-keys", "1");
      try {
        t.call("GET", "k1");
        t.call("GET", "k2");
        t.readTimeout(5_000);
        String dropped = t.readReply();
        assertTrue(dropped.equals(invalidate("k1")) || dropped.equals(invalidate("k2")), dropped);
        String stats = other.call("INFO", "stats");
        assertTrue(stats.contains("tracking_total_keys:1\r\n"), stats);
      } finally {
        other.call("CONFIG", "SET", "tracking-table-max-keys", "1000000");
      }
    }
  }

  @Test
  void theOptionsAreCheckedAndReportedAsRedisDoes() throws IOException {
    assertEquals(integer(-1), c.call("CLIENT", "GETREDIR"));
    assertEquals(
        error("ERR PREFIX option requires BCAST mode to be enabled"),
        c.call("CLIENT", "TRACKING", "on", "PREFIX", "a"));
    assertEquals(
        error("ERR You can't specify both OPTIN mode and OPTOUT mode"),
        c.call("CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT"));
    assertEquals(
        error("ERR OPTIN and OPTOUT are not compatible with BCAST"),
        c.call("CLIENT", "TRACKING", "on", "BCAST", "OPTIN"));
    assertEquals(
        error("ERR The client ID you want redirect to does not exist"),
        c.call("CLIENT", "TRACKING", "on", "REDIRECT", "999999"));
    assertEquals(
        error(
            "ERR CLIENT CACHING can be called only when the client is in tracking mode with"
                + " OPTIN or OPTOUT mode enabled"),
        c.call("CLIENT", "CACHING", "yes"));
    assertEquals(SYNTAX, c.call("CLIENT", "TRACKING", "maybe"));
    assertEquals(OK, c.call("CLIENT", "TRACKING", "on", "OPTIN", "NOLOOP"));
    assertEquals(integer(0), c.call("CLIENT", "GETREDIR"));
    assertEquals(
        error(
            "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client,"
                + " and then re-enabling it with a different mode."),
        c.call("CLIENT", "TRACKING", "on", "OPTOUT"));
    assertEquals(
        error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."),
        c.call("CLIENT", "CACHING", "no"));
    assertEquals(OK, c.call("CLIENT", "CACHING", "yes"));
    assertEquals(
        "*6\r\n"
            + bulk("flags")
            + "*4\r\n"
            + bulk("on")
            + bulk("optin")
            + bulk("caching-yes")
            + bulk("noloop")
            + bulk("redirect")
            + integer(0)
            + bulk("prefixes")
            + "*0\r\n",
        c.call("CLIENT", "TRACKINGINFO"));
    assertTrue(c.call("INFO", "clients").contains("tracking_clients:1\r\n"));
    assertTrue(c.call("CLIENT", "INFO").contains(" flags=t "));
    assertEquals(OK, c.call("CLIENT", "TRACKING", "off"));
    assertTrue(c.call("INFO", "clients").contains("tracking_clients:0\r\n"));
    assertEquals(
        "*6\r\n"
            + bulk("flags")
            + "*1\r\n"
            + bulk("off")
            + bulk("redirect")
            + integer(-1)
            + bulk("prefixes")
            + "*0\r\n",
        c.call("CLIENT", "TRACKINGINFO"));
  }
}
