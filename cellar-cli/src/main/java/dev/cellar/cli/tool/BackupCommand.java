package dev.cellar.cli.tool;

import dev.cellar.StoreLockedException;
import dev.cellar.backup.Backup;
import dev.cellar.backup.BackupException;
import dev.cellar.backup.s3.S3Exception;
import dev.cellar.backup.s3.S3Location;
import dev.cellar.cli.CellarCommand;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cellar tool backup DIR s3://bucket/prefix}: see {@link Backup}. */
@Command(
    name = "backup",
    mixinStandardHelpOptions = true,
    description = {
      "Backs a stopped store up to S3-compatible object storage: each file of the store as an"
          + " object named by its SHA-256, then a manifest naming them. Files the prefix already"
          + " holds are not sent again, so later backups send only what changed.",
      "The store is held with its own lock meanwhile; a store that is open is refused."
    },
    footer = {"", "Exit codes: 0 backed up, 1 refused or failed, 2 usage error."})
public final class BackupCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ObjectStoreOptions store;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path directory;

  @Parameters(index = "1", paramLabel = "s3://BUCKET/PREFIX", description = "Where to back up.")
  String target;

  @Override
  public Integer call() throws Exception {
    ToolCommand.requireDirectory(spec, directory);
    S3Location location = location(spec, target);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      new Backup(store.client(ToolEnvironment.get()), Clock.systemUTC())
          .run(directory, location, out);
      return CellarCommand.EXIT_OK;
    } catch (StoreLockedException | BackupException | S3Exception e) {
      err.println("backup failed: " + e.getMessage());
      return CellarCommand.EXIT_FAILURE;
    }
  }

  static S3Location location(CommandSpec spec, String uri) {
    try {
      return S3Location.parse(uri);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
