package dev.cellar.crash;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the engine in a child JVM with and without native access granted: it must work either way
 * (without it, block reservation falls back to writing zeros) and the JVM must print no warning.
 */
class JvmFlagsTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void worksWithoutWarningsWithAndWithoutNativeAccess(boolean nativeAccess) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    if (nativeAccess) {
      command.add("--enable-native-access=ALL-UNNAMED");
    }
    command.addAll(List.of("-Xmx128m", "-cp", System.getProperty("java.class.path"), EmbeddedRoundTrip.class.getName(), dir.toString()));
    Process child = new ProcessBuilder(command).start();
    assertTrue(child.waitFor(120, TimeUnit.SECONDS));
    String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, child.exitValue(), out + err);
    assertEquals("ok", out.strip());
    assertFalse(err.contains("WARNING"), "the JVM warned:\n" + err);
  }
}
