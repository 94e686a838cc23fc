package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.CellarOptions;
import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.testsupport.FsyncFaults;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed fsync seen from RESP clients, end to end over a real server whose file I/O fails fsync
 * on demand: no write the fsync covered is acknowledged, later writes are refused with an error
 * that says what to do, reads go on, {@code INFO}, {@code /metrics} and {@code /healthz} report it,
 * and a restart (real file I/O, same directory) serves every acknowledged write.
 */
class FsyncFailureTest {
  private static final String FSYNC_FAILED =
      "-ERR fsync failed (Input/output error (injected fsync failure)): this command's reply is withheld";
  private static final String WRITES_DISABLED = "-ERR writes are disabled since an fsync failed";

  @TempDir Path dir;

  /**
   * {@code appendfsync always}: the barrier's fsync fails while one connection's pipelined batch
   * (write, read, write) and another connection's write wait on it. Every one of those replies is
   * an error, one per command, and the connections stay usable.
   */
  @Test
  void underAlwaysNoWriteTheFailedFsyncCoveredIsAcknowledged() throws Exception {
    FsyncFaults faults = new FsyncFaults();
    CellarServer server = start("always", faults);
    try (RawClient a = new RawClient(server.port());
        RawClient b = new RawClient(server.port())) {
      assertEquals("+OK\r\n", a.send("SET", "kept", "1").readLine());
      faults.failHeld();
      a.send(
          concat(
              RawClient.command("SET", "lost1", "x"),
              RawClient.command("GET", "kept"),
              RawClient.command("SET", "lost2", "y")));
      faults.awaitHeld();
      b.send("SET", "queued", "z");
      while (server.store().stats().puts() < 4) {
        Thread.sleep(1); // until b's write is appended, behind the fsync that will fail
      }
      faults.release();
      for (int i = 0; i < 3; i++) {
        String reply = a.readLine();
        assertTrue(reply.startsWith(FSYNC_FAILED), "reply " + i + " of the batch: " + reply);
      }
      String queued = b.readLine();
      assertTrue(queued.startsWith(FSYNC_FAILED), queued);

      faults.heal(); // fsync would work now; the server must not believe it
      String refused = a.send("SET", "later", "w").readLine();
      assertTrue(
          refused.startsWith(WRITES_DISABLED) && refused.contains("restart the server"), refused);
      assertEquals("$1\r\n1\r\n", a.send("GET", "kept").read(7), "reads go on");
      String info = b.info("persistence");
      assertTrue(info.contains("aof_last_write_status:err\r\n"), info);
      assertTrue(
          info.contains("cellar_write_failure:fsync of")
              || info.contains("cellar_write_failure:Input/output error"),
          info);
      assertTrue(http(server, "/metrics").body().contains("\ncellar_write_failure 1.0\n"));
      assertTrue(
          http(server, "/metrics").body().contains("\ncellar_unacknowledged_replies_total 4.0\n"));
      assertEquals(503, http(server, "/healthz").statusCode());
    } finally {
      server.close();
    }
    assertRestartServes(List.of("kept", "1"), List.of("lost1", "x", "lost2", "y", "queued", "z"));
  }

  /** {@code appendfsync everysec}: the flusher's fsync fails; writes are refused from then on. */
  @Test
  void underEverysecTheFlushersFailureDisablesWrites() throws Exception {
    FsyncFaults faults = new FsyncFaults();
    CellarServer server = start("everysec", faults);
    try (RawClient c = new RawClient(server.port())) {
      assertEquals("+OK\r\n", c.send("SET", "synced", "1").readLine());
      while (!c.info("persistence").contains("cellar_fsyncs:1\r\n")) {
        Thread.sleep(50); // the flusher has made "synced" durable
      }
      faults.failFromNow();
      // Acknowledged from the page cache, as everysec promises; the flusher's next fsync fails.
      assertEquals("+OK\r\n", c.send("SET", "cached", "2").readLine());
      String info = c.info("persistence");
      while (!info.contains("aof_last_write_status:err\r\n")) {
        Thread.sleep(50);
        info = c.info("persistence");
      }
      assertTrue(
          info.contains("cellar_write_failure:Input/output error (injected fsync failure)\r\n"),
          info);
      String refused = c.send("SET", "later", "3").readLine();
      assertTrue(
          refused.startsWith(WRITES_DISABLED) && refused.contains("restart the server"), refused);
      assertEquals("$1\r\n2\r\n", c.send("GET", "cached").read(7), "reads go on");
      HttpResponse<String> health = http(server, "/healthz");
      assertEquals(503, health.statusCode());
      assertTrue(health.body().contains("\"status\":\"writes_disabled\""), health.body());
    } finally {
      server.close();
    }
    // The process did not crash, so what the failed fsync covered is still in the page cache.
    assertRestartServes(List.of("synced", "1", "cached", "2"), List.of("later", "3"));
  }

  private CellarServer start(String fsync, FsyncFaults faults) throws IOException {
    return CellarServer.start(config(fsync), CellarOptions.defaults().fileIO(faults.io()));
  }

  private ServerConfig config(String fsync) throws IOException {
    return new ServerConfig()
        .set("port", "0")
        .set("http-port", Integer.toString(freePort()))
        .set("dir", dir.resolve("data").toString())
        .set("appendfsync", fsync);
  }

  /** Restarts on the same directory with the real file I/O: {@code present} pairs must be there. */
  private void assertRestartServes(List<String> present, List<String> eitherWay)
      throws IOException {
    try (CellarServer again = CellarServer.start(config("always"));
        RawClient c = new RawClient(again.port())) {
      for (int i = 0; i < present.size(); i += 2) {
        String value = present.get(i + 1);
        String expected = "$" + value.length() + "\r\n" + value + "\r\n";
        assertEquals(
            expected,
            c.send("GET", present.get(i)).read(expected.length()),
            present.get(i) + " after restart");
      }
      for (int i = 0; i < eitherWay.size(); i += 2) {
        // Not acknowledged: it may or may not have reached the disk, but it is never anything else.
        String value = eitherWay.get(i + 1);
        String reply = c.send("GET", eitherWay.get(i)).readLine();
        if (!reply.equals("$-1\r\n")) {
          assertEquals("$" + value.length() + "\r\n", reply, eitherWay.get(i));
          assertEquals(value + "\r\n", c.readLine());
        }
      }
      assertEquals(
          "+OK\r\n",
          c.send("SET", "after", "restart").readLine(),
          "writes work again after a restart");
    }
  }

  private static HttpResponse<String> http(CellarServer server, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      all.writeBytes(p);
    }
    return all.toByteArray();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
