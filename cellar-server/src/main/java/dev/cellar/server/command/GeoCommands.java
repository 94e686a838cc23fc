package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;

import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.SortedMembers;
import dev.cellar.server.collection.SortedMembers.Entry;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * GEOADD, GEOPOS, GEODIST, GEOHASH, GEORADIUS, GEORADIUSBYMEMBER (and their read-only forms),
 * GEOSEARCH and GEOSEARCHSTORE: points kept in a sorted set, each scored with its 52-bit geohash
 * ({@link GeoHash}), as Redis 7.2 keeps them, with its replies and errors. GEOADD is ZADD of those
 * scores. A search scans the score ranges of the cells {@link GeoHash#cells} picks, in Redis's
 * order, keeps the points inside the shape, and sorts by distance when asked (or when COUNT is
 * given without ANY); the sort is stable, where Redis's {@code qsort} leaves equal distances in no
 * set order.
 */
final class GeoCommands {
  private GeoCommands() {}

  private static final int BY_COORDS = 1;
  private static final int BY_MEMBER = 2;
  private static final int NO_STORE = 4;
  private static final int SEARCH = 8;
  private static final int SEARCH_STORE = 16;

  static void register(CommandTable t) {
    t.add(
            "geoadd",
            -5,
            "write denyoom",
            1,
            1,
            1,
            "geo",
            "Adds one or more members to a geospatial index. The key is created if it doesn't"
                + " exist.",
            GeoCommands::geoadd)
        .add(
            "geopos",
            -2,
            "readonly",
            1,
            1,
            1,
            "geo",
            "Returns the longitude and latitude of members from a geospatial index.",
            GeoCommands::geopos)
        .add(
            "geohash",
            -2,
            "readonly",
            1,
            1,
            1,
            "geo",
            "Returns members from a geospatial index as geohash strings.",
            GeoCommands::geohash)
        .add(
            "geodist",
            -4,
            "readonly",
            1,
            1,
            1,
            "geo",
            "Returns the distance between two members of a geospatial index.",
            GeoCommands::geodist)
        .add(
            "georadius",
            -6,
            "write denyoom movablekeys",
            1,
            1,
            1,
            "geo",
            "Queries a geospatial index for members within a distance from a coordinate,"
                + " optionally stores the result.",
            (s, r, o) -> search(s, r, o, 1, BY_COORDS))
        .add(
            "georadius_ro",
            -6,
            "readonly",
            1,
            1,
            1,
            "geo",
            "Returns members from a geospatial index that are within a distance from a"
                + " coordinate.",
            (s, r, o) -> search(s, r, o, 1, BY_COORDS | NO_STORE))
        .add(
            "georadiusbymember",
            -5,
            "write denyoom movablekeys",
            1,
            1,
            1,
            "geo",
            "Queries a geospatial index for members within a distance from a member, optionally"
                + " stores the result.",
            (s, r, o) -> search(s, r, o, 1, BY_MEMBER))
        .add(
            "georadiusbymember_ro",
            -5,
            "readonly",
            1,
            1,
            1,
            "geo",
            "Returns members from a geospatial index that are within a distance from a member.",
            (s, r, o) -> search(s, r, o, 1, BY_MEMBER | NO_STORE))
        .add(
            "geosearch",
            -7,
            "readonly",
            1,
            1,
            1,
            "geo",
            "Queries a geospatial index for members inside an area of a box or a circle.",
            (s, r, o) -> search(s, r, o, 1, SEARCH))
        .add(
            "geosearchstore",
            -8,
            "write denyoom",
            1,
            2,
            1,
            "geo",
            "Queries a geospatial index for members inside an area of a box or a circle,"
                + " optionally stores the result.",
            (s, r, o) -> search(s, r, o, 2, SEARCH | SEARCH_STORE));
  }

  // ------------------------------------------------------------------ GEOADD and the lookups

  /** GEOADD: ZADD with each point's score, its options (NX, XX, CH) passed on. */
  static void geoadd(Session s, Request r, ReplyWriter out) {
    int first = 2;
    boolean nx = false;
    boolean xx = false;
    while (first < r.argc()) {
      if (r.is(first, "nx")) {
        nx = true;
      } else if (r.is(first, "xx")) {
        xx = true;
      } else if (!r.is(first, "ch")) {
        break;
      }
      first++;
    }
    if ((r.argc() - first) % 3 != 0 || (xx && nx)) {
      throw CommandError.SYNTAX;
    }
    int points = (r.argc() - first) / 3;
    byte[][] zadd = new byte[first + 2 * points][];
    zadd[0] = "zadd".getBytes(StandardCharsets.US_ASCII);
    for (int i = 1; i < first; i++) {
      zadd[i] = r.bytes(i);
    }
    for (int p = 0; p < points; p++) {
      int at = first + 3 * p;
      double[] xy = lonLat(r, at);
      long score = GeoHash.score(xy[0], xy[1]);
      zadd[first + 2 * p] = Long.toString(score).getBytes(StandardCharsets.US_ASCII);
      zadd[first + 2 * p + 1] = r.bytes(at + 2);
    }
    Request asZadd = new Request();
    asZadd.set(zadd);
    ZSetCommands.zadd(s, asZadd, out);
  }

  static void geopos(Session s, Request r, ReplyWriter out) {
    SortedMembers z = ZSetCommands.read(s, r.bytes(1));
    out.array(r.argc() - 2);
    for (int i = 2; i < r.argc(); i++) {
      Double score = z.exists() ? z.score(r.bytes(i)) : null;
      if (score == null) {
        out.nullArray();
      } else {
        double[] xy = GeoHash.position(score);
        out.array(2);
        coordinate(out, xy[0]);
        coordinate(out, xy[1]);
      }
    }
  }

  static void geohash(Session s, Request r, ReplyWriter out) {
    SortedMembers z = ZSetCommands.read(s, r.bytes(1));
    out.array(r.argc() - 2);
    for (int i = 2; i < r.argc(); i++) {
      Double score = z.exists() ? z.score(r.bytes(i)) : null;
      if (score == null) {
        out.nullBulk();
      } else {
        out.bulk(GeoHash.standard(score));
      }
    }
  }

  static void geodist(Session s, Request r, ReplyWriter out) {
    double toMeters = 1;
    if (r.argc() == 5) {
      toMeters = unit(r, 4);
    } else if (r.argc() > 5) {
      throw CommandError.SYNTAX;
    }
    SortedMembers z = ZSetCommands.read(s, r.bytes(1));
    Double a = z.exists() ? z.score(r.bytes(2)) : null;
    Double b = a == null ? null : z.score(r.bytes(3));
    if (b == null) {
      out.nullBulk();
      return;
    }
    double[] p = GeoHash.position(a);
    double[] q = GeoHash.position(b);
    distance(out, GeoHash.distance(p[0], p[1], q[0], q[1]) / toMeters);
  }

  // ------------------------------------------------------------------ searches

  /** A point found: its member, score, position and distance from the centre (in metres). */
  private record Found(byte[] member, double score, double lon, double lat, double distance) {}

  /** The options of a search, as parsed. */
  private static final class Options {
    boolean withDist;
    boolean withHash;
    boolean withCoord;
    boolean any;
    int sort; // 0 none, 1 ascending, 2 descending
    long count;
    byte[] storeKey;
    boolean storeDist;
    boolean fromMember;
    boolean fromLonLat;
    boolean byRadius;
    boolean byBox;
  }

  /** Redis's {@code georadiusGeneric}: every search command, by its flags. */
  static void search(Session s, Request r, ReplyWriter out, int sourceAt, int flags) {
    ServerContext server = s.server();
    Options o = new Options();
    byte[] store = storeKeyOf(r, flags);
    if ((flags & SEARCH_STORE) != 0) {
      o.storeKey = store;
    }
    int[] stripes =
        store == null
            ? new int[] {stripe(r, sourceAt)}
            : new int[] {stripe(r, sourceAt), KeyLocks.stripe(store, 0, store.length)};
    int locked = server.locks().lockAll(stripes, stripes.length);
    try {
      ElementEdits edits = server.edits();
      SortedMembers z = ZSetCommands.open(edits, r.bytes(sourceAt));
      boolean exists = z.exists();
      double[] centre = new double[2];
      double radius = 0;
      double width = 0;
      double height = 0;
      double conversion = 1;
      int base;
      if ((flags & BY_COORDS) != 0) {
        base = 6;
        centre = lonLat(r, 2);
        radius = radius(r, 4);
        conversion = unit(r, 5);
        o.byRadius = true;
      } else if ((flags & BY_MEMBER) != 0) {
        base = 5;
        if (exists) {
          centre = memberPosition(z, r.bytes(2));
          radius = radius(r, 3);
          conversion = unit(r, 4);
        }
        o.byRadius = true;
      } else {
        base = (flags & SEARCH_STORE) != 0 ? 3 : 2;
      }
      int remaining = r.argc() - base;
      for (int j = 0; j < remaining; j++) {
        int at = base + j;
        if (r.is(at, "withdist")) {
          o.withDist = true;
        } else if (r.is(at, "withhash")) {
          o.withHash = true;
        } else if (r.is(at, "withcoord")) {
          o.withCoord = true;
        } else if (r.is(at, "any")) {
          o.any = true;
        } else if (r.is(at, "asc")) {
          o.sort = 1;
        } else if (r.is(at, "desc")) {
          o.sort = 2;
        } else if (r.is(at, "count") && j + 1 < remaining) {
          if (!r.isLong(at + 1)) {
            throw CommandError.NOT_INTEGER;
          }
          o.count = r.longValue(at + 1);
          if (o.count <= 0) {
            throw new CommandError("ERR COUNT must be > 0");
          }
          j++;
        } else if ((r.is(at, "store") || r.is(at, "storedist"))
            && j + 1 < remaining
            && (flags & (NO_STORE | SEARCH)) == 0) {
          o.storeKey = r.bytes(at + 1);
          o.storeDist = r.is(at, "storedist");
          j++;
        } else if (r.is(at, "storedist") && (flags & SEARCH_STORE) != 0) {
          o.storeDist = true;
        } else if (r.is(at, "frommember")
            && j + 1 < remaining
            && (flags & SEARCH) != 0
            && !o.fromLonLat) {
          if (exists) {
            centre = memberPosition(z, r.bytes(at + 1));
          }
          o.fromMember = true;
          j++;
        } else if (r.is(at, "fromlonlat")
            && j + 2 < remaining
            && (flags & SEARCH) != 0
            && !o.fromMember) {
          centre = lonLat(r, at + 1);
          o.fromLonLat = true;
          j += 2;
        } else if (r.is(at, "byradius") && j + 2 < remaining && (flags & SEARCH) != 0 && !o.byBox) {
          radius = radius(r, at + 1);
          conversion = unit(r, at + 2);
          o.byRadius = true;
          j += 2;
        } else if (r.is(at, "bybox") && j + 3 < remaining && (flags & SEARCH) != 0 && !o.byRadius) {
          width = dimension(r, at + 1, "ERR need numeric width");
          height = dimension(r, at + 2, "ERR need numeric height");
          if (width < 0 || height < 0) {
            throw new CommandError("ERR height or width cannot be negative");
          }
          conversion = unit(r, at + 3);
          o.byBox = true;
          j += 3;
        } else {
          throw CommandError.SYNTAX;
        }
      }
      if (o.storeKey != null && (o.withDist || o.withHash || o.withCoord)) {
        throw new CommandError(
            "ERR "
                + ((flags & SEARCH_STORE) != 0 ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS")
                + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
      }
      if ((flags & SEARCH) != 0 && !(o.fromMember || o.fromLonLat)) {
        throw new CommandError(
            "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + r.string(0));
      }
      if ((flags & SEARCH) != 0 && !(o.byRadius || o.byBox)) {
        throw new CommandError(
            "ERR exactly one of BYRADIUS and BYBOX can be specified for " + r.string(0));
      }
      if (o.any && o.count == 0) {
        throw new CommandError("ERR the ANY argument requires COUNT argument");
      }
      if (!exists) {
        if (o.storeKey != null) {
          ZSetAlgebra.replace(server, edits, o.storeKey, List.of(), storeEvent(flags));
          out.integer(0);
        } else {
          out.array(0);
        }
        return;
      }
      if (o.count != 0 && o.sort == 0 && !o.any) {
        o.sort = 1;
      }
      GeoHash.Shape shape =
          new GeoHash.Shape(centre[0], centre[1], o.byRadius, radius, width, height, conversion);
      List<Found> found =
          scan(z, shape, o.any ? o.count : 0, r.string(0).toUpperCase(java.util.Locale.ROOT));
      if (o.sort != 0) {
        Comparator<Found> byDistance = Comparator.comparingDouble(Found::distance);
        found.sort(o.sort == 1 ? byDistance : byDistance.reversed());
      }
      int returned = (int) (o.count == 0 ? found.size() : Math.min(found.size(), o.count));
      if (o.storeKey == null) {
        reply(out, found.subList(0, returned), o, conversion);
      } else {
        List<Entry> entries = new ArrayList<>(returned);
        for (Found f : found.subList(0, returned)) {
          entries.add(new Entry(o.storeDist ? f.distance() / conversion : f.score(), f.member()));
        }
        entries.sort((a, b) -> SortedMembers.compare(a.score(), a.member(), b.score(), b.member()));
        ZSetAlgebra.replace(server, edits, o.storeKey, entries, storeEvent(flags));
        out.integer(returned);
      }
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  /** The key a search will store into, found before its locks are taken (null: none). */
  private static byte[] storeKeyOf(Request r, int flags) {
    if ((flags & SEARCH_STORE) != 0) {
      return r.bytes(1);
    }
    if ((flags & (NO_STORE | SEARCH)) != 0) {
      return null;
    }
    byte[] key = null;
    for (int i = 2; i + 1 < r.argc(); i++) {
      if (r.is(i, "store") || r.is(i, "storedist")) {
        key = r.bytes(i + 1);
      }
    }
    return key;
  }

  private static String storeEvent(int flags) {
    return (flags & SEARCH) != 0 ? "geosearchstore" : "georadiusstore";
  }

  /**
   * The points of {@code z} inside {@code shape}: each cell's score range in turn, in score order,
   * a cell the same as the one scanned before it skipped (as Redis, which compares only from the
   * second cell scanned on); with {@code limit} (ANY), it stops once it has that many.
   */
  private static List<Found> scan(
      SortedMembers z, GeoHash.Shape shape, long limit, String command) {
    List<Found> found = new ArrayList<>();
    ResultBudget budget = new ResultBudget(command);
    GeoHash.Bits[] cells = GeoHash.cells(shape).inOrder();
    int lastProcessed = 0;
    for (int i = 0; i < cells.length; i++) {
      GeoHash.Bits cell = cells[i];
      if (cell.isZero()) {
        continue;
      }
      if (lastProcessed != 0 && cell.equals(cells[lastProcessed])) {
        continue;
      }
      if (limit != 0 && found.size() >= limit) {
        break;
      }
      double[] range = GeoHash.scoreRange(cell);
      long from = z.countBelow((score, member) -> score < range[0]);
      long to = z.countBelow((score, member) -> score < range[1]) - 1;
      for (long rank = from; rank <= to; rank += 64) {
        boolean[] full = {false};
        z.range(
            rank,
            Math.min(to, rank + 63),
            false,
            e -> {
              if (full[0]) {
                return;
              }
              double[] xy = GeoHash.position(e.score());
              double d = GeoHash.within(shape, xy[0], xy[1]);
              if (d >= 0) {
                budget.add(e.member().length + 48L); // and the record's five fields
                found.add(new Found(e.member(), e.score(), xy[0], xy[1], d));
              }
              full[0] = limit != 0 && found.size() >= limit;
            });
        if (full[0]) {
          break;
        }
      }
      lastProcessed = i;
    }
    return found;
  }

  private static void reply(ReplyWriter out, List<Found> found, Options o, double conversion) {
    int options = (o.withDist ? 1 : 0) + (o.withCoord ? 1 : 0) + (o.withHash ? 1 : 0);
    out.array(found.size());
    for (Found f : found) {
      if (options > 0) {
        out.array(options + 1);
      }
      out.bulk(f.member());
      if (o.withDist) {
        distance(out, f.distance() / conversion);
      }
      if (o.withHash) {
        out.integer((long) f.score());
      }
      if (o.withCoord) {
        out.array(2);
        coordinate(out, f.lon());
        coordinate(out, f.lat());
      }
    }
  }

  // ------------------------------------------------------------------ arguments and replies

  /** The longitude and latitude at arguments {@code at} and {@code at + 1}, checked. */
  private static double[] lonLat(Request r, int at) {
    double lon = Scores.parse(r.bytes(at));
    double lat = Scores.parse(r.bytes(at + 1));
    if (!GeoHash.valid(lon, lat)) {
      throw new CommandError(
          String.format(
              java.util.Locale.ROOT, "ERR invalid longitude,latitude pair %f,%f", lon, lat));
    }
    return new double[] {lon, lat};
  }

  private static double[] memberPosition(SortedMembers z, byte[] member) {
    Double score = z.score(member);
    if (score == null) {
      throw new CommandError("ERR could not decode requested zset member");
    }
    return GeoHash.position(score);
  }

  private static double radius(Request r, int at) {
    Double d = Scores.tryParse(r.bytes(at));
    if (d == null) {
      throw new CommandError("ERR need numeric radius");
    }
    if (d < 0) {
      throw new CommandError("ERR radius cannot be negative");
    }
    return d;
  }

  private static double dimension(Request r, int at, String error) {
    Double d = Scores.tryParse(r.bytes(at));
    if (d == null) {
      throw new CommandError(error);
    }
    return d;
  }

  /** Metres per unit: m, km, ft, mi. */
  private static double unit(Request r, int at) {
    if (r.is(at, "m")) {
      return 1;
    } else if (r.is(at, "km")) {
      return 1000;
    } else if (r.is(at, "ft")) {
      return 0.3048;
    } else if (r.is(at, "mi")) {
      return 1609.34;
    }
    throw new CommandError("ERR unsupported unit provided. please use M, KM, FT, MI");
  }

  /** A distance with four decimals, rounded half to even as Redis's {@code llrint} rounds. */
  private static void distance(ReplyWriter out, double d) {
    long scaled = (long) Math.rint(d * 10000.0);
    String digits = Long.toString(Math.abs(scaled));
    if (digits.length() < 5) {
      digits = "0".repeat(5 - digits.length()) + digits;
    }
    int point = digits.length() - 4;
    out.bulk((scaled < 0 ? "-" : "") + digits.substring(0, point) + "." + digits.substring(point));
  }

  /** A coordinate as Redis's {@code addReplyHumanLongDouble}: {@code "%.17Lf"}, zeros dropped. */
  private static void coordinate(ReplyWriter out, double d) {
    out.doubleValue(LongDouble.format(new BigDecimal(d)));
  }
}
