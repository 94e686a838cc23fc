package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * INCRBYFLOAT's arithmetic against replies captured from Redis 7.0.15 on x86-64 ({@code redis-cli
 * INCRBYFLOAT k <increment>} on a missing key, or on the given start value).
 */
class LongDoubleTest {

  private static String incr(String start, String increment) {
    BigDecimal sum = LongDouble.parse(bytes(start)).add(LongDouble.parse(bytes(increment)));
    return LongDouble.format(LongDouble.round(sum));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @ParameterizedTest
  @CsvSource({
    "0, 1e-20, 0",
    "0, 1.5e-10, 0.00000000015",
    "0, 123456789012345678, 123456789012345678",
    "0, 1e30, 1000000000000000000024696061952",
    "0, 0.123456789012345678901, 0.12345678901234568",
    "0, 3.0000000000000000001, 3",
    "0, +1.5, 1.5",
    "0, 1., 1",
    "0, .5, 0.5",
    "0.1, 0.2, 0.3",
    "10.50, 0.1, 10.6",
    "10.6, -5, 5.6",
    "5.0e3, 2.0e2, 5200",
    "1, -1, 0",
    "-0.0, 0, 0",
  })
  void matchesRedis(String start, String increment, String redis) {
    assertEquals(redis, incr(start, increment));
  }

  @Test
  void hugeValuesPrintEveryIntegerDigitOfTheExtendedValue() {
    String redis1e4000Head =
        "99999999999999999999654638730996237849324925835069576313015083330432619433063423554818216418655092";
    String redis1e4000Tail = "272729951206648276349901340672";
    String once = incr("0", "1e4000");
    assertEquals(4000, once.length());
    assertTrue(once.startsWith(redis1e4000Head), once.substring(0, 100));
    assertTrue(once.endsWith(redis1e4000Tail), once.substring(once.length() - 40));
    String twice = incr(once, "1e4000");
    assertTrue(
        twice.startsWith(
            "1999999999999999999993092774619924756986498516701391526260301666608652388661268471096364328373101855"),
        twice.substring(0, 100));
    assertEquals(4001, twice.length());
    assertTrue(
        twice.endsWith("545459902413296552699802681344"), twice.substring(twice.length() - 40));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "", " 1", "1 ", "abc", "1e", "--1", "+-1", "nan", "NaN", "1e5000", "-1e5000", "1e-5000",
        "0x10", "1,5"
      })
  void refusesWhatStrtoldRefusesOrRedisRejects(String text) {
    assertSame(
        CommandError.NOT_FLOAT,
        assertThrows(CommandError.class, () -> LongDouble.parse(bytes(text))));
  }

  @ParameterizedTest
  @ValueSource(strings = {"inf", "-inf", "+INF", "Infinity", "-infinity"})
  void infinitiesParseForTheCallerToRefuse(String text) {
    assertNull(LongDouble.parse(bytes(text)));
  }

  @Test
  void overflowRoundsToNothing() {
    BigDecimal max = LongDouble.parse(bytes("1.18973149535723176502e4932"));
    assertNull(LongDouble.round(max.multiply(BigDecimal.TWO)));
    assertEquals(max, LongDouble.round(max));
  }

  @Test
  void refusesTextsOfFiveKibibytesOrMore() {
    String longest = "1." + "0".repeat(5 * 1024 - 3);
    assertEquals("1", LongDouble.format(LongDouble.parse(bytes(longest))));
    assertThrows(CommandError.class, () -> LongDouble.parse(bytes(longest + "0")));
  }
}
