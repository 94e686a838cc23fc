package dev.cellar.cli.tool;

import dev.cellar.backup.BackupException;
import dev.cellar.backup.Restore;
import dev.cellar.backup.s3.S3Exception;
import dev.cellar.cli.CellarCommand;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cellar tool restore s3://bucket/prefix DIR}: see {@link Restore}. */
@Command(
    name = "restore",
    mixinStandardHelpOptions = true,
    description = {
      "Restores a backup into a new store directory. Every object is downloaded beside the"
          + " target and checked against the manifest (size and SHA-256) before the directory is"
          + " put in place, so a failed restore leaves nothing that would open as a store."
    },
    footer = {"", "Exit codes: 0 restored, 1 refused or failed, 2 usage error."})
public final class RestoreCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ObjectStoreOptions store;

  @Option(
      names = "--manifest",
      paramLabel = "NAME",
      description =
          "The backup to restore, as manifests/<time>.manifest (default: the newest under the"
              + " prefix).")
  String manifest;

  @Parameters(index = "0", paramLabel = "s3://BUCKET/PREFIX", description = "Where the backup is.")
  String source;

  @Parameters(
      index = "1",
      paramLabel = "DIR",
      description = "The store directory to create (it must not exist, or be empty).")
  Path directory;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      new Restore(store.client(ToolEnvironment.get()))
          .run(BackupCommand.location(spec, source), manifest, directory, out);
      return CellarCommand.EXIT_OK;
    } catch (BackupException | S3Exception e) {
      err.println("restore failed: " + e.getMessage());
      return CellarCommand.EXIT_FAILURE;
    }
  }
}
