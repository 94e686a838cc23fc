package dev.cellar.server.command;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The interpreter's type errors in Lua 5.1's words, which Redis's scripts show and clients match:
 * LuaJ says "attempt to call nil" where Lua 5.1 says "attempt to call a nil value". Lua 5.1 names
 * the variable when it knows it ("attempt to call global 'f' (a nil value)"); LuaJ keeps no such
 * names, so the generic form is given, which is also Lua 5.1's when the value has no name (a call
 * of what {@code loadstring} returned, for instance). Any other text is left as LuaJ wrote it.
 */
final class LuaErrorWords {
  private LuaErrorWords() {}

  private static final String TYPE = "(nil|boolean|number|string|table|function|userdata|thread)";

  /**
   * "attempt to call nil", "attempt to perform arithmetic '__add' on nil", "attempt to index ?".
   */
  private static final Pattern OPERATION =
      Pattern.compile(
          "attempt to (call|concatenate|get length of|perform arithmetic(?: '[^']*')? on|index \\?"
              + " \\(a) "
              + TYPE
              + "(?: value\\))?");

  /** "attempt to perform arithmetic __add on nil and number": Lua 5.1 names the bad operand. */
  private static final Pattern BINARY =
      Pattern.compile("attempt to perform arithmetic \\S+ on " + TYPE + " and " + TYPE);

  private static final Pattern COMPARE =
      Pattern.compile("attempt to compare " + TYPE + " with " + TYPE);

  /** {@code message}, an interpreter error without its position, as Lua 5.1 words it. */
  static String of(String message) {
    Matcher m = OPERATION.matcher(message);
    if (m.matches()) {
      String operation = m.group(1);
      if (operation.startsWith("perform arithmetic")) {
        operation = "perform arithmetic on";
      } else if (operation.startsWith("index")) {
        operation = "index";
      }
      return "attempt to " + operation + " a " + m.group(2) + " value";
    }
    Matcher b = BINARY.matcher(message);
    if (b.matches()) {
      String bad =
          b.group(1).equals("number") || b.group(1).equals("string") ? b.group(2) : b.group(1);
      return "attempt to perform arithmetic on a " + bad + " value";
    }
    Matcher c = COMPARE.matcher(message);
    if (c.matches() && c.group(1).equals(c.group(2))) {
      return "attempt to compare two " + c.group(1) + " values";
    }
    return message;
  }
}
