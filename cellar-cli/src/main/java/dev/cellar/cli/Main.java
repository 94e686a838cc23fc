package dev.cellar.cli;

import dev.cellar.cli.server.ServerCommand;
import dev.cellar.cli.server.TrainingCommand;

/**
 * The jar's entry point. {@code cellar server} and the start-up cache's training run go around
 * picocli when they can; everything else is {@link CellarCommand}'s.
 *
 * <p>Why a class of its own: the launcher resolves every type named in the main class's method
 * signatures before it calls {@code main}, and {@link CellarCommand}'s name picocli's, so running
 * it would load picocli's largest class (and the start-up cache cannot hold picocli's classes,
 * compiled for Java 5) on the way to a server that does not use it. Building picocli's command tree
 * was most of the CPU the server spent before its first PONG (docs/benchmarks.md, "Start-up and the
 * first seconds"). The training run does not go through picocli either, so that no class of the
 * cache refers to one of picocli's, which the JVM would then load at every start to check the
 * reference.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs {@code cellar args...}; returns the exit code. */
  static int run(String[] args) {
    String command = args.length > 0 ? args[0] : "";
    if (command.equals("server")) {
      Integer served = ServerCommand.runWithoutPicocli(args);
      if (served != null) {
        return served;
      }
    } else if (command.equals("aot-training") && args.length == 1) {
      return TrainingCommand.train();
    }
    return CellarCommand.commandLine().execute(args);
  }
}
