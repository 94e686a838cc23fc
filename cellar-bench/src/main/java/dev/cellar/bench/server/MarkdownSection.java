package dev.cellar.bench.server;

import java.util.ArrayList;
import java.util.List;

/**
 * Replaces the lines between a line {@value #BEGIN} and a line {@value #END} in a Markdown
 * document (the marker lines stay), so a run can record its tables in {@code docs/benchmarks.md}
 * without touching the prose around them. Only a marker alone on its line counts, so prose may
 * quote the markers.
 */
final class MarkdownSection {
  static final String BEGIN = "<!-- server-bench:begin -->";
  static final String END = "<!-- server-bench:end -->";

  private MarkdownSection() {}

  static String replace(String document, String section) {
    List<String> lines = document.lines().toList();
    int begin = onlyLine(lines, BEGIN);
    int end = onlyLine(lines, END);
    if (end < begin) {
      throw new IllegalArgumentException("the line " + END + " comes before the line " + BEGIN);
    }
    List<String> result = new ArrayList<>(lines.subList(0, begin + 1));
    result.addAll(section.lines().toList());
    result.addAll(lines.subList(end, lines.size()));
    return String.join("\n", result) + "\n";
  }

  /** Throws unless the document can take a section: for checking before a long run. */
  static void check(String document) {
    replace(document, "");
  }

  private static int onlyLine(List<String> lines, String marker) {
    int found = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals(marker)) {
        if (found >= 0) {
          throw new IllegalArgumentException("the document has the line " + marker + " twice (lines " + (found + 1) + " and " + (i + 1) + ")");
        }
        found = i;
      }
    }
    if (found < 0) {
      throw new IllegalArgumentException("the document has no line " + marker + "; put " + BEGIN + " and " + END
          + " on lines of their own where the tables belong");
    }
    return found;
  }
}
