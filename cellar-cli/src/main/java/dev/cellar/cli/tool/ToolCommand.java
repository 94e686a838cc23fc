package dev.cellar.cli.tool;

import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code cellar tool}: offline tools for a store directory, which never open it as a store: {@code
 * verify} and {@code dump} read it and take no lock; {@code backup} holds the store's lock while it
 * copies the files out; {@code restore} makes a new directory.
 */
@Command(
    name = "tool",
    mixinStandardHelpOptions = true,
    description =
        "Offline tools for a store directory: verify and dump read it (no lock, nothing written);"
            + " backup and restore copy it to and from S3-compatible object storage.",
    subcommands = {
      VerifyCommand.class,
      DumpCommand.class,
      BackupCommand.class,
      RestoreCommand.class,
      CommandLine.HelpCommand.class
    })
public final class ToolCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "name a tool: verify, dump, backup or restore");
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
