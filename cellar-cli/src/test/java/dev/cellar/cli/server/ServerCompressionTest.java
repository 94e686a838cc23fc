package dev.cellar.cli.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Compression;
import dev.cellar.cli.CellarCommand;
import dev.cellar.inspect.SegmentFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server with {@code --compression}: what clients write ends up in compressed segments once
 * compaction has reached it, INFO says so, a restart with compression off still serves it, and a
 * codec it does not know stops the start with a reason.
 */
class ServerCompressionTest {
  @TempDir Path tmp;

  private static String document(int i) {
    StringBuilder b = new StringBuilder("{\"id\":" + i + ",\"user\":\"user" + (i * 7919 % 1000));
    b.append("@example.com\",\"events\":[");
    for (int e = 0; e < 12; e++) {
      b.append("{\"type\":\"click\",\"at\":").append(1_700_000_000L + i * 13L + e).append("},");
    }
    return b.append("{}]}").toString();
  }

  @Test
  void compactionCompressesWhatClientsWrote() throws Exception {
    Path data = tmp.resolve("data");
    String[] args = {
      "--port",
      "0",
      "--http-port",
      "0",
      "--dir",
      data.toString(),
      "--segment-size",
      "256kb",
      "--compression",
      "zstd"
    };
    Map<String, String> written = new HashMap<>();
    try (ServerProcess server = ServerProcess.run(tmp, args)) {
      int port = server.awaitPort();
      for (int batch = 0; batch < 40; batch++) {
        List<String> mset = new ArrayList<>(List.of("MSET"));
        for (int i = batch * 100; i < (batch + 1) * 100; i++) {
          mset.add("doc:" + i);
          mset.add(document(i));
          written.put("doc:" + i, document(i));
        }
        assertEquals("+OK", ServerProcess.command(port, mset.toArray(String[]::new)));
      }
      String info = infoLine(port, "cellar_compression");
      assertEquals("cellar_compression:zstd", info);
      // Each BGREWRITEAOF runs a compaction pass, a few segments' worth; the idle compactor
      // does the same when the server has nothing else to do.
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (compressedSegments(data) < 3 && System.nanoTime() < deadline) {
        ServerProcess.command(port, "BGREWRITEAOF");
        Thread.sleep(200);
      }
      assertTrue(compressedSegments(data) >= 3, "compressed segments: " + compressedSegments(data));
      assertEquals(CellarCommand.EXIT_OK, server.signal("TERM"), server::toString);
    }
    // Embedded, with compression off: every value as the clients wrote it.
    CellarOptions embedded =
        CellarOptions.defaults().segmentBytes(256 << 10).maxKeyBytes(1024).maxValueBytes(64 << 10);
    try (Cellar db = Cellar.open(data, embedded)) {
      for (Map.Entry<String, String> e : written.entrySet()) {
        assertArrayEquals(
            e.getValue().getBytes(StandardCharsets.UTF_8),
            db.get(e.getKey().getBytes(StandardCharsets.UTF_8)),
            e.getKey());
      }
    }
    try (ServerProcess server =
        ServerProcess.run(
            tmp,
            "--port",
            "0",
            "--http-port",
            "0",
            "--dir",
            data.toString(),
            "--segment-size",
            "256kb")) {
      int port = server.awaitPort();
      assertEquals("cellar_compression:none", infoLine(port, "cellar_compression"));
      assertEquals("$" + document(1234).length(), ServerProcess.command(port, "GET", "doc:1234"));
      assertEquals(CellarCommand.EXIT_OK, server.signal("TERM"), server::toString);
    }
  }

  @Test
  void anUnknownCodecStopsTheStart() throws Exception {
    try (ServerProcess server =
        ServerProcess.run(
            tmp, "--port", "0", "--dir", tmp.resolve("d").toString(), "--compression", "gzip")) {
      int exit = server.awaitExit();
      assertNotEquals(CellarCommand.EXIT_OK, exit, server::toString);
      String said = server.stdout() + server.stderr();
      assertTrue(said.contains("expected none, lz4 or zstd"), said);
    }
  }

  @Test
  void theCodecComesFromTheFlagOrTheConfigFile() throws Exception {
    assertEquals(
        Compression.NONE, ServerCommand.settings(null, new HashMap<>()).config().compression());
    Path config = Files.writeString(tmp.resolve("cellar.conf"), "compression lz4\n");
    assertEquals(
        Compression.LZ4, ServerCommand.settings(config, new HashMap<>()).config().compression());
    Map<String, String> flag = new HashMap<>();
    flag.put("compression", "zstd");
    assertEquals(Compression.ZSTD, ServerCommand.settings(config, flag).config().compression());
  }

  /** The INFO line that starts with {@code field}, read over a connection of its own. */
  static String infoLine(int port, String field) throws IOException {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write("*1\r\n$4\r\nINFO\r\n".getBytes(StandardCharsets.UTF_8));
      java.io.BufferedReader in =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      int length = Integer.parseInt(in.readLine().substring(1));
      char[] body = new char[length];
      int read = 0;
      while (read < length) {
        int n = in.read(body, read, length - read);
        if (n < 0) {
          break;
        }
        read += n;
      }
      for (String line : new String(body, 0, read).split("\r\n")) {
        if (line.startsWith(field + ":")) {
          return line;
        }
      }
      return null;
    }
  }

  private static long compressedSegments(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      long n = 0;
      for (Path f : (Iterable<Path>) files::iterator) {
        if (SegmentFile.idOf(f.getFileName().toString()) >= 0) {
          try (SegmentFile s = SegmentFile.open(f)) {
            if (s.compression() == Compression.ZSTD) {
              n++;
            }
          }
        }
      }
      return n;
    }
  }
}
