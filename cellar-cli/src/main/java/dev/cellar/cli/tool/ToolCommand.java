package dev.cellar.cli.tool;

import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code cellar tool}: offline tools that read a store directory without opening it as a store. */
@Command(
    name = "tool",
    mixinStandardHelpOptions = true,
    description = "Offline tools for a store directory; they take no lock and write nothing.",
    subcommands = {VerifyCommand.class, DumpCommand.class, CommandLine.HelpCommand.class})
public final class ToolCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "name a tool: verify or dump");
  }

  /** Checks that {@code directory} exists, as a usage error (exit 2) if not. */
  static void requireDirectory(CommandSpec spec, Path directory) {
    if (!Files.isDirectory(directory)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          directory + " is not a directory; give the directory of a Cellar store");
    }
  }
}
