package dev.cellar.cli.tool;

import dev.cellar.EncryptionKeys;
import dev.cellar.cli.server.ServerCommand;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The {@code --encryption-key-file} option of the tools that read records: the keys of an encrypted
 * store, from the flag or else from {@code CELLAR_ENCRYPTION_KEY_FILE}, as the server takes them.
 * Never a key on the command line, where other users of the machine can read it.
 */
final class KeyFileOption {
  @Option(
      names = "--encryption-key-file",
      paramLabel = "FILE",
      description =
          "The key file of an encrypted store (default: $CELLAR_ENCRYPTION_KEY_FILE if set).")
  Path file;

  /** The keys, or null when neither the flag nor the environment names a file. */
  EncryptionKeys keys() throws IOException {
    Path chosen = file;
    if (chosen == null) {
      String variable = ToolEnvironment.variable(ServerCommand.KEY_FILE_VARIABLE);
      chosen = variable == null || variable.isBlank() ? null : Path.of(variable);
    }
    return chosen == null ? null : EncryptionKeys.load(chosen);
  }
}
