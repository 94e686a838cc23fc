package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Pub/sub as Redis answers it: the confirmations and their counts, messages from PUBLISH, patterns
 * and shard channels, the commands a RESP2 subscriber may still run, RESP3 pushes, PUBSUB's
 * introspection and RESET. Two connections talk through the server in most tests: a subscriber
 * ({@link #c}) and a publisher. Also checked here, beyond single replies: every subscriber sees
 * concurrent publishers' messages in one order, and no message follows an unsubscribe's
 * confirmation.
 */
class PubSubConformanceTest extends AbstractConformanceTest {
  private static String push3(String kind, String name, long count) {
    return "*3\r\n" + bulk(kind) + (name == null ? NIL : bulk(name)) + integer(count);
  }

  private static String message(String channel, String text) {
    return array("message", channel, text);
  }

  @Test
  void subscribeConfirmsEachChannelAndPublishCountsReceivers() throws IOException {
    c.send("SUBSCRIBE", "news", "weather");
    assertEquals(push3("subscribe", "news", 1), c.readReply());
    assertEquals(push3("subscribe", "weather", 2), c.readReply());
    c.send("SUBSCRIBE", "news");
    assertEquals(push3("subscribe", "news", 2), c.readReply(), "a repeat counts once");
    try (RawClient publisher = server.connect()) {
      assertEquals(integer(1), publisher.call("PUBLISH", "news", "hello"));
      assertEquals(integer(0), publisher.call("PUBLISH", "sports", "nobody"));
      assertEquals(integer(1), publisher.call("PUBLISH", "weather", "rain\r\n\0"));
    }
    assertEquals(message("news", "hello"), c.readReply());
    assertEquals(message("weather", "rain\r\n\0"), c.readReply());
  }

  @Test
  void patternsMatchAndAClientCountsOncePerSubscriptionThatMatches() throws IOException {
    c.send("PSUBSCRIBE", "news.*", "n[aeiou]ws.?");
    assertEquals(push3("psubscribe", "news.*", 1), c.readReply());
    assertEquals(push3("psubscribe", "n[aeiou]ws.?", 2), c.readReply());
    c.send("SUBSCRIBE", "news.a");
    assertEquals(push3("subscribe", "news.a", 3), c.readReply());
    try (RawClient publisher = server.connect()) {
      assertEquals(integer(3), publisher.call("PUBLISH", "news.a", "x"));
      assertEquals(integer(1), publisher.call("PUBLISH", "news.long", "y"));
      assertEquals(integer(0), publisher.call("PUBLISH", "other", "z"));
    }
    // The direct subscription's message first, then the patterns' in some order.
    assertEquals(message("news.a", "x"), c.readReply());
    Set<String> patterned = new HashSet<>(List.of(c.readReply(), c.readReply()));
    assertEquals(
        Set.of(
            array("pmessage", "news.*", "news.a", "x"),
            array("pmessage", "n[aeiou]ws.?", "news.a", "x")),
        patterned);
    assertEquals(array("pmessage", "news.*", "news.long", "y"), c.readReply());
  }

  @Test
  void unsubscribeWithoutArgumentsEndsEveryChannelAndThenAnswersWithNil() throws IOException {
    c.send("UNSUBSCRIBE");
    assertEquals(push3("unsubscribe", null, 0), c.readReply(), "nothing to unsubscribe from");
    c.send("PUNSUBSCRIBE");
    assertEquals(push3("punsubscribe", null, 0), c.readReply());
    c.send("SUBSCRIBE", "a", "b");
    c.readReply();
    c.readReply();
    c.send("PSUBSCRIBE", "p*");
    assertEquals(push3("psubscribe", "p*", 3), c.readReply());
    c.send("UNSUBSCRIBE", "b", "never");
    assertEquals(push3("unsubscribe", "b", 2), c.readReply());
    assertEquals(push3("unsubscribe", "never", 2), c.readReply());
    c.send("UNSUBSCRIBE");
    assertEquals(push3("unsubscribe", "a", 1), c.readReply());
    c.send("PUNSUBSCRIBE");
    assertEquals(push3("punsubscribe", "p*", 0), c.readReply());
    // Out of pub/sub mode: any command again.
    assertEquals(simple("PONG"), c.call("PING"));
    assertEquals(OK, c.call("SET", "k", "v"));
  }

  @Test
  void aResp2SubscriberMayOnlyManageSubscriptionsPingQuitAndReset() throws IOException {
    c.send("SUBSCRIBE", "ch");
    c.readReply();
    assertEquals(
        error(
            "ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET"
                + " are allowed in this context"),
        c.call("GET", "k"));
    assertEquals(
        error(
            "ERR Can't execute 'publish': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT /"
                + " RESET are allowed in this context"),
        c.call("PUBLISH", "ch", "m"));
    assertEquals(array("pong", ""), c.call("PING"));
    assertEquals(array("pong", "hi"), c.call("PING", "hi"));
    assertEquals(arity("get"), c.call("GET"), "arity is checked first, as in Redis");
    assertEquals(simple("RESET"), c.call("RESET"));
    assertEquals(simple("PONG"), c.call("PING"));
    try (RawClient publisher = server.connect()) {
      assertEquals(integer(0), publisher.call("PUBLISH", "ch", "after reset"));
    }
  }

  @Test
  void resetNeedsNoAuthenticationAndRestoresTheDefaultOne() throws IOException {
    assertEquals(OK, c.call("CONFIG", "SET", "requirepass", "secret"));
    try (RawClient stranger = server.connect()) {
      assertEquals(simple("RESET"), stranger.call("RESET"));
      assertEquals(error("NOAUTH Authentication required."), stranger.call("GET", "k"));
      assertEquals(OK, stranger.call("AUTH", "secret"));
      stranger.call("HELLO", "3");
      assertEquals(simple("RESET"), stranger.call("RESET"));
      assertEquals(error("NOAUTH Authentication required."), stranger.call("GET", "k"));
      assertEquals(OK, stranger.call("AUTH", "secret"));
      assertEquals(
          NIL, stranger.call("GET", "k"), "back to RESP2: a missing key is $-1, not RESP3's _");
      assertEquals(OK, stranger.call("CONFIG", "SET", "requirepass", ""));
    }
  }

  @Test
  void resp3SubscribersGetPushesAndMayRunAnyCommand() throws IOException {
    c.call("HELLO", "3");
    c.send("SUBSCRIBE", "ch");
    assertEquals(">3\r\n" + bulk("subscribe") + bulk("ch") + integer(1), c.readReply());
    assertEquals(OK, c.call("SET", "k", "v"));
    assertEquals(bulk("v"), c.call("GET", "k"));
    try (RawClient publisher = server.connect()) {
      assertEquals(integer(1), publisher.call("PUBLISH", "ch", "m"));
    }
    assertEquals(">3\r\n" + bulk("message") + bulk("ch") + bulk("m"), c.readReply());
    c.send("UNSUBSCRIBE");
    assertEquals(">3\r\n" + bulk("unsubscribe") + bulk("ch") + integer(0), c.readReply());
    c.send("UNSUBSCRIBE");
    assertEquals(">3\r\n" + bulk("unsubscribe") + "_\r\n" + integer(0), c.readReply());
  }

  @Test
  void shardChannelsAreANamespaceOfTheirOwn() throws IOException {
    c.send("SSUBSCRIBE", "orders");
    assertEquals(push3("ssubscribe", "orders", 1), c.readReply());
    c.send("SUBSCRIBE", "orders");
    assertEquals(push3("subscribe", "orders", 1), c.readReply(), "counted apart from shards");
    try (RawClient publisher = server.connect()) {
      assertEquals(integer(1), publisher.call("SPUBLISH", "orders", "s"));
      assertEquals(integer(1), publisher.call("PUBLISH", "orders", "p"));
      assertEquals(array("orders"), publisher.call("PUBSUB", "SHARDCHANNELS"));
      assertEquals(
          "*2\r\n" + bulk("orders") + integer(1),
          publisher.call("PUBSUB", "SHARDNUMSUB", "orders"));
    }
    assertEquals(array("smessage", "orders", "s"), c.readReply());
    assertEquals(message("orders", "p"), c.readReply());
    c.send("SUNSUBSCRIBE");
    assertEquals(push3("sunsubscribe", "orders", 0), c.readReply());
  }

  @Test
  void pubsubReportsChannelsSubscribersAndPatterns() throws IOException {
    try (RawClient other = server.connect();
        RawClient asker = server.connect()) {
      c.send("SUBSCRIBE", "news.tech", "news.art", "weather");
      for (int i = 0; i < 3; i++) {
        c.readReply();
      }
      other.send("SUBSCRIBE", "news.tech");
      other.readReply();
      other.send("PSUBSCRIBE", "news.*", "x*");
      other.readReply();
      other.readReply();
      @SuppressWarnings("unchecked")
      List<Object> all = (List<Object>) asker.callParsed("PUBSUB", "CHANNELS");
      assertEquals(Set.of("news.tech", "news.art", "weather"), new HashSet<>(all));
      @SuppressWarnings("unchecked")
      List<Object> news = (List<Object>) asker.callParsed("PUBSUB", "CHANNELS", "news.*");
      assertEquals(Set.of("news.tech", "news.art"), new HashSet<>(news));
      assertEquals(
          "*6\r\n"
              + bulk("news.tech")
              + integer(2)
              + bulk("weather")
              + integer(1)
              + bulk("none")
              + integer(0),
          asker.call("PUBSUB", "NUMSUB", "news.tech", "weather", "none"));
      assertEquals("*0\r\n", asker.call("PUBSUB", "NUMSUB"));
      assertEquals(integer(2), asker.call("PUBSUB", "NUMPAT"));
      assertEquals(arity("pubsub|numpat"), asker.call("PUBSUB", "NUMPAT", "x"));
      assertEquals(
          error(
              "ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP."),
          asker.call("PUBSUB", "CHANNELS", "a", "b"));
      assertTrue(asker.call("PUBSUB", "NOSUCH").startsWith("-ERR unknown subcommand 'NOSUCH'"));
      assertTrue(asker.call("PUBSUB", "HELP").startsWith("*"));
      assertEquals(arity("subscribe"), asker.call("SUBSCRIBE"));
      assertEquals(arity("publish"), asker.call("PUBLISH", "ch"));
      // A client's subscriptions end with its connection.
      other.close();
      awaitNumpat(asker, 0);
    }
  }

  private static void awaitNumpat(RawClient asker, long expected) throws IOException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    String reply;
    while (!(reply = asker.call("PUBSUB", "NUMPAT")).equals(integer(expected))) {
      assertTrue(System.nanoTime() < deadline, "NUMPAT stayed " + reply);
      Thread.onSpinWait();
    }
  }

  @Test
  void clientListShowsSubscriptionCountsAndTheType() throws IOException {
    c.send("SUBSCRIBE", "a", "b");
    c.readReply();
    c.readReply();
    c.send("PSUBSCRIBE", "p*");
    c.readReply();
    try (RawClient asker = server.connect()) {
      String line = (String) asker.callParsed("CLIENT", "LIST", "TYPE", "pubsub");
      assertTrue(line.contains(" sub=2 psub=1 ssub=0 "), line);
      assertTrue(line.contains(" flags=P "), line);
      String normal = (String) asker.callParsed("CLIENT", "LIST", "TYPE", "normal");
      assertTrue(!normal.contains("sub=2"), normal);
    }
  }

  /**
   * Two publishers send at once to two subscribers: both subscribers see the same sequence, each
   * publisher's messages in the order it sent them, as from one thread.
   */
  @Test
  void everySubscriberSeesConcurrentPublishersInOneOrder() throws Exception {
    int perPublisher = 2_000;
    try (RawClient second = server.connect()) {
      c.send("SUBSCRIBE", "ch");
      c.readReply();
      second.send("SUBSCRIBE", "ch");
      second.readReply();
      CountDownLatch start = new CountDownLatch(1);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> publishers = new ArrayList<>();
      for (String name : List.of("A", "B")) {
        Thread t =
            new Thread(
                () -> {
                  try (RawClient p = server.connect()) {
                    start.await();
                    for (int i = 0; i < perPublisher; i += 100) {
                      StringBuilder batch = new StringBuilder();
                      for (int j = i; j < i + 100; j++) {
                        batch.append(RawClient.command("PUBLISH", "ch", name + j));
                      }
                      p.sendRaw(batch.toString());
                      for (int j = 0; j < 100; j++) {
                        p.readReply();
                      }
                    }
                  } catch (Throwable e) {
                    failure.set(e);
                  }
                });
        t.start();
        publishers.add(t);
      }
      start.countDown();
      List<String> first = new ArrayList<>();
      List<String> other = new ArrayList<>();
      for (int i = 0; i < 2 * perPublisher; i++) {
        first.add(c.readReply());
        other.add(second.readReply());
      }
      for (Thread t : publishers) {
        t.join();
      }
      assertEquals(null, failure.get());
      assertEquals(first, other, "both subscribers saw one order");
      for (String name : List.of("A", "B")) {
        int next = 0;
        for (String m : first) {
          if (m.contains("\r\n" + name)) {
            assertEquals(message("ch", name + next), m, name + "'s messages in the order sent");
            next++;
          }
        }
        assertEquals(perPublisher, next, name + "'s messages");
      }
    }
  }

  /** While a publisher floods the channel, nothing follows the unsubscribe's confirmation. */
  @Test
  void noMessageFollowsTheUnsubscribeConfirmation() throws Exception {
    c.send("SUBSCRIBE", "flood");
    c.readReply();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    java.util.concurrent.atomic.AtomicBoolean stop =
        new java.util.concurrent.atomic.AtomicBoolean();
    Thread publisher =
        new Thread(
            () -> {
              try (RawClient p = server.connect()) {
                while (!stop.get()) {
                  StringBuilder batch = new StringBuilder();
                  for (int j = 0; j < 50; j++) {
                    batch.append(RawClient.command("PUBLISH", "flood", "m"));
                  }
                  p.sendRaw(batch.toString());
                  for (int j = 0; j < 50; j++) {
                    p.readReply();
                  }
                }
              } catch (Throwable e) {
                failure.set(e);
              }
            });
    publisher.start();
    try {
      for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 20; i++) {
          assertEquals(message("flood", "m"), c.readReply());
        }
        c.send("UNSUBSCRIBE", "flood");
        String reply;
        while ((reply = c.readReply()).equals(message("flood", "m"))) {
          // messages published before the unsubscribe may still arrive ahead of its confirmation
        }
        assertEquals(push3("unsubscribe", "flood", 0), reply);
        assertEquals(simple("PONG"), c.call("PING"), "no message after the confirmation");
        c.send("SUBSCRIBE", "flood");
        assertEquals(push3("subscribe", "flood", 1), c.readReply(), "nothing before it either");
      }
    } finally {
      stop.set(true);
      publisher.join();
    }
    assertEquals(null, failure.get());
  }
}
