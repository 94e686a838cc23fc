package dev.cellar.server.config;

import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Fuzz target for the config file reader and {@code CONFIG SET}: whatever the text, only {@link
 * ConfigException} escapes, and what {@code CONFIG GET} reports can be set back unchanged.
 *
 * <p>Inputs are either a whole config file (raw bytes, so invalid UTF-8 too) or a series of {@code
 * set}/{@code setAtRuntime}/{@code matching} calls with names drawn mostly from the real settings,
 * so values reach every parser.
 */
class ServerConfigFuzzTest {
  private static final List<String> NAMES =
      List.copyOf(new ServerConfig().all().keySet().stream().toList());
  private static final Path FILE = tempFile();

  @FuzzTest(maxDuration = "15s")
  void anyInput(FuzzedDataProvider data) {
    ServerConfig config = new ServerConfig();
    if (data.consumeBoolean()) {
      write(data.consumeRemainingAsBytes());
      try {
        config.load(FILE);
      } catch (ConfigException e) {
        assertNotNull(e.getMessage());
      }
    } else {
      int calls = data.consumeInt(1, 6);
      for (int i = 0; i < calls && data.remainingBytes() > 0; i++) {
        call(config, data);
      }
    }
    checkReportedValuesSetBack(config);
  }

  private static void call(ServerConfig config, FuzzedDataProvider data) {
    String name =
        data.consumeBoolean()
            ? NAMES.get(data.consumeInt(0, NAMES.size() - 1))
            : data.consumeString(24);
    String value = data.consumeString(64);
    try {
      switch (data.consumeInt(0, 2)) {
        case 0 -> config.set(name, value);
        case 1 -> config.setAtRuntime(name, value);
        default -> config.matching(value);
      }
    } catch (ConfigException e) {
      assertNotNull(e.getMessage());
    }
  }

  /** {@code CONFIG SET name <what CONFIG GET name said>} changes nothing (the secrets aside). */
  private static void checkReportedValuesSetBack(ServerConfig config) {
    Map<String, String> before = config.all();
    for (Map.Entry<String, String> e : before.entrySet()) {
      if (e.getKey().equals("requirepass") || e.getKey().equals("tls-key-file-pass")) {
        continue;
      }
      try {
        config.set(e.getKey(), e.getValue());
      } catch (ConfigException refused) {
        fail(
            "'"
                + e.getKey()
                + "' reported '"
                + e.getValue()
                + "' but refuses it back: "
                + refused.getMessage());
      }
    }
    assertEquals(before, config.all());
  }

  private static void write(byte[] bytes) {
    try {
      Files.write(FILE, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path tempFile() {
    try {
      Path file = Files.createTempFile("cellar-fuzz", ".conf");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
