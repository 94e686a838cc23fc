package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** LuaJ's type errors, each as Lua 5.1 (and so Redis) words it; other texts unchanged. */
class LuaErrorWordsTest {
  @Test
  void typeErrorsTakeLua51Words() {
    String[][] cases = {
      {"attempt to call nil", "attempt to call a nil value"},
      {"attempt to call table", "attempt to call a table value"},
      {"attempt to concatenate boolean", "attempt to concatenate a boolean value"},
      {"attempt to get length of number", "attempt to get length of a number value"},
      {"attempt to perform arithmetic on nil", "attempt to perform arithmetic on a nil value"},
      {
        "attempt to perform arithmetic '__unm' on table",
        "attempt to perform arithmetic on a table value"
      },
      {
        "attempt to perform arithmetic __add on nil and number",
        "attempt to perform arithmetic on a nil value"
      },
      {
        "attempt to perform arithmetic __mul on number and table",
        "attempt to perform arithmetic on a table value"
      },
      {"attempt to index ? (a nil value)", "attempt to index a nil value"},
      {"attempt to compare nil with number", "attempt to compare nil with number"},
      {"attempt to compare table with table", "attempt to compare two table values"},
      {"index expected, got nil", "index expected, got nil"},
      {"boom", "boom"},
    };
    for (String[] c : cases) {
      assertEquals(c[1], LuaErrorWords.of(c[0]), c[0]);
    }
  }
}
