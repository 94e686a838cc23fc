package dev.cellar.server.command;

import java.util.List;

/**
 * A command declared as data, as Redis's command table has it, so {@code COMMAND} can report it and
 * cluster-aware clients can find its keys. The flags the dispatcher tests on every call are also
 * kept as booleans, so checking them costs a field read, not a list search.
 *
 * @param name lower-case name
 * @param arity argument count including the name; negative means "at least -arity"
 * @param flags Redis's flags ({@code write readonly denyoom admin fast noauth loading stale ...})
 * @param firstKey position of the first key (0: none)
 * @param lastKey position of the last key (-1: the last argument)
 * @param step distance between keys
 * @param group Redis's documentation group ({@code string generic connection server})
 * @param summary one line for {@code COMMAND DOCS}
 * @param isContainer whether it has subcommands ({@link Subcommands}), counted each on its own
 */
public record CommandSpec(
    String name,
    int arity,
    List<String> flags,
    int firstKey,
    int lastKey,
    int step,
    String group,
    String summary,
    Handler handler,
    boolean isWrite,
    boolean isDenyOom,
    boolean isNoAuth,
    boolean isContainer) {

  public CommandSpec(
      String name,
      int arity,
      List<String> flags,
      int firstKey,
      int lastKey,
      int step,
      String group,
      String summary,
      Handler handler) {
    this(
        name,
        arity,
        flags,
        firstKey,
        lastKey,
        step,
        group,
        summary,
        handler,
        flags.contains("write"),
        flags.contains("denyoom"),
        flags.contains("noauth"),
        !Subcommands.of(name).isEmpty());
  }

  public boolean has(String flag) {
    return flags.contains(flag);
  }

  public boolean arityAccepts(int argc) {
    return arity >= 0 ? argc == arity : argc >= -arity;
  }

  /**
   * The position of the last key of a call of {@code argc} arguments ({@link #lastKey} resolved).
   */
  public int lastKeyIndex(int argc) {
    return lastKey < 0 ? argc + lastKey : lastKey;
  }
}
