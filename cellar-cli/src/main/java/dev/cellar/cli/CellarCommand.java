package dev.cellar.cli;

import dev.cellar.CellarException;
import dev.cellar.cli.bench.BenchCommand;
import dev.cellar.cli.demo.DemoCommand;
import dev.cellar.cli.server.ServerCommand;
import dev.cellar.cli.server.TrainingCommand;
import dev.cellar.cli.tool.ToolCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * {@code cellar}: the top of the command tree. The root launcher runs this class for every
 * subcommand except {@code bench}, which lives in cellar-bench ({@link BenchCommand} only lists
 * it).
 *
 * <p>Exit codes are the contract scripts rely on: {@link #EXIT_OK}, {@link #EXIT_FAILURE} (damage
 * found, or an expected failure such as a locked or missing store) and {@link #EXIT_USAGE}.
 * Expected failures are {@link CellarException}s and I/O errors: their message is printed without a
 * stack trace, because it already says what is wrong and what to do. Anything else is a bug, and
 * picocli prints its stack trace.
 */
@Command(
    name = "cellar",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "A persistent off-heap key-value store for the JVM.",
    footer = {"", "Exit codes: 0 ok, 1 damage found or failure, 2 usage error."},
    subcommands = {
      ServerCommand.class,
      dev.cellar.cli.cluster.ClusterCommand.class,
      DemoCommand.class,
      ToolCommand.class,
      BenchCommand.class,
      CommandLine.HelpCommand.class,
      TrainingCommand.class
    })
public final class CellarCommand implements Runnable {
  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILURE = 1;
  public static final int EXIT_USAGE = 2;

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "name a command: server, demo, tool or bench");
  }

  /** A command line wired with Cellar's exit codes and error reporting. */
  public static CommandLine commandLine() {
    return new CommandLine(new CellarCommand())
        .setExecutionExceptionHandler(CellarCommand::reportExpectedFailure);
  }

  /** As {@link Main}, which the jar runs: the same paths for those who name this class. */
  public static void main(String[] args) {
    Main.main(args);
  }

  private static int reportExpectedFailure(Exception e, CommandLine command, ParseResult parsed)
      throws Exception {
    String message = expectedFailureMessage(e);
    if (message == null) {
      throw e;
    }
    command.getErr().println(command.getCommandSpec().qualifiedName() + ": " + message);
    command.getErr().flush();
    return EXIT_FAILURE;
  }

  /** What to print for an expected failure, or null for a bug. */
  public static String expectedFailureMessage(Throwable e) {
    if (e instanceof UncheckedIOException unchecked) {
      e = unchecked.getCause();
    }
    return switch (e) {
      case CellarException c -> c.getMessage();
      case dev.cellar.server.config.ConfigException c -> c.getMessage();
      case ServerCommand.StartFailure f -> f.getMessage();
      case NoSuchFileException n -> "no such file or directory: " + n.getFile();
      case AccessDeniedException a -> "permission denied: " + a.getFile();
      case IOException io -> "I/O error: " + io;
      default -> null;
    };
  }
}
