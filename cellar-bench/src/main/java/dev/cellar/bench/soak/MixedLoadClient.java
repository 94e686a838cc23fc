package dev.cellar.bench.soak;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * One client of the soak: a connection that sends a random mix of SET, GET, APPEND, DEL, EXPIRE and
 * INCR, one at a time, until told to stop.
 *
 * <p>Checking without a model. Each client owns a disjoint share of the keys (key {@code i} belongs
 * to client {@code i mod clients}), so no other client writes them. A string key's value is always
 * made of one byte, chosen by the key, repeated (SET writes it, APPEND adds more of it); a GET must
 * return nil (deleted or expired) or only that byte. Counters are separate keys that only INCR
 * touches, so the client knows each one's value exactly. A lost connection makes the counters
 * unknown until their next INCR, since the last one may or may not have been applied.
 *
 * <p>Sizes. Values are drawn log-uniformly between {@link #MIN_VALUE} and {@link #MAX_VALUE}: most
 * are small, but most bytes are in the large ones, so the log fills fast and, with every key
 * overwritten again and again, compaction always has garbage to reclaim.
 *
 * <p>Owned by its own thread; it shares only {@link LoadCounters}.
 */
final class MixedLoadClient implements Runnable {
  static final int MIN_VALUE = 10;
  static final int MAX_VALUE = 64 * 1024;

  /** An APPENDed value longer than this is SET back to a small one, so values stay bounded. */
  private static final int APPEND_CAP = 2 * MAX_VALUE;

  private static final int COUNTERS = 64;
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final byte[][] FILLS = fills();

  private final int port;
  private final int client;
  private final int clients;
  private final int keys;
  private final LoadCounters counters;
  private final BooleanSupplier stopping;
  private final String password;
  private final SplittableRandom random;
  private final long[] counterValues = new long[COUNTERS];
  private final boolean[] counterKnown = new boolean[COUNTERS];
  private SoakConnection connection;

  MixedLoadClient(
      int port,
      int client,
      int clients,
      int keys,
      LoadCounters counters,
      BooleanSupplier stopping) {
    this(port, client, clients, keys, counters, stopping, null);
  }

  /**
   * A client that authenticates with {@code password} (null for none) on every connection it opens.
   */
  MixedLoadClient(
      int port,
      int client,
      int clients,
      int keys,
      LoadCounters counters,
      BooleanSupplier stopping,
      String password) {
    this.port = port;
    this.client = client;
    this.clients = clients;
    this.keys = keys;
    this.counters = counters;
    this.stopping = stopping;
    this.password = password;
    this.random = new SplittableRandom(0x5eedL * 31 + client);
  }

  @Override
  public void run() {
    while (!stopping.getAsBoolean()) {
      try {
        if (connection == null) {
          connection = SoakConnection.open(port, TIMEOUT, password);
        }
        long start = System.nanoTime();
        operation();
        counters.served(System.nanoTime() - start);
      } catch (IOException | RuntimeException e) {
        counters.connectionFailures.increment();
        counters.problem("client " + client + ": " + e);
        Arrays.fill(counterKnown, false);
        closeQuietly();
        pause();
      }
    }
    closeQuietly();
  }

  private void operation() throws IOException {
    int roll = random.nextInt(100);
    if (roll < 10) {
      incr();
      return;
    }
    int key = client + clients * random.nextInt(Math.max(1, keys / clients));
    byte[] name = ("soak:s:" + key).getBytes(StandardCharsets.US_ASCII);
    if (roll < 45) {
      get(key, name);
    } else if (roll < 75) {
      set(key, name, logUniform(MIN_VALUE, MAX_VALUE));
    } else if (roll < 83) {
      append(key, name);
    } else if (roll < 90) {
      expect(connection.call(bytes("DEL"), name), ':', "DEL");
    } else {
      byte[] seconds = Integer.toString(1 + random.nextInt(60)).getBytes(StandardCharsets.US_ASCII);
      expect(connection.call(bytes("EXPIRE"), name, seconds), ':', "EXPIRE");
    }
  }

  private void get(int key, byte[] name) throws IOException {
    SoakConnection.Reply reply = connection.call(bytes("GET"), name);
    if (expect(reply, '$', "GET") && reply.bulk() != null && !allEqual(reply.bulk(), fill(key))) {
      wrong(
          "GET soak:s:"
              + key
              + " returned "
              + reply.bulk().length
              + " bytes that are not all '"
              + (char) fill(key)
              + "'");
    }
  }

  private void set(int key, byte[] name, int size) throws IOException {
    SoakConnection.Reply reply =
        connection.call(bytes("SET"), name, Arrays.copyOf(FILLS[key % FILLS.length], size));
    if (expect(reply, '+', "SET") && !"OK".equals(reply.text())) {
      wrong("SET soak:s:" + key + " replied +" + reply.text());
    }
  }

  private void append(int key, byte[] name) throws IOException {
    SoakConnection.Reply reply =
        connection.call(
            bytes("APPEND"), name, Arrays.copyOf(FILLS[key % FILLS.length], logUniform(1, 4096)));
    if (expect(reply, ':', "APPEND") && reply.integer() > APPEND_CAP) {
      set(key, name, MIN_VALUE);
    }
  }

  private void incr() throws IOException {
    int slot = random.nextInt(COUNTERS);
    SoakConnection.Reply reply =
        connection.call(bytes("INCR"), bytes("soak:c:" + client + ":" + slot));
    if (!expect(reply, ':', "INCR")) {
      return;
    }
    if (counterKnown[slot] && reply.integer() != counterValues[slot] + 1) {
      wrong(
          "INCR soak:c:"
              + client
              + ":"
              + slot
              + " returned "
              + reply.integer()
              + ", expected "
              + (counterValues[slot] + 1));
    }
    counterValues[slot] = reply.integer();
    counterKnown[slot] = true;
  }

  /** Whether the reply has the expected type; an error reply or another type is counted. */
  private boolean expect(SoakConnection.Reply reply, char type, String command) {
    if (reply.isError()) {
      counters.errorReplies.increment();
      counters.problem("client " + client + ": " + command + " replied " + reply);
      return false;
    }
    if (reply.kind() != type) {
      wrong(command + " replied " + reply + ", expected type " + type);
      return false;
    }
    return true;
  }

  private void wrong(String description) {
    counters.wrongReplies.increment();
    counters.problem("client " + client + ": " + description);
  }

  private int logUniform(int min, int max) {
    return (int)
        Math.min(
            max, Math.exp(Math.log(min) + random.nextDouble() * (Math.log(max) - Math.log(min))));
  }

  private static byte fill(int key) {
    return FILLS[key % FILLS.length][0];
  }

  private static boolean allEqual(byte[] value, byte b) {
    for (byte v : value) {
      if (v != b) {
        return false;
      }
    }
    return true;
  }

  private static byte[][] fills() {
    byte[][] fills = new byte[26][];
    for (int i = 0; i < fills.length; i++) {
      fills[i] = new byte[APPEND_CAP + 4096];
      Arrays.fill(fills[i], (byte) ('a' + i));
    }
    return fills;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private void pause() {
    try {
      Thread.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void closeQuietly() {
    if (connection != null) {
      try {
        connection.close();
      } catch (IOException ignored) {
        // closing a broken connection
      }
      connection = null;
    }
  }
}
