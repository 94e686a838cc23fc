package dev.cellar.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server in a JVM of its own, started with the launcher's options ({@code ./cellar server}): it
 * prints no JVM warning (no Unsafe, no restricted-method or agent warnings) while serving RESP and
 * HTTP, and SIGTERM makes it save and exit cleanly so a restart serves the data.
 */
class ServerJvmTest {
  @TempDir Path dir;

  /** The launcher's options for the server (see the {@code cellar} script). */
  static final List<String> LAUNCHER_OPTIONS =
      List.of(
          "--enable-native-access=ALL-UNNAMED",
          "-XX:+UseSerialGC",
          "-Xms8m",
          "-Xmx1g",
          "-XX:-ShrinkHeapInSteps",
          "-Xss512k",
          "-XX:TrimNativeHeapInterval=60000",
          "-Dio.netty.jfr.enabled=false",
          "-Dio.netty.leakDetection.level=disabled");

  @Test
  void startsWithoutWarningsServesAndSavesOnSigterm() throws Exception {
    int httpPort;
    try (ServerSocket s = new ServerSocket(0)) {
      httpPort = s.getLocalPort();
    }
    Path stderr = dir.resolve("stderr.txt");
    Process p = start(httpPort, stderr);
    int port = awaitPort(p);
    try (RawClient c = new RawClient(port)) {
      assertEquals("+OK\r\n", c.send("SET", "survives", "sigterm").readLine());
    }
    HttpResponse<String> health =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/healthz"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, health.statusCode());
    p.destroy(); // SIGTERM
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "server did not exit on SIGTERM");
    String errors = Files.readString(stderr);
    assertFalse(errors.contains("WARNING"), errors);

    Process again = start(httpPort, dir.resolve("stderr2.txt"));
    try (RawClient c = new RawClient(awaitPort(again))) {
      assertEquals("$7\r\nsigterm\r\n", c.send("GET", "survives").read(13));
    } finally {
      again.destroy();
      again.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private Process start(int httpPort, Path stderr) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(LAUNCHER_OPTIONS);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ChildServerMain.class.getName());
    cmd.add(dir.resolve("data").toString());
    cmd.add(Integer.toString(httpPort));
    return new ProcessBuilder(cmd).redirectError(stderr.toFile()).start();
  }

  private static int awaitPort(Process p) throws IOException {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = out.readLine()) != null) {
      if (line.startsWith("PORT ")) {
        return Integer.parseInt(line.substring(5).trim());
      }
    }
    throw new IOException("server exited before listening (exit " + p.exitValue() + ")");
  }
}
