package dev.cellar.server.command;

/**
 * A command failed in a way the client caused (syntax, arity, a value that is not a number): the
 * reply is {@code -<text>} and the connection stays usable. The text starts with Redis's error code
 * ({@code ERR}, {@code WRONGTYPE}, {@code NOAUTH}, {@code OOM}, ...), since clients dispatch on it.
 * No stack trace: these are answers, not bugs.
 */
public final class CommandError extends RuntimeException {
  public CommandError(String text) {
    super(text, null, false, false);
  }

  public static final CommandError SYNTAX = new CommandError("ERR syntax error");
  public static final CommandError NOT_INTEGER =
      new CommandError("ERR value is not an integer or out of range");
  public static final CommandError NOT_FLOAT = new CommandError("ERR value is not a valid float");
  public static final CommandError OVERFLOW =
      new CommandError("ERR increment or decrement would overflow");
  public static final CommandError NO_SUCH_KEY = new CommandError("ERR no such key");
  public static final CommandError WRONG_TYPE =
      new CommandError("WRONGTYPE Operation against a key holding the wrong kind of value");

  public static CommandError arity(String command) {
    return new CommandError("ERR wrong number of arguments for '" + command + "' command");
  }

  public static CommandError invalidExpire(String command) {
    return new CommandError("ERR invalid expire time in '" + command + "' command");
  }
}
