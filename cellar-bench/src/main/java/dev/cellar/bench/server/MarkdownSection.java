package dev.cellar.bench.server;

import java.util.ArrayList;
import java.util.List;

/**
 * Replaces the lines between a begin marker line and an end marker line in a Markdown document (the
 * marker lines stay), so a run can record its tables in {@code docs/benchmarks.md} without touching
 * the prose around them. Only a marker alone on its line counts, so prose may quote the markers.
 * The server benchmark's markers are {@value #BEGIN} and {@value #END}; other benchmarks name their
 * own.
 */
public final class MarkdownSection {
  static final String BEGIN = "<!-- server-bench:begin -->";
  static final String END = "<!-- server-bench:end -->";

  private MarkdownSection() {}

  static String replace(String document, String section) {
    return replace(document, section, BEGIN, END);
  }

  /** Throws unless the document can take a section: for checking before a long run. */
  static void check(String document) {
    replace(document, "");
  }

  /**
   * The document with the lines between the lines {@code begin} and {@code end} replaced by {@code
   * section}.
   */
  public static String replace(String document, String section, String begin, String end) {
    List<String> lines = document.lines().toList();
    int first = onlyLine(lines, begin, begin, end);
    int last = onlyLine(lines, end, begin, end);
    if (last < first) {
      throw new IllegalArgumentException("the line " + end + " comes before the line " + begin);
    }
    List<String> result = new ArrayList<>(lines.subList(0, first + 1));
    result.addAll(section.lines().toList());
    result.addAll(lines.subList(last, lines.size()));
    return String.join("\n", result) + "\n";
  }

  /** Throws unless the document can take a section between these markers. */
  public static void check(String document, String begin, String end) {
    replace(document, "", begin, end);
  }

  private static int onlyLine(List<String> lines, String marker, String begin, String end) {
    int found = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals(marker)) {
        if (found >= 0) {
          throw new IllegalArgumentException(
              "the document has the line "
                  + marker
                  + " twice (lines "
                  + (found + 1)
                  + " and "
                  + (i + 1)
                  + ")");
        }
        found = i;
      }
    }
    if (found < 0) {
      throw new IllegalArgumentException(
          "the document has no line "
              + marker
              + "; put "
              + begin
              + " and "
              + end
              + " on lines of their own where the tables belong");
    }
    return found;
  }
}
