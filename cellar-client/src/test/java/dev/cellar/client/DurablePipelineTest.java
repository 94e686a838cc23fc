package dev.cellar.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pipelines under {@code appendfsync always}: every write whose reply the client got survives a
 * SIGKILL of the server and a restart.
 */
class DurablePipelineTest {
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(
      value = ClientTransport.class,
      names = {"TCP", "SHARED_MEMORY"})
  void everyAcknowledgedPipelinedWriteSurvivesSigkill(ClientTransport transport, @TempDir Path dir)
      throws Exception {
    try (ChildServer server = ChildServer.start(dir, "appendfsync", "always");
        CellarClient client =
            CellarClient.connect(
                server.uri(),
                ClientOptions.defaults()
                    .withTransport(transport)
                    .withReconnect(Duration.ZERO, Duration.ofMillis(10), Duration.ofMillis(10)))) {
      assertTrue(
          client.transport().startsWith(transport == ClientTransport.TCP ? "tcp:" : "shm:"),
          client.transport());
      List<Integer> acknowledged = new ArrayList<>();
      AtomicBoolean failed = new AtomicBoolean();
      Thread writer =
          Thread.ofPlatform()
              .start(
                  () -> {
                    int next = 0;
                    while (true) {
                      List<Pipeline.Result<Void>> batch = new ArrayList<>();
                      try (Pipeline p = client.pipeline()) {
                        for (int i = 0; i < 100; i++) {
                          batch.add(p.set(key(next + i), value(next + i)));
                        }
                        p.sync();
                      } catch (CellarConnectionException e) {
                        // Results read before the loss still count as acknowledged.
                        for (int i = 0; i < batch.size(); i++) {
                          try {
                            batch.get(i).get();
                            record(acknowledged, next + i);
                          } catch (CellarConnectionException lost) {
                            // unanswered: may or may not have been written
                          }
                        }
                        failed.set(true);
                        return;
                      }
                      for (int i = 0; i < batch.size(); i++) {
                        batch.get(i).get();
                        record(acknowledged, next + i);
                      }
                      next += batch.size();
                    }
                  });
      while (size(acknowledged) < 5_000) {
        Thread.sleep(5);
      }
      server.kill();
      writer.join();
      assertTrue(failed.get(), "the writer saw the connection fail");

      server.restart();
      List<Integer> written;
      synchronized (acknowledged) {
        written = new ArrayList<>(acknowledged);
      }
      for (int from = 0; from < written.size(); from += 500) {
        List<Integer> slice = written.subList(from, Math.min(written.size(), from + 500));
        byte[][] keys = slice.stream().map(DurablePipelineTest::key).toArray(byte[][]::new);
        List<byte[]> values = client.mget(keys);
        for (int i = 0; i < slice.size(); i++) {
          assertArrayEquals(value(slice.get(i)), values.get(i), "key " + slice.get(i));
        }
      }
    }
  }

  private static void record(List<Integer> acknowledged, int n) {
    synchronized (acknowledged) {
      acknowledged.add(n);
    }
  }

  private static int size(List<Integer> acknowledged) {
    synchronized (acknowledged) {
      return acknowledged.size();
    }
  }

  static byte[] key(int i) {
    return ("d:" + i).getBytes(UTF_8);
  }

  static byte[] value(int i) {
    return ("value-" + i + "-" + "x".repeat(i % 50)).getBytes(UTF_8);
  }
}
