package dev.cellar.server.http;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A strict reader of the Prometheus text format (0.0.4), enough to check what /metrics serves. */
final class PrometheusText {
  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final String LABEL = "[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"";
  private static final Pattern SAMPLE =
      Pattern.compile(
          "^(" + NAME + ")(\\{(?:" + LABEL + ")(?:," + LABEL + ")*\\})? (\\S+)(?: -?[0-9]+)?$");
  private static final Pattern TYPE =
      Pattern.compile("^# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)$");
  private static final Pattern HELP = Pattern.compile("^# HELP (" + NAME + ") .*$");

  private PrometheusText() {}

  /** Every sample, as {@code name{labels}} to value; fails on any line that is not valid. */
  static Map<String, Double> parse(String text) {
    Map<String, Double> samples = new LinkedHashMap<>();
    Set<String> typed = new HashSet<>();
    assertTrue(text.endsWith("\n"), "ends with a newline");
    for (String line : text.split("\n")) {
      if (line.startsWith("#")) {
        Matcher type = TYPE.matcher(line);
        if (type.matches()) {
          assertTrue(typed.add(type.group(1)), "one TYPE line per family: " + line);
        } else {
          assertTrue(HELP.matcher(line).matches(), "comment: " + line);
        }
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      assertTrue(m.matches(), "sample line: " + line);
      String name = m.group(1);
      assertTrue(
          typed.contains(name)
              || typed.contains(name.replaceFirst("_(bucket|sum|count|total)$", "")),
          "typed before use: " + line);
      String key = name + (m.group(2) == null ? "" : m.group(2));
      assertNull(samples.put(key, value(m.group(3))), "one sample per series: " + line);
    }
    return samples;
  }

  private static double value(String v) {
    return switch (v) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(v);
    };
  }
}
