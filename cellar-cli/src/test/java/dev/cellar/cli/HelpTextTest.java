package dev.cellar.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What a newcomer reads first: {@code cellar --help} must name every command the launcher runs, and
 * no help text may stop mid-sentence. A parent's command list shows only the first element of each
 * subcommand's description, so each element has to be a whole sentence of its own.
 */
class HelpTextTest {

  @Test
  void helpListsEveryCommandTheLauncherRuns() {
    CommandRun run = CommandRun.of("--help");
    assertEquals(CellarCommand.EXIT_OK, run.exitCode(), run::toString);
    for (String command : List.of("server", "demo", "tool", "bench")) {
      assertTrue(
          run.out().lines().anyMatch(l -> l.startsWith("  " + command + " ")),
          command + " in\n" + run);
    }
  }

  @Test
  void everyDescriptionIsWholeSentences() {
    List<String> cut = new ArrayList<>();
    collectCut(CellarCommand.commandLine(), cut);
    assertEquals(List.of(), cut, "help texts cut mid-sentence");
  }

  @Test
  void benchOutsideTheLauncherSaysWhereBenchmarksRun() {
    CommandRun run = CommandRun.of("bench", "server", "--quick");
    assertEquals(CellarCommand.EXIT_USAGE, run.exitCode(), run::toString);
    assertTrue(run.err().contains("use ./cellar bench server --quick"), run::toString);
  }

  private static void collectCut(CommandLine command, List<String> cut) {
    CommandSpec spec = command.getCommandSpec();
    for (String line : spec.usageMessage().description()) {
      if (!endsASentence(line)) {
        cut.add(spec.qualifiedName() + ": " + line);
      }
    }
    spec.options()
        .forEach(
            option -> {
              for (String line : option.description()) {
                if (!endsASentence(line)) {
                  cut.add(spec.qualifiedName() + " " + option.longestName() + ": " + line);
                }
              }
            });
    command.getSubcommands().values().forEach(sub -> collectCut(sub, cut));
  }

  private static boolean endsASentence(String text) {
    String end = text.replace("%n", "").strip();
    return end.endsWith(".") || end.endsWith(")") || end.endsWith(".)");
  }
}
