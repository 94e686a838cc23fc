package dev.cellar.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/**
 * {@code cellar --version}: the project version, which the build writes into {@code
 * cellar-version.properties} (a filtered resource, so it is right in tests as well as in the jar).
 */
final class VersionProvider implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() throws IOException {
    Properties properties = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream("/cellar-version.properties")) {
      if (in != null) {
        properties.load(in);
      }
    }
    return new String[] {
      "cellar " + properties.getProperty("version", "(unknown version)"),
      "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")"
    };
  }
}
