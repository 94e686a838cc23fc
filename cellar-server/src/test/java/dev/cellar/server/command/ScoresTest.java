package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The text of a number a script passes to a command: Redis 7.2's ({@code double2ll}, then {@code
 * fpconv_dtoa}), worked out from its source for each layout.
 */
class ScoresTest {
  @Test
  void numbersReadAsRedis72WritesThem() {
    String[][] cases = {
      {"42", "42"},
      {"-0.0", "0"},
      {"1e15", "1000000000000000"},
      {"4.0e18", "4000000000000000000"},
      {"1e19", "1e+19"},
      {"1.5e20", "1.5e+20"},
      {"1e300", "1e+300"},
      {"0.1", "0.1"},
      {"-2.5", "-2.5"},
      {"123456.789", "123456.789"},
      {"0.30000000000000004", "0.30000000000000004"},
      {"1e-5", "0.00001"},
      {"1.25e-6", "1.25e-6"},
      {"1.25e-5", "1.25e-5"},
      {"0.00125", "0.00125"},
      {"1e-7", "1e-7"},
      {"-1.5e-10", "-1.5e-10"},
      {"3.14159265358979", "3.14159265358979"}
    };
    for (String[] c : cases) {
      assertEquals(c[1], Scores.lua(Double.parseDouble(c[0])), c[0]);
    }
    assertEquals("nan", Scores.lua(Double.NaN));
    assertEquals("inf", Scores.lua(Double.POSITIVE_INFINITY));
    assertEquals("-inf", Scores.lua(Double.NEGATIVE_INFINITY));
  }
}
