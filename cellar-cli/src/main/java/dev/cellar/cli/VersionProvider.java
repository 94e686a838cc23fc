package dev.cellar.cli;

import dev.cellar.CellarVersion;
import picocli.CommandLine;

/** {@code cellar --version}: the project version (see {@link CellarVersion}) and the JVM's. */
final class VersionProvider implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() {
    return new String[] {
      "cellar " + CellarVersion.current(),
      "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")"
    };
  }
}
