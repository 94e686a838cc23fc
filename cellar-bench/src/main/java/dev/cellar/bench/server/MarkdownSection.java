package dev.cellar.bench.server;

import java.util.ArrayList;
import java.util.List;

/**
 * Replaces the lines between a line {@value #BEGIN} and a line {@value #END} (or another pair of
 * markers) in a Markdown document (the marker lines stay), so a run can record its tables in
 * {@code docs/benchmarks.md} without touching the prose around them. Only a marker alone on its
 * line counts, so prose may quote the markers.
 */
public final class MarkdownSection {
  static final String BEGIN = "<!-- server-bench:begin -->";
  static final String END = "<!-- server-bench:end -->";

  private MarkdownSection() {}

  static String replace(String document, String section) {
    return replace(document, section, BEGIN, END);
  }

  /** Replaces what lies between the lines {@code beginMarker} and {@code endMarker}. */
  public static String replace(String document, String section, String beginMarker, String endMarker) {
    List<String> lines = document.lines().toList();
    int begin = onlyLine(lines, beginMarker, beginMarker, endMarker);
    int end = onlyLine(lines, endMarker, beginMarker, endMarker);
    if (end < begin) {
      throw new IllegalArgumentException("the line " + endMarker + " comes before the line " + beginMarker);
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

  /** Throws unless the document can take a section between these markers. */
  public static void check(String document, String beginMarker, String endMarker) {
    replace(document, "", beginMarker, endMarker);
  }

  private static int onlyLine(List<String> lines, String marker, String beginMarker, String endMarker) {
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
      throw new IllegalArgumentException("the document has no line " + marker + "; put " + beginMarker + " and " + endMarker
          + " on lines of their own where the tables belong");
    }
    return found;
  }
}
