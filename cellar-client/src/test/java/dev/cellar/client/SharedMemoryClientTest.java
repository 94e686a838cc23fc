package dev.cellar.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client over shared memory with a real server in this JVM: how the transport is chosen, the
 * handshake with a password, replies larger than a ring, pipelines that fill small rings both ways,
 * and the asynchronous API's writer and reader on one pair of rings.
 */
class SharedMemoryClientTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void onTheServersHostAutoTakesSharedMemoryAndTheServerSeesIt() {
    try (TestServer server = TestServer.start(dir);
        CellarClient client = CellarClient.connect(server.uri());
        CellarClient tcp =
            CellarClient.connect(
                server.uri(), ClientOptions.defaults().withTransport(ClientTransport.TCP))) {
      assertTrue(client.transport().startsWith("shm:"), client.transport());
      assertTrue(tcp.transport().startsWith("tcp://"), tcp.transport());
      client.set(b("k"), b("v"));
      assertEquals("v", new String(tcp.get(b("k")), UTF_8));
      Reply list = tcp.command("CLIENT", "LIST".getBytes(UTF_8));
      String text = list instanceof Reply.Verbatim v ? v.text() : String.valueOf(list);
      assertTrue(text.contains("addr=shm:" + ProcessHandle.current().pid()), text);
    }
  }

  @Test
  void withoutSharedMemoryOnTheServerAutoFallsBackAndRequiredFails() {
    try (TestServer server = TestServer.start(dir, "ipc", "no");
        CellarClient client = CellarClient.connect(server.uri())) {
      assertTrue(client.transport().startsWith("tcp://"), client.transport());
      client.set(b("k"), b("v"));
      CellarConnectionException e =
          assertThrows(
              CellarConnectionException.class,
              () ->
                  CellarClient.connect(
                      server.uri(),
                      ClientOptions.defaults().withTransport(ClientTransport.SHARED_MEMORY)));
      assertTrue(e.getMessage().contains("shared memory is off"), e.getMessage());
    }
  }

  @Test
  void aPasswordIsCheckedOverTheRingsAsOverTcp() {
    try (TestServer server = TestServer.start(dir, "requirepass", "s3cret")) {
      ClientOptions shm = ClientOptions.defaults().withTransport(ClientTransport.SHARED_MEMORY);
      try (CellarClient client =
          CellarClient.connect(server.uri(), shm.withCredentials(null, "s3cret"))) {
        assertTrue(client.transport().startsWith("shm:"));
        client.set(b("k"), b("v"));
        assertEquals("v", new String(client.get(b("k")), UTF_8));
      }
      assertThrows(
          CellarServerException.class,
          () -> CellarClient.connect(server.uri(), shm.withCredentials(null, "wrong")));
    }
  }

  @Test
  void valuesLargerThanARingGoInParts() {
    try (TestServer server = TestServer.start(dir);
        CellarClient client =
            CellarClient.connect(
                server.uri(),
                ClientOptions.defaults()
                    .withTransport(ClientTransport.SHARED_MEMORY)
                    .withRingBytes(64 * 1024))) {
      byte[] big = new byte[3 << 20];
      new java.util.Random(1).nextBytes(big);
      client.set(b("big"), big);
      assertArrayEquals(big, client.get(b("big")));
    }
  }

  @Test
  void aPipelineThatFillsSmallRingsBothWaysIsAnsweredInFull() {
    try (TestServer server = TestServer.start(dir);
        CellarClient client =
            CellarClient.connect(
                server.uri(),
                ClientOptions.defaults()
                    .withTransport(ClientTransport.SHARED_MEMORY)
                    .withRingBytes(4096));
        Pipeline p = client.pipeline()) {
      int n = 50_000;
      List<Pipeline.Result<Void>> sets = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        sets.add(p.set(b("key:" + i), b("value-" + i)));
      }
      Pipeline.Result<Reply> size = p.command("DBSIZE");
      p.sync();
      for (Pipeline.Result<Void> r : sets) {
        r.get();
      }
      assertEquals(new Reply.Int(n), size.get());
      assertEquals("value-49999", new String(client.get(b("key:49999")), UTF_8));
    }
  }

  @Test
  void manyAsynchronousCommandsInFlightOverOnePairOfRings() throws Exception {
    try (TestServer server = TestServer.start(dir);
        CellarClient client =
            CellarClient.connect(
                server.uri(),
                ClientOptions.defaults()
                    .withTransport(ClientTransport.SHARED_MEMORY)
                    .withRingBytes(8192))) {
      int n = 20_000;
      List<CompletableFuture<Long>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        futures.add(client.async().incr(b("counter")));
      }
      long sum = 0;
      for (CompletableFuture<Long> f : futures) {
        sum += f.get();
      }
      assertEquals((long) n * (n + 1) / 2, sum, "every increment answered once, in order");
    }
  }

  @Test
  void valuesAreReadInPlaceFromTheResponseRing() {
    try (TestServer server = TestServer.start(dir);
        CellarClient shm =
            CellarClient.connect(
                server.uri(),
                ClientOptions.defaults()
                    .withTransport(ClientTransport.SHARED_MEMORY)
                    .withRingBytes(64 * 1024));
        CellarClient tcp =
            CellarClient.connect(
                server.uri(), ClientOptions.defaults().withTransport(ClientTransport.TCP))) {
      shm.set(b("k"), b("value"));
      // Over shared memory the view is the ring's mapped memory; over TCP the receive buffer.
      assertEquals("native value", shm.read(b("k"), SharedMemoryClientTest::describe));
      assertEquals("heap value", tcp.read(b("k"), SharedMemoryClientTest::describe));
      assertNull(shm.read(b("absent"), v -> fail("not called for an absent key")));

      byte[] big = new byte[200_000]; // over the ring: arrives in parts, copied once
      new java.util.Random(2).nextBytes(big);
      shm.set(b("big"), big);
      assertArrayEquals(
          big, shm.read(b("big"), v -> v.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));

      List<Pipeline.Result<String>> results = new ArrayList<>();
      try (Pipeline p = shm.pipeline()) {
        for (int i = 0; i < 500; i++) {
          p.set(b("p" + i), b("v" + i));
        }
        for (int i = 0; i < 500; i++) {
          results.add(p.read(b("p" + i), SharedMemoryClientTest::describe));
        }
      }
      for (int i = 0; i < 500; i++) {
        assertEquals("native v" + i, results.get(i).get());
      }

      // A reader that throws fails its own call; the connection goes on.
      assertThrows(
          IllegalStateException.class,
          () ->
              shm.read(
                  b("k"),
                  v -> {
                    throw new IllegalStateException("the caller's own failure");
                  }));
      assertEquals("value", new String(shm.get(b("k")), UTF_8));
    }
  }

  private static String describe(java.lang.foreign.MemorySegment view) {
    assertTrue(view.isReadOnly(), "views are read-only");
    return (view.isNative() ? "native " : "heap ")
        + new String(view.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), UTF_8);
  }
}
