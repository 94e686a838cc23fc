package dev.cellar.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * Clients write and read a few keys of a three-node cluster while shard leaders are stopped and
 * started again; every operation is recorded with its call and return times, and Porcupine
 * (github.com/anishathalye/porcupine, the Go checker in src/test/go/linearizability) decides
 * whether the history is linearizable against a key-value model of SET, GET, INCR and DEL.
 *
 * <p>A write that failed or timed out has an unknown outcome: it may have taken effect at any time
 * after it was called, or never, and the checker treats it so. A failed read is dropped.
 */
class LinearizabilityTest {
  private static final String[] KEYS = {"lin:a", "lin:b", "lin:c", "lin:d"};

  @TempDir Path dir;

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void historiesWithALeaderLostAndBackAreLinearizable() throws Exception {
    check(12, 1);
  }

  /** The long form: more clients, ten leader losses (run with -Pslow). */
  @Test
  @Tag("slow")
  @Timeout(value = 20, unit = TimeUnit.MINUTES)
  void longHistoriesWithTenLeaderLossesAreLinearizable() throws Exception {
    check(120, 10);
  }

  private void check(int seconds, int losses) throws Exception {
    Path history = Path.of("target", "linearizability-" + System.currentTimeMillis() + ".jsonl");
    try (TestCluster nodes = new TestCluster(dir.resolve("nodes"), 3, 6)) {
      nodes.awaitOk();
      long origin = System.nanoTime();
      long end = origin + TimeUnit.SECONDS.toNanos(seconds);
      List<Thread> clients = new ArrayList<>();
      List<List<String>> recorded = new ArrayList<>();
      {
        for (int c = 0; c < 4; c++) {
          List<String> ops = new ArrayList<>();
          recorded.add(ops);
          int client = c;
          Thread t =
              Thread.ofPlatform()
                  .name("client-" + c)
                  .start(() -> runClient(nodes, client, origin, end, ops));
          clients.add(t);
        }
        // Stop the leader of a key's shard, let the others elect and serve, start it again.
        long slice = TimeUnit.SECONDS.toNanos(seconds) / (losses + 1);
        for (int loss = 1; loss <= losses; loss++) {
          sleepUntil(origin + loss * slice - slice / 2);
          int victim = nodes.leaderOf(KEYS[loss % KEYS.length]);
          nodes.stop(victim);
          sleepUntil(origin + loss * slice);
          nodes.start(victim);
        }
        for (Thread t : clients) {
          t.join();
        }
      }
      List<String> lines = new ArrayList<>();
      recorded.forEach(lines::addAll);
      Files.write(history, lines, StandardCharsets.UTF_8);
      assertTrue(lines.size() > 200, "the clients did " + lines.size() + " operations");
    }
    Path html = Path.of(history.toString().replace(".jsonl", ".html"));
    Process checker =
        new ProcessBuilder(
                goCommand(),
                "run",
                ".",
                "-history",
                history.toAbsolutePath().toString(),
                "-html",
                html.toAbsolutePath().toString())
            .directory(Path.of("src", "test", "go", "linearizability").toFile())
            .redirectErrorStream(true)
            .start();
    String report = new String(checker.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(checker.waitFor(5, TimeUnit.MINUTES), "the checker finished");
    System.out.print("porcupine: " + report);
    assertEquals(0, checker.exitValue(), "porcupine: " + report);
  }

  /**
   * One client: a connection per node, each command sent once to the node it believes serves the
   * key, and a {@code MOVED} followed (a command sent elsewhere was not run, so following it is not
   * a retry). A client library's own retries are what this avoids: a write retried after its
   * connection died may run twice, which is the client's doing, not the cluster's.
   */
  private static void runClient(
      TestCluster nodes, int client, long origin, long end, List<String> ops) {
    SplittableRandom random = new SplittableRandom(20261128L + client);
    java.util.Map<Integer, Jedis> connections = new java.util.HashMap<>();
    java.util.Map<String, Integer> portOf = new java.util.HashMap<>();
    try {
      while (System.nanoTime() < end) {
        String key = KEYS[random.nextInt(KEYS.length)];
        int kind = random.nextInt(20);
        String op = kind < 8 ? "get" : kind < 13 ? "set" : kind < 18 ? "incr" : "del";
        String arg = op.equals("set") ? Integer.toString(random.nextInt(1000)) : "";
        long call = System.nanoTime() - origin;
        String out = null;
        boolean unknown = false;
        boolean done = false;
        boolean notRun = false;
        int port = portOf.getOrDefault(key, nodes.port(random.nextInt(nodes.size())));
        for (int hops = 0; !done && hops < 5; hops++) {
          try {
            // Inside the try: a connection is made at once, to a node that may be down.
            Jedis jedis = connections.computeIfAbsent(port, p -> new Jedis("127.0.0.1", p, 5000));
            out =
                switch (op) {
                  case "get" -> jedis.get(key);
                  case "set" -> jedis.set(key, arg);
                  case "incr" -> Long.toString(jedis.incr(key));
                  default -> Long.toString(jedis.del(key));
                };
            portOf.put(key, port);
            done = true;
          } catch (JedisMovedDataException moved) {
            port = moved.getTargetNode().getPort(); // not run there: send it where it belongs
          } catch (RuntimeException failed) {
            if (notRun(failed)) {
              notRun = true; // never sent, or the node says it did not run it
              portOf.remove(key);
              done = true;
              continue; // (a connection that failed to open was never kept)
            }
            // Another error reply, a connection that died or timed out: a write's outcome is
            // unknown.
            Jedis broken = connections.remove(port);
            if (broken != null) {
              try {
                broken.close();
              } catch (RuntimeException closing) {
                // the connection was broken already
              }
            }
            portOf.remove(key);
            unknown = true;
            done = true;
          }
        }
        if (notRun) {
          continue; // it did not happen
        }
        if (!done || (unknown && op.equals("get"))) {
          if (!done && !op.equals("get")) {
            unknown = true; // only MOVED replies: it ran nowhere, which unknown also allows
          } else {
            continue; // a read that failed tells nothing
          }
        }
        long ret = System.nanoTime() - origin;
        ops.add(
            "{\"client\":"
                + client
                + ",\"op\":\""
                + op
                + "\",\"key\":\""
                + key
                + "\",\"arg\":\""
                + arg
                + "\",\"out\":"
                + (out == null || unknown ? "null" : "\"" + out + "\"")
                + ",\"call\":"
                + call
                + ",\"ret\":"
                + ret
                + (unknown ? ",\"unknown\":true" : "")
                + "}");
      }
    } finally {
      connections.values().forEach(Jedis::close);
    }
  }

  /**
   * Whether a failure says the command was not run: the connection could not be made (nothing was
   * sent), or the node answered TRYAGAIN or CLUSTERDOWN, which Cellar answers only for a command it
   * did not append.
   */
  private static boolean notRun(RuntimeException failed) {
    String message = String.valueOf(failed.getMessage());
    return (failed instanceof JedisConnectionException && message.startsWith("Failed to connect"))
        || (failed instanceof JedisDataException
            && !(failed instanceof JedisConnectionException)
            && (message.startsWith("TRYAGAIN") || message.startsWith("CLUSTERDOWN")));
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long wait = nanoTime - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  /** Go, from the path or where its installer puts it (scripts/install-test-tools.sh). */
  private static String goCommand() throws IOException {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(dir, "go"))) {
        return Path.of(dir, "go").toString();
      }
    }
    Path installed = Path.of("/usr/local/go/bin/go");
    if (Files.isExecutable(installed)) {
      return installed.toString();
    }
    Path debian = Path.of("/usr/lib/go/bin/go");
    if (Files.isExecutable(debian)) {
      return debian.toString();
    }
    throw new IOException("Go is not installed: scripts/install-test-tools.sh installs it");
  }
}
