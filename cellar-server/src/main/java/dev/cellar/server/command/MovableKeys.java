package dev.cellar.server.command;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where the keys of a command with movable keys sit ({@code COMMAND GETKEYS}), found as Redis 7's
 * key specs find them: a count of keys given by an argument ({@code EVAL}, {@code FCALL}, {@code
 * ZUNION}, {@code LMPOP}...), the first half of what follows {@code STREAMS} ({@code XREAD}), or a
 * key after an option ({@code SORT ... STORE}, {@code GEORADIUS ... STORE/STOREDIST}). The
 * positions count from the command's name, which is 0.
 */
final class MovableKeys {
  private MovableKeys() {}

  /** Thrown when the arguments cannot name keys: Redis's "Invalid arguments". */
  static final class Invalid extends RuntimeException {
    Invalid() {
      super(null, null, false, false);
    }
  }

  /**
   * The positions of the keys of a call of {@code spec} with {@code args} (its name first), as
   * {@code COMMAND GETKEYS} finds them: movable keys, a container's subcommand key, or the fixed
   * range; none where the arguments name none (or do not fit the command's arity).
   */
  static List<Integer> keyPositions(CommandSpec spec, List<String> args) {
    if (spec.has("movablekeys")) {
      try {
        return positions(spec.name(), args);
      } catch (Invalid e) {
        return List.of();
      }
    }
    if (spec.firstKey() == 0) {
      int subKey = subcommandKey(spec.name(), args);
      return subKey > 0 ? List.of(subKey) : List.of();
    }
    int argc = args.size();
    if (!spec.arityAccepts(argc)) {
      return List.of();
    }
    List<Integer> keys = new ArrayList<>();
    int last = Math.min(spec.lastKeyIndex(argc), argc - 1);
    for (int k = spec.firstKey(); k <= last; k += spec.step()) {
      keys.add(k);
    }
    return keys;
  }

  /** The positions of the keys of {@code command} called with {@code args} (its name first). */
  static List<Integer> positions(String command, List<String> args) {
    List<Integer> keys = new ArrayList<>();
    switch (command) {
      case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "blmpop", "bzmpop" ->
          counted(args, 2, keys);
      case "zunion", "zinter", "zdiff", "sintercard", "zintercard", "lmpop", "zmpop" ->
          counted(args, 1, keys);
      case "zunionstore", "zinterstore", "zdiffstore" -> {
        keys.add(1);
        counted(args, 2, keys);
      }
      case "xread" -> streams(args, 1, keys);
      case "xreadgroup" -> streams(args, 4, keys);
      case "sort" -> sort(args, keys);
      case "sort_ro" -> keys.add(1);
      case "georadius" -> geo(args, 6, keys);
      case "georadiusbymember" -> geo(args, 5, keys);
      case "migrate" -> migrate(args, keys);
      default -> throw new Invalid();
    }
    return keys;
  }

  /** MIGRATE's key, or with KEYS (and an empty key) the keys after it, AUTH's passwords skipped. */
  private static void migrate(List<String> args, List<Integer> keys) {
    for (int i = 6; i < args.size(); i++) {
      String a = args.get(i).toLowerCase(Locale.ROOT);
      if (a.equals("keys")) {
        if (!args.get(3).isEmpty()) {
          throw new Invalid();
        }
        for (int k = i + 1; k < args.size(); k++) {
          keys.add(k);
        }
        return;
      }
      i += a.equals("auth") ? 1 : a.equals("auth2") ? 2 : 0;
    }
    keys.add(3);
  }

  /** The subcommands of containers that name one key, after their name, as Redis's specs say. */
  private static final java.util.Set<String> ONE_KEY_SUBCOMMANDS =
      java.util.Set.of(
          "memory|usage",
          "object|encoding",
          "object|freq",
          "object|idletime",
          "object|refcount",
          "xinfo|stream",
          "xinfo|groups",
          "xinfo|consumers",
          "xgroup|create",
          "xgroup|setid",
          "xgroup|destroy",
          "xgroup|createconsumer",
          "xgroup|delconsumer");

  /** The position of the key of {@code container}'s subcommand in {@code args}, or -1. */
  static int subcommandKey(String container, List<String> args) {
    if (args.size() < 3) {
      return -1;
    }
    String name = container + "|" + args.get(1).toLowerCase(Locale.ROOT);
    return ONE_KEY_SUBCOMMANDS.contains(name) ? 2 : -1;
  }

  /** A count of keys at {@code at}, the keys right after it. */
  private static void counted(List<String> args, int at, List<Integer> keys) {
    long n;
    try {
      n = at < args.size() ? Long.parseLong(args.get(at)) : -1;
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 0 || at + n >= args.size()) {
      throw new Invalid();
    }
    for (int i = 0; i < n; i++) {
      keys.add(at + 1 + i);
    }
  }

  /** The first half of the arguments after {@code STREAMS}, searched for from {@code from}. */
  private static void streams(List<String> args, int from, List<Integer> keys) {
    for (int i = from; i < args.size(); i++) {
      if (args.get(i).equalsIgnoreCase("streams")) {
        int n = (args.size() - i - 1) / 2;
        for (int k = 0; k < n; k++) {
          keys.add(i + 1 + k);
        }
        return;
      }
    }
    throw new Invalid();
  }

  /** SORT's key, then the key of its last STORE (its other options skipped with their values). */
  private static void sort(List<String> args, List<Integer> keys) {
    keys.add(1);
    int store = -1;
    for (int i = 2; i < args.size(); i++) {
      switch (args.get(i).toLowerCase(Locale.ROOT)) {
        case "limit" -> i += 2;
        case "get", "by" -> i++;
        case "store" -> {
          if (i + 1 < args.size()) {
            store = ++i;
          }
        }
        default -> {}
      }
    }
    if (store > 0) {
      keys.add(store);
    }
  }

  /** The key, then the keys after the first STORE and the first STOREDIST from {@code from}. */
  private static void geo(List<String> args, int from, List<Integer> keys) {
    keys.add(1);
    for (String option : new String[] {"store", "storedist"}) {
      for (int i = from; i + 1 < args.size(); i++) {
        if (args.get(i).equalsIgnoreCase(option)) {
          keys.add(i + 1);
          break;
        }
      }
    }
  }
}
