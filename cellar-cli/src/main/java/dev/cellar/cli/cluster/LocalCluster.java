package dev.cellar.cli.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local cluster's directory: one directory per node ({@code n1}, {@code n2}, ...), each with the
 * node's config file ({@code cellar.conf}, its cluster settings and data directory), its log
 * ({@code node.log}) and the pid of its running process ({@code node.pid}). Node processes run the
 * {@code cellar} launcher's server, or {@code java -jar} of this command's jar when there is no
 * launcher, with the flags a cluster node needs.
 */
final class LocalCluster {
  static final String CONFIG = "cellar.conf";
  static final String PID = "node.pid";
  static final String LOG = "node.log";

  private static final Pattern PORT = Pattern.compile("(?m)^port\\s+(\\d+)\\s*$");

  private final Path directory;

  LocalCluster(Path directory) {
    this.directory = directory.toAbsolutePath();
  }

  Path directory() {
    return directory;
  }

  Path nodeDirectory(String id) {
    return directory.resolve(id);
  }

  /** Writes each node's config file for {@code nodes} nodes on ports {@code basePort}... */
  void configure(int nodes, int basePort, int replicas) throws IOException {
    List<String> entries = new ArrayList<>();
    for (int i = 1; i <= nodes; i++) {
      entries.add(
          "n" + i + "@127.0.0.1:" + (basePort + i - 1) + ":" + raftPort(basePort, nodes, i));
    }
    for (int i = 1; i <= nodes; i++) {
      Path node = nodeDirectory("n" + i);
      Files.createDirectories(node);
      String config =
          "# A node of the local cluster made by `cellar cluster start`.\n"
              + "port "
              + (basePort + i - 1)
              + "\nbind 127.0.0.1\nhttp-port 0\nipc no\ndir "
              + node.resolve("data")
              + "\ncluster-enabled yes\ncluster-node-id n"
              + i
              + "\ncluster-nodes "
              + String.join(" ", entries)
              + "\ncluster-replicas "
              + replicas
              + "\ncluster-node-timeout 3000\n";
      Files.writeString(node.resolve(CONFIG), config, StandardCharsets.UTF_8);
    }
  }

  /** The node's Raft port: 10000 above its client port, as Redis's bus port, when that fits. */
  static int raftPort(int basePort, int nodes, int i) {
    int above = basePort + i - 1 + 10000;
    return above <= 65535 ? above : basePort + nodes + i - 1;
  }

  /** The ids of the nodes configured here, in order. */
  List<String> nodeIds() throws IOException {
    List<String> ids = new ArrayList<>();
    for (int i = 1; Files.isRegularFile(nodeDirectory("n" + i).resolve(CONFIG)); i++) {
      ids.add("n" + i);
    }
    if (ids.isEmpty()) {
      throw new IOException(directory + " holds no local cluster (no n1/" + CONFIG + ")");
    }
    return ids;
  }

  int port(String id) throws IOException {
    Matcher m = PORT.matcher(Files.readString(nodeDirectory(id).resolve(CONFIG)));
    if (!m.find()) {
      throw new IOException(id + "'s config names no port");
    }
    return Integer.parseInt(m.group(1));
  }

  /** Starts node {@code id}'s process, its output appended to its log; records its pid. */
  Process start(String id) throws IOException {
    Path node = nodeDirectory(id);
    List<String> command = new ArrayList<>(serverCommand());
    command.add(node.resolve(CONFIG).toString());
    ProcessBuilder builder = new ProcessBuilder(command);
    // The launcher's start-up cache is trained for a single server; nodes starting together would
    // each train one at once.
    builder.environment().put("CELLAR_AOT", "no");
    Process process =
        builder
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(node.resolve(LOG).toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    Files.writeString(node.resolve(PID), Long.toString(process.pid()) + "\n");
    return process;
  }

  /** The live process of node {@code id}, from its pid file. */
  Optional<ProcessHandle> running(String id) {
    try {
      long pid = Long.parseLong(Files.readString(nodeDirectory(id).resolve(PID)).trim());
      return ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * How a node is run: through the {@code cellar} launcher when there is one (its server options;
   * it adds a cluster node's flags itself), else this JVM's {@code java} on this JVM's class path
   * with those flags.
   */
  private static List<String> serverCommand() {
    String launcher = System.getenv("CELLAR_LAUNCHER");
    if (launcher != null && Files.isExecutable(Path.of(launcher))) {
      return List.of(launcher, "server");
    }
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(NODE_JVM_FLAGS);
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), "dev.cellar.cli.Main", "server"));
    return command;
  }

  /**
   * A cluster node's JVM flags: native access for the engine, and every system module but {@code
   * jdk.unsupported} (docs/cluster.md, "Nodes run without jdk.unsupported"). The launcher gives the
   * same ones.
   */
  static final List<String> NODE_JVM_FLAGS =
      List.of("--enable-native-access=ALL-UNNAMED", "--limit-modules", supportedModules());

  /** The names of the JDK's modules, {@code jdk.unsupported} and its desktop part left out. */
  static String supportedModules() {
    return java.lang.module.ModuleFinder.ofSystem().findAll().stream()
        .map(reference -> reference.descriptor().name())
        .filter(name -> !name.startsWith("jdk.unsupported"))
        .sorted()
        .collect(java.util.stream.Collectors.joining(","));
  }
}
