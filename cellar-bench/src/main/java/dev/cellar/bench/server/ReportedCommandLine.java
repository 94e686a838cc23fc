package dev.cellar.bench.server;

import java.util.List;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;

/**
 * How a benchmark run was invoked, as its report prints it: the command and the options that say
 * what was measured, without those that say where things went ({@code --out}, {@code --json},
 * {@code --markdown} and {@link LauncherOptions}'), which hold paths of the machine that ran it.
 */
public final class ReportedCommandLine {
  private static final Set<String> WHERE_OPTIONS =
      Set.of("--out", "--json", "--markdown", "--dir", "--cellar", "--keep-data");

  /** Of those, the ones that take no value. */
  private static final Set<String> WHERE_FLAGS = Set.of("--keep-data");

  private ReportedCommandLine() {}

  /** {@code command} (such as "./cellar bench soak") followed by the run's own options. */
  public static String of(CommandSpec spec, String command) {
    List<String> args =
        spec.commandLine().getParseResult() == null
            ? List.of()
            : spec.commandLine().getParseResult().originalArgs();
    if (!args.isEmpty() && args.getFirst().equals(spec.name())) {
      args =
          args.subList(
              1, args.size()); // run as a subcommand of bench, picocli keeps the whole line
    }
    StringBuilder line = new StringBuilder(command);
    for (int i = 0; i < args.size(); i++) {
      String name = args.get(i).split("=", 2)[0];
      if (WHERE_OPTIONS.contains(name)) {
        i += args.get(i).contains("=") || WHERE_FLAGS.contains(name) ? 0 : 1;
      } else {
        line.append(' ').append(args.get(i));
      }
    }
    return line.toString();
  }
}
