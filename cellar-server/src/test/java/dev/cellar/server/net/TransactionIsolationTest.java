package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.testsupport.LocalServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

/**
 * Transactions on a server with two event loops, so that clients really run at once: transfers
 * between accounts in MULTI/EXEC or in scripts never show a wrong total to readers using MGET or a
 * transaction of GETs, and increments done with WATCH/MULTI/EXEC and retried on conflict lose no
 * increment.
 */
class TransactionIsolationTest {
  private static final int ACCOUNTS = 8;
  private static final long EACH = 1000;

  @TempDir Path dir;
  CellarServer server;

  @BeforeEach
  void start() {
    server = LocalServer.start(dir, "io-threads", "2");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private Jedis client() {
    return new Jedis("127.0.0.1", server.port(), 30_000);
  }

  private static String[] accounts() {
    String[] keys = new String[ACCOUNTS];
    for (int i = 0; i < ACCOUNTS; i++) {
      keys[i] = "acct:" + i;
    }
    return keys;
  }

  @Test
  void readersNeverSeeATransferHalfDone() throws Exception {
    try (Jedis setup = client()) {
      for (String key : accounts()) {
        setup.set(key, Long.toString(EACH));
      }
    }
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong transfers = new AtomicLong();
    AtomicLong reads = new AtomicLong();
    List<String> wrong = Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      long seed = t;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    Random random = new Random(seed);
                    try (Jedis jedis = client()) {
                      while (!stop.get()) {
                        int from = random.nextInt(ACCOUNTS);
                        int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                        long amount = 1 + random.nextInt(50);
                        if (seed == 2) {
                          // The same transfer as a script, which must be as atomic.
                          jedis.eval(
                              "redis.call('decrby', KEYS[1], ARGV[1]);"
                                  + " redis.call('incrby', KEYS[2], ARGV[1])",
                              List.of("acct:" + from, "acct:" + to),
                              List.of(Long.toString(amount)));
                        } else {
                          Transaction tx = jedis.multi();
                          tx.decrBy("acct:" + from, amount);
                          tx.incrBy("acct:" + to, amount);
                          tx.exec();
                        }
                        transfers.incrementAndGet();
                      }
                    }
                  }));
    }
    for (int t = 0; t < 2; t++) {
      boolean useMulti = t == 1;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (Jedis jedis = client()) {
                      while (!stop.get()) {
                        List<String> values;
                        if (useMulti) {
                          Transaction tx = jedis.multi();
                          for (String key : accounts()) {
                            tx.get(key);
                          }
                          values = new ArrayList<>();
                          for (Object o : tx.exec()) {
                            values.add((String) o);
                          }
                        } else {
                          values = jedis.mget(accounts());
                        }
                        long sum = 0;
                        for (String v : values) {
                          sum += Long.parseLong(v);
                        }
                        if (sum != ACCOUNTS * EACH) {
                          wrong.add((useMulti ? "EXEC of GETs" : "MGET") + " summed " + sum);
                        }
                        reads.incrementAndGet();
                      }
                    }
                  }));
    }
    long deadline = System.nanoTime() + 3_000_000_000L;
    while (System.nanoTime() < deadline && (transfers.get() < 5000 || reads.get() < 2000)) {
      Thread.sleep(20);
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(30_000);
    }
    assertEquals(List.of(), wrong.subList(0, Math.min(5, wrong.size())));
    assertTrue(transfers.get() > 500, "only " + transfers.get() + " transfers");
    assertTrue(reads.get() > 200, "only " + reads.get() + " reads");
    try (Jedis jedis = client()) {
      long sum = 0;
      for (String v : jedis.mget(accounts())) {
        sum += Long.parseLong(v);
      }
      assertEquals(ACCOUNTS * EACH, sum);
    }
  }

  @Test
  void watchedIncrementsRetriedOnConflictLoseNothing() throws Exception {
    AtomicLong committed = new AtomicLong();
    AtomicLong conflicts = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (Jedis jedis = client()) {
                      for (int i = 0; i < 400; i++) {
                        while (true) {
                          jedis.watch("counter");
                          String v = jedis.get("counter");
                          long next = (v == null ? 0 : Long.parseLong(v)) + 1;
                          Transaction tx = jedis.multi();
                          tx.set("counter", Long.toString(next));
                          if (tx.exec() != null) {
                            committed.incrementAndGet();
                            break;
                          }
                          conflicts.incrementAndGet();
                        }
                      }
                    }
                  }));
    }
    for (Thread thread : threads) {
      thread.join(60_000);
    }
    assertEquals(1600, committed.get());
    try (Jedis jedis = client()) {
      assertEquals("1600", jedis.get("counter"), conflicts.get() + " conflicts retried");
    }
  }
}
