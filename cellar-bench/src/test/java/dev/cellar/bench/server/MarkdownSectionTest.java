package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class MarkdownSectionTest {

  @Test
  void replacesOnlyTheLinesBetweenTheMarkers() {
    String doc =
        "# Title\n\n<!-- server-bench:begin -->\nold table\n<!-- server-bench:end -->\n\nafter\n";
    assertEquals(
        "# Title\n\n<!-- server-bench:begin -->\n| new |\n| row |\n<!-- server-bench:end -->\n\nafter\n",
        MarkdownSection.replace(doc, "| new |\n| row |\n"));
  }

  @Test
  void markersQuotedInProseDoNotCount() {
    String doc =
        "Writes between `<!-- server-bench:begin -->` and `<!-- server-bench:end -->`.\n"
            + "<!-- server-bench:begin -->\n<!-- server-bench:end -->\n";
    assertEquals(doc.replace("begin -->\n<", "begin -->\nx\n<"), MarkdownSection.replace(doc, "x"));
  }

  @Test
  void refusesADocumentWithoutExactlyOnePairInOrder() {
    assertThrows(IllegalArgumentException.class, () -> MarkdownSection.check("# Title\n"));
    assertThrows(
        IllegalArgumentException.class,
        () -> MarkdownSection.check("<!-- server-bench:end -->\n<!-- server-bench:begin -->\n"));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            MarkdownSection.check(
                "<!-- server-bench:begin -->\n<!-- server-bench:begin -->\n<!-- server-bench:end -->\n"));
  }
}
