package dev.cellar.server.command;

import dev.cellar.server.resp.Request;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The commands the server knows, found by name without allocating: names are matched
 * case-insensitively against the request bytes through a small open-addressing table.
 */
public final class CommandTable {
  private final Map<String, CommandSpec> byName = new LinkedHashMap<>();
  private CommandSpec[] slots = new CommandSpec[0];
  private byte[][] names = new byte[0][];
  private int mask;

  /** Declares a command; see {@link CommandSpec}. */
  public CommandTable add(
      String name,
      int arity,
      String flags,
      int firstKey,
      int lastKey,
      int step,
      String group,
      String summary,
      Handler handler) {
    List<String> flagList = flags.isBlank() ? List.of() : List.of(flags.trim().split("\\s+"));
    byName.put(
        name,
        new CommandSpec(name, arity, flagList, firstKey, lastKey, step, group, summary, handler));
    rebuild();
    return this;
  }

  private void rebuild() {
    int capacity = Integer.highestOneBit(Math.max(16, byName.size() * 4) - 1) << 1;
    slots = new CommandSpec[capacity];
    names = new byte[capacity][];
    mask = capacity - 1;
    for (CommandSpec spec : byName.values()) {
      byte[] n = spec.name().getBytes(StandardCharsets.US_ASCII);
      int i = hash(n, 0, n.length) & mask;
      while (slots[i] != null) {
        i = (i + 1) & mask;
      }
      slots[i] = spec;
      names[i] = n;
    }
  }

  private static int hash(byte[] b, int offset, int length) {
    int h = length;
    for (int i = 0; i < length; i++) {
      h = h * 31 + (b[offset + i] | 0x20);
    }
    return h ^ (h >>> 16);
  }

  /** The command named by argument 0 of {@code request}, or null. */
  public CommandSpec find(Request request) {
    byte[] b = request.buffer();
    int offset = request.offset(0);
    int length = request.length(0);
    int i = hash(b, offset, length) & mask;
    while (true) {
      byte[] n = names[i];
      if (n == null) {
        return null;
      }
      if (n.length == length && equalsIgnoreCase(n, b, offset)) {
        return slots[i];
      }
      i = (i + 1) & mask;
    }
  }

  private static boolean equalsIgnoreCase(byte[] lower, byte[] b, int offset) {
    for (int i = 0; i < lower.length; i++) {
      int c = b[offset + i];
      if (c >= 'A' && c <= 'Z') {
        c += 32;
      }
      if (c != lower[i]) {
        return false;
      }
    }
    return true;
  }

  public CommandSpec get(String name) {
    return byName.get(name.toLowerCase(java.util.Locale.ROOT));
  }

  public Collection<CommandSpec> all() {
    return new ArrayList<>(byName.values());
  }

  public int size() {
    return byName.size();
  }
}
