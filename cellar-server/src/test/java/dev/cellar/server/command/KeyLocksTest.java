package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Key locks: serial (locking nothing) only when one thread runs every command, and with either
 * kind, read-modify-write commands from many connections at once lose no update.
 */
class KeyLocksTest {
  @TempDir Path dir;

  @Test
  void locksAreElidedOnlyWhenOneEventLoopRunsEveryCommand() {
    assertTrue(KeyLocks.forServer(config("1", "0").set("ipc", "no")).serial());
    assertFalse(
        KeyLocks.forServer(config("1", "0")).serial(),
        "the shared-memory agent runs commands on its own thread");
    assertFalse(KeyLocks.forServer(config("2", "0").set("ipc", "no")).serial(), "two event loops");
    assertFalse(
        KeyLocks.forServer(config("1", "6380").set("ipc", "no")).serial(),
        "HTTP writes on its own threads");
    assertFalse(
        KeyLocks.forServer(config("1", "0").set("ipc", "no").set("https-port", "6443")).serial(),
        "so does HTTPS");
  }

  @Test
  void serialLocksNeverBlockAndSharedOnesDo() throws Exception {
    KeyLocks serial = new KeyLocks(true);
    KeyLocks shared = new KeyLocks(false);
    serial.lock(7);
    shared.lock(7);
    assertTrue(lockedElsewhereWithin(serial, 7, 5_000), "a serial lock must not block");
    assertFalse(lockedElsewhereWithin(shared, 7, 200), "a held stripe must block another thread");
    shared.unlock(7);
    assertTrue(lockedElsewhereWithin(shared, 7, 5_000));
  }

  /**
   * Four connections each INCR one key 3,000 times, pipelined 100 at a time so their commands
   * interleave. With two event loops the stripe lock is what keeps each INCR's read and write
   * together (without it, updates are lost); with one, the loop itself does.
   */
  @ParameterizedTest
  @ValueSource(strings = {"1", "2"})
  void concurrentIncrementsLoseNoUpdate(String ioThreads) throws Exception {
    int clients = 4;
    int perClient = 3_000;
    int batch = 100;
    try (CellarServer server =
        CellarServer.start(
            new ServerConfig()
                .set("port", "0")
                .set("http-port", "0")
                .set("dir", dir.toString())
                .set("io-threads", ioThreads))) {
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> threads = new ArrayList<>();
      List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int c = 0; c < clients; c++) {
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try (Socket socket = new Socket("127.0.0.1", server.port())) {
                        OutputStream out = socket.getOutputStream();
                        InputStream in = new BufferedInputStream(socket.getInputStream());
                        byte[] request =
                            "*2\r\n$4\r\nINCR\r\n$7\r\ncounter\r\n"
                                .repeat(batch)
                                .getBytes(StandardCharsets.US_ASCII);
                        start.await();
                        for (int sent = 0; sent < perClient; sent += batch) {
                          out.write(request);
                          out.flush();
                          for (int i = 0; i < batch; i++) {
                            String line = readLine(in);
                            if (!line.startsWith(":")) {
                              throw new AssertionError("INCR answered " + line);
                            }
                          }
                        }
                      } catch (Throwable t) {
                        failures.add(t);
                      }
                    }));
      }
      start.countDown();
      for (Thread t : threads) {
        t.join(TimeUnit.MINUTES.toMillis(2));
      }
      assertTrue(failures.isEmpty(), failures.toString());
      try (Socket socket = new Socket("127.0.0.1", server.port())) {
        socket
            .getOutputStream()
            .write("*2\r\n$3\r\nGET\r\n$7\r\ncounter\r\n".getBytes(StandardCharsets.US_ASCII));
        InputStream in = new BufferedInputStream(socket.getInputStream());
        readLine(in); // $<length>
        assertEquals(Integer.toString(clients * perClient), readLine(in));
      }
    }
  }

  private static ServerConfig config(String ioThreads, String httpPort) {
    return new ServerConfig().set("io-threads", ioThreads).set("http-port", httpPort);
  }

  private static boolean lockedElsewhereWithin(KeyLocks locks, int stripe, long millis)
      throws InterruptedException {
    boolean[] locked = {false};
    Thread other =
        Thread.ofPlatform()
            .start(
                () -> {
                  locks.lock(stripe);
                  locked[0] = true;
                  locks.unlock(stripe);
                });
    other.join(millis);
    // A thread still blocked stays so until the stripe is unlocked, then finishes on its own.
    return !other.isAlive() && locked[0];
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b; (b = in.read()) != '\n'; ) {
      if (b < 0) {
        throw new IOException("connection closed after " + line);
      }
      if (b != '\r') {
        line.append((char) b);
      }
    }
    return line.toString();
  }
}
