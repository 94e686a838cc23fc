package dev.cellar.cli.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.backup.testing.S3ProxyServer;
import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.CommandRun;
import dev.cellar.cli.tool.ToolEnvironment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code BGSAVE} on a running server with a {@code backup-target}: the backup is made while clients
 * keep writing, {@code LASTSAVE} and {@code INFO} say when it ended, {@code cellar tool restore}
 * brings it back as a store holding everything written before the BGSAVE, and the snapshot it was
 * made from is gone from the data directory.
 */
class BgsaveBackupTest {
  @TempDir Path tmp;

  @AfterEach
  void resetEnvironment() {
    ToolEnvironment.set(null);
  }

  @Test
  void backsUpARunningServerAndTheBackupRestores() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(Files.createDirectories(tmp.resolve("s3")))) {
      Map<String, String> aws =
          Map.of(
              "AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS,
              "AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET,
              "AWS_ENDPOINT_URL", s3.endpoint().toString());
      Path data = tmp.resolve("data");
      try (ServerProcess server =
          ServerProcess.run(
              tmp,
              aws,
              List.of(),
              "--port",
              "0",
              "--http-port",
              "0",
              "--dir",
              data.toString(),
              "--segment-size",
              "256kb",
              "--backup-target",
              "s3://backups/srv")) {
        int port = server.awaitPort();
        for (int i = 0; i < 3000; i++) {
          ServerProcess.command(port, "SET", "k" + i, "value-" + i + "-" + "y".repeat(100));
        }
        // Clients cannot point backups elsewhere: the target is set at start-up only.
        assertTrue(
            ServerProcess.command(port, "CONFIG", "SET", "backup-target", "s3://other/x")
                .startsWith("-ERR"));
        long before = lastSave(port);
        Thread.sleep(1100);
        assertEquals("+Background saving started", ServerProcess.command(port, "BGSAVE"));
        for (int i = 3000; i < 3200; i++) { // writes go on while it runs
          ServerProcess.command(port, "SET", "k" + i, "later");
        }
        awaitSaved(port, before);
        String info = info(port);
        assertTrue(info.contains("rdb_last_bgsave_status:ok"), info);
        assertTrue(info.contains("cellar_last_backup:srv/manifests/"), info);
        assertFalse(
            Files.exists(data.resolve("bgsave.snapshot")), "the snapshot directory is left");
        assertEquals(CellarCommand.EXIT_OK, server.signal("TERM"), server::toString);
      }

      ToolEnvironment.set(aws);
      Path restored = tmp.resolve("restored");
      CommandRun restore =
          CommandRun.of("tool", "restore", "s3://backups/srv", restored.toString());
      assertEquals(CellarCommand.EXIT_OK, restore.exitCode(), restore.toString());
      try (Cellar store =
          Cellar.open(
              restored,
              CellarOptions.defaults().segmentBytes(256 << 10).maxValueBytes(128 << 10))) {
        for (int i = 0; i < 3000; i++) {
          assertArrayEquals(
              ("value-" + i + "-" + "y".repeat(100)).getBytes(StandardCharsets.UTF_8),
              store.get(("k" + i).getBytes(StandardCharsets.UTF_8)),
              "k" + i);
        }
      }
    }
  }

  /**
   * A server killed with SIGKILL in the middle of a BGSAVE backup: it restarts with everything it
   * had, the next BGSAVE clears what the killed one left (its snapshot directory; in the bucket,
   * the parts of an upload it resumes) and succeeds, and that backup restores.
   */
  @Test
  void aServerKilledDuringABackupRestartsAndBacksUpAgain() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(Files.createDirectories(tmp.resolve("s3")))) {
      Map<String, String> aws =
          Map.of(
              "AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS,
              "AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET,
              "AWS_ENDPOINT_URL", s3.endpoint().toString());
      Path data = tmp.resolve("data");
      String[] args = {
        "--port",
        "0",
        "--http-port",
        "0",
        "--dir",
        data.toString(),
        "--backup-target",
        "s3://backups/killed"
      };
      String big = "z".repeat(16 << 10);
      try (ServerProcess server = ServerProcess.run(tmp, aws, List.of(), args)) {
        int port = server.awaitPort();
        for (int i = 0; i < 1500; i++) {
          ServerProcess.command(port, "SET", "big" + i, i + big);
        }
        assertEquals("+Background saving started", ServerProcess.command(port, "BGSAVE"));
        Thread.sleep(150);
        server.signal("KILL");
      }
      try (ServerProcess server = ServerProcess.run(tmp, aws, List.of(), args)) {
        int port = server.awaitPort();
        assertFalse(
            Files.exists(data.resolve("bgsave.snapshot")), "a killed BGSAVE's snapshot is left");
        assertEquals("$" + (("7" + big).length()), ServerProcess.command(port, "GET", "big7"));
        long before = lastSave(port);
        Thread.sleep(1100);
        assertEquals("+Background saving started", ServerProcess.command(port, "BGSAVE"));
        awaitSaved(port, before);
        assertFalse(Files.exists(data.resolve("bgsave.snapshot")));
        assertEquals(CellarCommand.EXIT_OK, server.signal("TERM"), server::toString);
      }
      ToolEnvironment.set(aws);
      Path restored = tmp.resolve("restored");
      CommandRun restore =
          CommandRun.of("tool", "restore", "s3://backups/killed", restored.toString());
      assertEquals(CellarCommand.EXIT_OK, restore.exitCode(), restore.toString());
      try (Cellar store = Cellar.open(restored)) {
        assertEquals(1500, store.size());
        for (int i = 0; i < 1500; i += 7) {
          assertArrayEquals(
              (i + big).getBytes(StandardCharsets.UTF_8),
              store.get(("big" + i).getBytes(StandardCharsets.UTF_8)));
        }
      }
    }
  }

  /** {@code INFO persistence}: a bulk reply, read whole. */
  private static String info(int port) throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write("*2\r\n$4\r\nINFO\r\n$11\r\npersistence\r\n".getBytes(StandardCharsets.US_ASCII));
      java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
      StringBuilder header = new StringBuilder();
      for (int c; (c = in.read()) != '\n'; ) {
        header.append((char) c);
      }
      byte[] body = new byte[Integer.parseInt(header.toString().strip().substring(1))];
      in.readFully(body);
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private static long lastSave(int port) throws Exception {
    return Long.parseLong(ServerProcess.command(port, "LASTSAVE").substring(1));
  }

  /** Waits until LASTSAVE moves past {@code after} (or BGSAVE fails). */
  private static void awaitSaved(int port, long after) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline) {
      long last = Long.parseLong(ServerProcess.command(port, "LASTSAVE").substring(1));
      if (last > after) {
        return;
      }
      String info = info(port);
      assertFalse(info.contains("rdb_last_bgsave_status:err"), info);
      Thread.sleep(100);
    }
    throw new AssertionError("BGSAVE did not end within 60 s: " + info(port));
  }
}
