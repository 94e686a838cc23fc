package dev.cellar.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code ./cellar bench --help} lists each benchmark with the first element of its description
 * only, so each element must be a whole sentence: split mid-sentence, the list stops mid-sentence.
 */
class BenchHelpTextTest {

  @Test
  void everyDescriptionIsWholeSentences() {
    List<String> cut = new ArrayList<>();
    collectCut(new CommandLine(new BenchCommand()), cut);
    assertEquals(List.of(), cut, "help texts cut mid-sentence");
  }

  private static void collectCut(CommandLine command, List<String> cut) {
    for (String line : command.getCommandSpec().usageMessage().description()) {
      String end = line.replace("%n", "").strip();
      if (!(end.endsWith(".") || end.endsWith(")"))) {
        cut.add(command.getCommandSpec().qualifiedName() + ": " + line);
      }
    }
    command.getSubcommands().values().forEach(sub -> collectCut(sub, cut));
  }
}
