package dev.cellar.crash;

import static org.junit.jupiter.api.Assertions.*;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.StoreLockedException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A store directory held by another process is refused with the holder's pid; a kill frees it. */
class CrossProcessLockTest {
  @TempDir Path dir;

  @Test
  void failedSecondOpenInTheSameProcessKeepsTheLock() throws Exception {
    CellarOptions options = CellarOptions.defaults().segmentBytes(1 << 20).maxValueBytes(4096);
    try (Cellar db = Cellar.open(dir, options)) {
      assertThrows(StoreLockedException.class, () -> Cellar.open(dir, options));
      // POSIX locks die with any descriptor of the file; the failed open must not have opened one.
      Process other =
          new ProcessBuilder(
                  ProcessHandle.current().info().command().orElse("java"),
                  "--enable-native-access=ALL-UNNAMED",
                  "-Xmx128m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  TryOpen.class.getName(),
                  dir.toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      assertTrue(other.waitFor(60, TimeUnit.SECONDS));
      assertEquals("locked", new String(other.getInputStream().readAllBytes()).strip());
    }
  }

  @Test
  void directoryHeldByAnotherProcessIsRefusedUntilThatProcessDies() throws Exception {
    Process child =
        new ProcessBuilder(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx128m",
                "-cp",
                System.getProperty("java.class.path"),
                HoldOpen.class.getName(),
                dir.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream()));
      assertEquals("open", out.readLine());
      CellarOptions options = CellarOptions.defaults().segmentBytes(1 << 20).maxValueBytes(4096);
      StoreLockedException e =
          assertThrows(StoreLockedException.class, () -> Cellar.open(dir, options));
      assertTrue(e.getMessage().contains("held by pid " + child.pid()), e.getMessage());
      child.toHandle().destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      try (Cellar db = Cellar.open(dir, options)) {
        assertArrayEquals("yes".getBytes(), db.get("held".getBytes()));
      }
    } finally {
      child.destroyForcibly();
    }
  }
}
