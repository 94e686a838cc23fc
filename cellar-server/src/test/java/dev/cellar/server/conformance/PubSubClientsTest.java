package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisProtocol;

/**
 * Pub/sub through the clients applications use, over RESP2 and RESP3: Jedis's blocking {@link
 * JedisPubSub} (channels and patterns, unsubscribing from its callback) and Lettuce's pub/sub
 * connection with a listener, each fed by an ordinary connection's PUBLISH.
 */
class PubSubClientsTest extends AbstractConformanceTest {
  private Jedis jedis(RedisProtocol protocol) {
    return new Jedis(
        new HostAndPort("127.0.0.1", server.port()),
        DefaultJedisClientConfig.builder().protocol(protocol).timeoutMillis(10_000).build());
  }

  @ParameterizedTest
  @EnumSource(RedisProtocol.class)
  void jedisSubscribesReceivesAndUnsubscribesFromItsCallback(RedisProtocol protocol)
      throws Exception {
    BlockingQueue<String> received = new LinkedBlockingQueue<>();
    CountDownLatch subscribed = new CountDownLatch(2);
    JedisPubSub listener =
        new JedisPubSub() {
          @Override
          public void onSubscribe(String channel, int count) {
            subscribed.countDown();
            psubscribe("ev.*"); // from the callback, on the subscribed connection
          }

          @Override
          public void onPSubscribe(String pattern, int count) {
            subscribed.countDown();
          }

          @Override
          public void onMessage(String channel, String message) {
            received.add(channel + "=" + message);
            if (message.equals("last")) {
              unsubscribe();
              punsubscribe();
            }
          }

          @Override
          public void onPMessage(String pattern, String channel, String message) {
            received.add(pattern + ":" + channel + "=" + message);
          }
        };
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread subscriber =
        new Thread(
            () -> {
              try (Jedis j = jedis(protocol)) {
                j.subscribe(listener, "news");
                // Back from subscribe(): the connection is an ordinary one again.
                assertEquals("PONG", j.ping());
              } catch (Throwable e) {
                failure.set(e);
              }
            });
    subscriber.start();
    assertTrue(subscribed.await(10, TimeUnit.SECONDS), "subscribed to the channel and pattern");
    try (Jedis publisher = jedis(protocol)) {
      assertEquals(1, publisher.publish("news", "hello"));
      assertEquals(1, publisher.publish("ev.click", "x"));
      assertEquals(0, publisher.publish("other", "y"));
      assertEquals(1, publisher.pubsubNumPat());
      assertEquals(1, publisher.publish("news", "last"));
    }
    subscriber.join(10_000);
    assertEquals(null, failure.get());
    assertEquals(
        List.of("news=hello", "ev.*:ev.click=x", "news=last"),
        List.of(received.poll(), received.poll(), received.poll()));
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void lettuceListensOnAPubSubConnection(ProtocolVersion protocol) throws Exception {
    RedisClient client = lettuce();
    client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
    try (StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub();
        var pub = client.connect()) {
      BlockingQueue<String> received = new LinkedBlockingQueue<>();
      sub.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              received.add(channel + "=" + message);
            }

            @Override
            public void message(String pattern, String channel, String message) {
              received.add(pattern + ":" + channel + "=" + message);
            }
          });
      sub.sync().subscribe("orders");
      sub.sync().psubscribe("orders.*");
      assertEquals(1L, pub.sync().publish("orders", "a"));
      assertEquals(1L, pub.sync().publish("orders.eu", "b"));
      assertEquals(List.of("orders"), pub.sync().pubsubChannels());
      assertEquals(1L, pub.sync().pubsubNumsub("orders").get("orders"));
      assertEquals("orders=a", received.poll(10, TimeUnit.SECONDS));
      assertEquals("orders.*:orders.eu=b", received.poll(10, TimeUnit.SECONDS));
      sub.sync().unsubscribe("orders");
      sub.sync().punsubscribe("orders.*");
      assertEquals(0L, pub.sync().publish("orders", "c"));
      if (protocol == ProtocolVersion.RESP3) {
        // RESP3: a connection with subscriptions runs any command too.
        sub.sync().subscribe("again");
        assertEquals("PONG", sub.sync().ping());
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
    }
  }
}
