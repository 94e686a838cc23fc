package dev.cellar.cli.tool;

import dev.cellar.cli.CellarCommand;
import dev.cellar.inspect.StoreDirectory;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cellar tool verify DIR}: see {@link StoreVerifier}. */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = {
      "Checks every segment header and record CRC and every checkpoint of a store, offline and"
          + " read-only, and reports each damaged region with file, offset and length.",
      "Errors are damage no crash explains (an open would refuse the store, or data is lost);"
          + " warnings are what a crash leaves and the next open cleans up, such as a torn tail."
    },
    footer = {"", "Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 usage error."})
public final class VerifyCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ProgressOption progress;

  @Mixin KeyFileOption keyFile;

  @Parameters(paramLabel = "DIR", description = "The store directory.")
  Path directory;

  @Override
  public Integer call() throws Exception {
    ToolCommand.requireDirectory(spec, directory);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    StoreVerifier.Summary summary =
        StoreVerifier.verify(
            StoreDirectory.list(directory),
            keyFile.keys(),
            out,
            total -> progress.bar(err, total, out));
    return summary.clean() ? CellarCommand.EXIT_OK : CellarCommand.EXIT_FAILURE;
  }
}
