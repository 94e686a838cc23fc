package dev.cellar.bench.cluster;

import java.util.List;
import java.util.Map;

/** The benchmark's results as JSON: maps, lists, numbers, strings and booleans, indented. */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out, "");
    return out.toString();
  }

  private static void write(Object value, StringBuilder out, String indent) {
    switch (value) {
      case null -> out.append("null");
      case Map<?, ?> map -> {
        out.append("{");
        String inner = indent + "  ";
        boolean first = true;
        for (var e : map.entrySet()) {
          out.append(first ? "\n" : ",\n").append(inner);
          string(String.valueOf(e.getKey()), out);
          out.append(": ");
          write(e.getValue(), out, inner);
          first = false;
        }
        out.append(first ? "}" : "\n" + indent + "}");
      }
      case List<?> list -> {
        out.append("[");
        for (int i = 0; i < list.size(); i++) {
          out.append(i == 0 ? "" : ", ");
          write(list.get(i), out, indent);
        }
        out.append("]");
      }
      case Double d -> out.append(Double.isFinite(d) ? String.format("%.4g", d) : "null");
      case Number n -> out.append(n);
      case Boolean b -> out.append(b);
      default -> string(value.toString(), out);
    }
  }

  private static void string(String s, StringBuilder out) {
    out.append('"');
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
