package dev.cellar.crash;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the engine in a child JVM with and without native access granted: it must work either way
 * (without it, block reservation falls back to writing zeros) and the JVM must print no warning of
 * its own. Without access the engine says once, over four opens, what it does without and which
 * flag restores it; with access it says nothing.
 */
class JvmFlagsTest {
  private static final String FLAG = "--enable-native-access=ALL-UNNAMED";

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void worksWithAndWithoutNativeAccessAndSaysOnceWhatIsLost(boolean nativeAccess) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    if (nativeAccess) {
      command.add(FLAG);
    }
    command.addAll(
        List.of(
            "-Xmx128m",
            "-cp",
            System.getProperty("java.class.path"),
            EmbeddedRoundTrip.class.getName(),
            dir.toString()));
    Process child = new ProcessBuilder(command).start();
    assertTrue(child.waitFor(120, TimeUnit.SECONDS));
    String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, child.exitValue(), out + err);
    assertEquals("ok", out.strip());
    List<String> warnings = err.lines().filter(line -> line.contains("WARNING")).toList();
    if (nativeAccess) {
      assertEquals(List.of(), warnings, "warnings with native access granted:\n" + err);
    } else {
      assertEquals(1, warnings.size(), "one warning, from the engine, over four opens:\n" + err);
      String warning = warnings.getFirst();
      for (String named : List.of("posix_fallocate", "madvise", "huge pages", FLAG)) {
        assertTrue(warning.contains(named), named + " in: " + warning);
      }
    }
  }
}
