package dev.cellar.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.bench.crash.ServerLaunch;
import dev.cellar.bench.server.ChildProcesses;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak's short form with hostile clients, as CI runs it: 45 seconds of the mixed load beside
 * every hostile pattern, against the server started with the launcher's java command line (its 1
 * GiB heap, so maxmemory-clients is 256 MiB) from this test's class path. Too short to judge memory
 * flatness (that needs the long form, {@code ./cellar bench soak}), it checks everything else of
 * the verdict, and that each pattern really ran and met its defence: the stalled MSETs were
 * evicted, slowloris connections closed by the server, the trickled MSET answered, requests before
 * AUTH refused; and that the server's connections came back to the well-behaved ones.
 */
class SoakHostileTest {
  @TempDir Path dir;

  @Test
  void fortyFiveSecondsOfLoadBesideEveryHostilePatternServesTheLoadAndLeavesNoConnectionBehind()
      throws Exception {
    SoakSettings settings =
        new SoakSettings(0.75, 4, 2_000, 5, 20, 30, "everysec", List.of(), true);
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    ServerLaunch launch =
        ServerLaunch.java(
            Path.of(System.getProperty("java.home"), "bin", "java"),
            System.getProperty("java.class.path"));
    List<String> serverCommand = launch.prefix();
    SoakResult r =
        new SoakRun(
                settings,
                FullCollection.ofThisJdk(),
                new PrintStream(progress, true, StandardCharsets.UTF_8))
            .run(serverCommand, dir, freePort(), new ChildProcesses());
    String json = SoakReport.json(Map.of(), settings.describe(), r);
    String context =
        progress.toString(StandardCharsets.UTF_8) + "\n" + SoakReport.markdown("short form", r);
    System.out.println(context);

    assertTrue(r.operations() > 1_000, context);
    assertEquals(0, r.errors(), context);
    assertEquals(0, r.stalls(), context);
    assertEquals(0, r.outOfMemoryLines(), context);
    assertEquals(null, r.serverExit(), context);
    assertEquals(6, r.hostile().size(), context);
    for (PatternCounters p : r.hostile()) {
      assertTrue(p.attempts().sum() > 0, p.id() + " never ran; " + context);
      assertEquals(0, p.errors().sum(), p.id() + "; " + context);
    }
    Map<String, PatternCounters> byId = new java.util.HashMap<>();
    r.hostile().forEach(p -> byId.put(p.id(), p));
    assertTrue(byId.get("resp_reset_mid_request").attempts().sum() >= 100, context);
    assertTrue(byId.get("http_reset_mid_request").attempts().sum() >= 100, context);
    assertTrue(
        byId.get("stalled_large_mset").disconnects().sum() > 0,
        "no stalled MSET was cut off; " + context);
    assertTrue(
        byId.get("trickled_mset").completed().sum() > 0,
        "the trickled MSET was never answered; " + context);
    assertTrue(
        byId.get("http_slowloris").disconnects().sum() >= Slowloris.CONNECTIONS,
        "slowloris was not closed at the header timeout; " + context);
    assertTrue(byId.get("unauthenticated_oversized").disconnects().sum() > 0, context);
    ConnectionsAfter c = r.connections();
    assertNotNull(c, context);
    assertTrue(c.evictedClients() > 0, "maxmemory-clients evicted no one; " + context);
    assertTrue(c.returned(), c.describe() + "; " + context);
    assertEquals(settings.clients() + 1, c.expectedResp());
    assertTrue(r.hostileDefended() && r.servedAndDefended(), context);
    assertTrue(json.contains("\"pattern\": \"http_slowloris\""), json);
    assertTrue(json.contains("\"served_and_defended\": true"), json);
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
