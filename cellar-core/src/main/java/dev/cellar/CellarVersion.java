package dev.cellar;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version of Cellar on the class path, as the build wrote it into {@code
 * dev/cellar/version.properties}. A filtered resource rather than the jar manifest's
 * Implementation-Version, which exists only in a packaged jar: tests and IDE runs read classes from
 * directories, and would otherwise have no version to show.
 */
public final class CellarVersion {
  private static final String CURRENT = read();

  private CellarVersion() {}

  /** The project version, such as {@code 0.1.0-SNAPSHOT}. */
  public static String current() {
    return CURRENT;
  }

  private static String read() {
    try (InputStream in = CellarVersion.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return "unknown (dev/cellar/version.properties is missing; rebuild cellar-core)";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      return "unknown (dev/cellar/version.properties: " + e + ")";
    }
  }
}
