package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * GEO commands as Redis 7.2 answers them (the examples of Redis's documentation and its errors):
 * the scores GEOADD stores, positions decoded from them, geohash strings, distances in each unit,
 * searches by radius and box around a point or a member, sorted and not, and what GEOSEARCHSTORE
 * and STORE write.
 */
class GeoConformanceTest extends AbstractConformanceTest {
  private static final String PALERMO = bulk("Palermo");
  private static final String CATANIA = bulk("Catania");
  private static final String PALERMO_AT =
      "*2\r\n" + bulk("13.36138933897018433") + bulk("38.11555639549629859");
  private static final String CATANIA_AT =
      "*2\r\n" + bulk("15.08726745843887329") + bulk("37.50266842333162032");

  @BeforeEach
  void sicily() throws IOException {
    assertEquals(
        integer(2),
        c.call(
            "GEOADD",
            "Sicily",
            "13.361389",
            "38.115556",
            "Palermo",
            "15.087269",
            "37.502669",
            "Catania"));
  }

  @Test
  void pointsAreSortedSetScores() throws IOException {
    assertEquals(bulk("3479099956230698"), c.call("ZSCORE", "Sicily", "Palermo"));
    assertEquals(simple("zset"), c.call("TYPE", "Sicily"));
    assertEquals("*2\r\n" + PALERMO_AT + "*-1\r\n", c.call("GEOPOS", "Sicily", "Palermo", "x"));
    assertEquals(
        "*3\r\n" + bulk("sqc8b49rny0") + bulk("sqdtr74hyu0") + NIL,
        c.call("GEOHASH", "Sicily", "Palermo", "Catania", "x"));
    assertEquals(integer(0), c.call("GEOADD", "Sicily", "XX", "13", "38", "Rome"));
    assertEquals(integer(1), c.call("GEOADD", "Sicily", "CH", "13", "38", "Palermo"));
    assertEquals(integer(0), c.call("GEOADD", "Sicily", "NX", "13.361389", "38.115556", "Palermo"));
  }

  @Test
  void distancesInEachUnit() throws IOException {
    assertEquals(bulk("166274.1516"), c.call("GEODIST", "Sicily", "Palermo", "Catania"));
    assertEquals(bulk("166.2742"), c.call("GEODIST", "Sicily", "Palermo", "Catania", "km"));
    assertEquals(bulk("103.3182"), c.call("GEODIST", "Sicily", "Palermo", "Catania", "MI"));
    assertEquals(bulk("545518.8700"), c.call("GEODIST", "Sicily", "Palermo", "Catania", "ft"));
    assertEquals(NIL, c.call("GEODIST", "Sicily", "Palermo", "Rome"));
    assertEquals(NIL, c.call("GEODIST", "nokey", "Palermo", "Catania"));
  }

  @Test
  void searchesByRadiusAndBox() throws IOException {
    assertEquals(
        "*2\r\n*3\r\n"
            + CATANIA
            + bulk("56.4413")
            + CATANIA_AT
            + "*3\r\n"
            + PALERMO
            + bulk("190.4424")
            + PALERMO_AT,
        c.call("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHCOORD", "ASC"));
    assertEquals(
        "*1\r\n" + CATANIA, c.call("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "1"));
    assertEquals(
        "*2\r\n*2\r\n" + PALERMO + bulk("190.4424") + "*2\r\n" + CATANIA + bulk("56.4413"),
        c.call(
            "GEOSEARCH",
            "Sicily",
            "FROMLONLAT",
            "15",
            "37",
            "BYBOX",
            "400",
            "400",
            "km",
            "DESC",
            "WITHDIST"));
    assertEquals(
        "*2\r\n*2\r\n"
            + PALERMO
            + ":3479099956230698\r\n*2\r\n"
            + CATANIA
            + ":3479447370796909\r\n",
        c.call("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "WITHHASH", "ASC"));
    assertEquals(
        "*0\r\n", c.call("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "m"));
    assertEquals("*0\r\n", c.call("GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "m"));
  }

  @Test
  void storingSearches() throws IOException {
    assertEquals(
        integer(2),
        c.call(
            "GEOSEARCHSTORE",
            "dst",
            "Sicily",
            "FROMMEMBER",
            "Palermo",
            "BYRADIUS",
            "200",
            "km",
            "STOREDIST"));
    assertEquals(
        "*4\r\n" + PALERMO + bulk("0") + CATANIA + bulk("166.27415156960032"),
        c.call("ZRANGE", "dst", "0", "-1", "WITHSCORES"));
    assertEquals(
        integer(1), c.call("GEORADIUS", "Sicily", "15", "37", "100", "km", "STORE", "near"));
    assertEquals(
        "*2\r\n" + CATANIA + bulk("3479447370796909"),
        c.call("ZRANGE", "near", "0", "-1", "WITHSCORES"));
    assertEquals(integer(0), c.call("GEORADIUS", "Sicily", "0", "0", "1", "km", "STORE", "near"));
    assertEquals(integer(0), c.call("EXISTS", "near"), "an empty result deletes the target");
  }

  @Test
  void errorsAsRedisWordsThem() throws IOException {
    assertEquals(
        error("ERR invalid longitude,latitude pair 200.000000,100.000000"),
        c.call("GEOADD", "Sicily", "200", "100", "x"));
    assertEquals(SYNTAX, c.call("GEOADD", "Sicily", "NX", "XX", "13", "38", "x"));
    assertEquals(
        error("ERR unsupported unit provided. please use M, KM, FT, MI"),
        c.call("GEORADIUS", "Sicily", "15", "37", "200", "yd"));
    assertEquals(
        error("ERR radius cannot be negative"),
        c.call("GEORADIUS", "Sicily", "15", "37", "-1", "km"));
    assertEquals(
        error("ERR could not decode requested zset member"),
        c.call("GEOSEARCH", "Sicily", "FROMMEMBER", "nope", "BYRADIUS", "1", "km"));
    assertEquals(
        error("ERR height or width cannot be negative"),
        c.call("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "-1", "1", "km"));
    assertEquals(
        error("ERR the ANY argument requires COUNT argument"),
        c.call("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ANY"));
    assertEquals(
        error("ERR COUNT must be > 0"),
        c.call("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "0"));
    assertEquals(
        error(
            "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD"
                + " options"),
        c.call("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d", "WITHDIST"));
    assertEquals(
        error("ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH"),
        c.call("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "WITHDIST", "ASC"));
    assertEquals(SYNTAX, c.call("GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STORE", "d"));
    c.call("SET", "s", "x");
    assertEquals(
        error("WRONGTYPE Operation against a key holding the wrong kind of value"),
        c.call("GEOPOS", "s", "a"));
  }
}
