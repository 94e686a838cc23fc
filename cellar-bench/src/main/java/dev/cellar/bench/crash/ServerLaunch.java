package dev.cellar.bench.crash;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How the crash loop starts the server. {@code ./cellar bench crash} goes through the repository's
 * {@code cellar} launcher, exactly as users start it. A test inside the build cannot (the launcher
 * would build the project, inside the build), so it runs the command line the launcher execs: the
 * same main class with the launcher's JVM options, from a class path. Either way the process
 * started is the server's JVM itself, which is what SIGKILL must reach.
 *
 * @param prefix the command line before the {@code server} subcommand's arguments
 */
public record ServerLaunch(List<String> prefix) {
  /**
   * The JVM options of the launcher's {@code server} branch, in its order; a test keeps them in
   * step.
   */
  public static final List<String> LAUNCHER_JVM_OPTIONS =
      List.of(
          "--enable-native-access=ALL-UNNAMED",
          "-XX:+UseSerialGC",
          "-Xms8m",
          "-Xmx1g",
          "-XX:-ShrinkHeapInSteps",
          "-Xss512k",
          "-XX:TrimNativeHeapInterval=60000",
          "-Dio.netty.jfr.enabled=false",
          "-Dio.netty.leakDetection.level=disabled");

  /** The main class of the {@code cellar} command (cellar-cli). */
  public static final String MAIN_CLASS = "dev.cellar.cli.Main";

  public ServerLaunch {
    prefix = List.copyOf(prefix);
  }

  /** Through the {@code cellar} launcher script. */
  public static ServerLaunch launcher(Path cellarScript) {
    return new ServerLaunch(List.of(cellarScript.toString(), "server"));
  }

  /**
   * The launcher's java command line, with {@code classPath} holding cellar-cli and its
   * dependencies.
   */
  public static ServerLaunch java(Path java, String classPath) {
    List<String> prefix = new ArrayList<>(List.of(java.toString()));
    prefix.addAll(LAUNCHER_JVM_OPTIONS);
    prefix.addAll(List.of("-cp", classPath, MAIN_CLASS, "server"));
    return new ServerLaunch(prefix);
  }

  /** The whole command: under {@code appendfsync always}, HTTP off, RESP on {@code port}. */
  List<String> command(int port, Path dir, String segmentSize) {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(
        List.of(
            "--port",
            Integer.toString(port),
            "--dir",
            dir.toString(),
            "--fsync",
            "always",
            "--http-port",
            "0",
            "--segment-size",
            segmentSize));
    return command;
  }
}
