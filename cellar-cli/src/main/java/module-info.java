/**
 * The {@code cellar} command: the server, benchmarks' front end, and the offline tools, on the
 * engine's exported API only ({@code dev.cellar} and {@code dev.cellar.inspect}).
 *
 * <p>Picocli builds each command from its annotations by reflection, so the command packages are
 * open to it. The launcher runs the command from the class path, where the logging service is found
 * through {@code META-INF/services}; on the module path the same service is declared here.
 */
module dev.cellar.cli {
  requires dev.cellar.core;
  requires dev.cellar.backup;
  requires dev.cellar.server;
  requires info.picocli;
  requires java.management;

  opens dev.cellar.cli to
      info.picocli;
  opens dev.cellar.cli.bench to
      info.picocli;
  opens dev.cellar.cli.cluster to
      info.picocli;
  opens dev.cellar.cli.demo to
      info.picocli;
  opens dev.cellar.cli.server to
      info.picocli;
  opens dev.cellar.cli.tool to
      info.picocli;
}
