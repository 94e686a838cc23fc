package dev.cellar.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.StoreIOException;
import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a failed fsync the engine refuses writes until reopened: health, info, metrics and writes
 * say so.
 */
class WriteFailureTest {
  @TempDir Path dir;

  @Test
  void aFailedFsyncShowsEverywhere() {
    AtomicBoolean fail = new AtomicBoolean();
    Cellar store =
        Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.NO).fileIO(failingFsync(fail)));
    try (RouterFixture http = new RouterFixture(store, new ServerConfig())) {
      assertEquals(204, http.put("/v1/kv/a", "1").status());
      fail.set(true);
      assertThrows(StoreIOException.class, store::sync);

      HttpReply health = http.call("GET", "/healthz");
      assertEquals(503, health.status());
      assertTrue(
          health
              .bodyText()
              .startsWith("{\"status\":\"writes_disabled\",\"message\":\"writes are disabled"),
          health.bodyText());
      HttpReply put = http.put("/v1/kv/b", "2");
      assertEquals(503, put.status(), put.bodyText());
      assertTrue(put.bodyText().contains("\"error\":\"unavailable\""), put.bodyText());
      assertArrayEquals("1".getBytes(UTF_8), http.call("GET", "/v1/kv/a").body(), "reads go on");
      assertFalse(http.call("GET", "/v1/info").bodyText().contains("\"write_failure\":null"));
      assertTrue(http.call("GET", "/metrics").bodyText().contains("cellar_write_failure 1.0"));
    }
  }

  /** The platform's file I/O, except that fsync fails while {@code fail} is set. */
  private static FileIO failingFsync(AtomicBoolean fail) {
    FileIO real = FileIO.platform();
    return (FileIO)
        Proxy.newProxyInstance(
            FileIO.class.getClassLoader(),
            new Class<?>[] {FileIO.class},
            (proxy, method, args) -> {
              Object result = forward(real, method, args);
              return result instanceof StoreFile file ? failingForce(file, fail) : result;
            });
  }

  private static StoreFile failingForce(StoreFile file, AtomicBoolean fail) {
    return (StoreFile)
        Proxy.newProxyInstance(
            StoreFile.class.getClassLoader(),
            new Class<?>[] {StoreFile.class},
            (proxy, method, args) -> {
              if (method.getName().equals("force") && fail.get()) {
                throw new IOException("Input/output error (injected)");
              }
              return forward(file, method, args);
            });
  }

  private static Object forward(Object target, java.lang.reflect.Method method, Object[] args)
      throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
