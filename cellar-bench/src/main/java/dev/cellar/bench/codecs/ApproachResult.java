package dev.cellar.bench.codecs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What was measured for one approach. A forked child JVM hands it to its parent as a small text
 * file: one {@code name value} line per field, the rates of each operation separated by spaces.
 */
record ApproachResult(String key, String label, int bytes, Map<Operation, Throughput> throughput) {
  ApproachResult {
    throughput = Map.copyOf(throughput);
    if (!throughput.keySet().containsAll(List.of(Operation.values()))) {
      throw new IllegalArgumentException(key + " lacks an operation: " + throughput.keySet());
    }
  }

  void writeTo(Path file) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("key " + key);
    lines.add("label " + label);
    lines.add("bytes " + bytes);
    for (Operation operation : Operation.values()) {
      StringBuilder line = new StringBuilder(operation.jsonKey);
      for (double rate : throughput.get(operation).perIteration()) {
        line.append(' ').append(rate);
      }
      lines.add(line.toString());
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  static ApproachResult readFrom(Path file) throws IOException {
    String key = null;
    String label = null;
    int bytes = -1;
    EnumMap<Operation, Throughput> throughput = new EnumMap<>(Operation.class);
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int space = line.indexOf(' ');
      String name = space < 0 ? line : line.substring(0, space);
      String value = space < 0 ? "" : line.substring(space + 1);
      switch (name) {
        case "key" -> key = value;
        case "label" -> label = value;
        case "bytes" -> bytes = Integer.parseInt(value);
        default -> throughput.put(operation(name, file), rates(value));
      }
    }
    if (key == null || label == null || bytes < 0) {
      throw new IOException(file + " lacks the key, label or bytes of a result");
    }
    return new ApproachResult(key, label, bytes, throughput);
  }

  private static Operation operation(String jsonKey, Path file) throws IOException {
    for (Operation operation : Operation.values()) {
      if (operation.jsonKey.equals(jsonKey)) {
        return operation;
      }
    }
    throw new IOException(file + " has an unknown line '" + jsonKey + "'");
  }

  private static Throughput rates(String value) {
    return new Throughput(
        Arrays.stream(value.trim().split(" ")).mapToDouble(Double::parseDouble).toArray());
  }
}
