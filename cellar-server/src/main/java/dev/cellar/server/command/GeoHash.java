package dev.cellar.server.command;

/**
 * Redis's geohash (specified in {@code docs/format/geo.md}; this class is the only place that knows
 * it): a point's longitude and latitude as a 52-bit score of a sorted set, and the areas and
 * distances the GEO commands search with. Every step is Redis 7.2's, in the same double arithmetic,
 * so that scores, decoded positions, the cells a search visits (and so the order of an unsorted
 * answer) and distances come out the same.
 *
 * <p>A hash of {@code step} bits per axis interleaves the latitude's offset in its range (even
 * bits) with the longitude's (odd bits); the latitude range is Web Mercator's, ±85.05112878, so the
 * poles cannot be stored. A score is the 26-step hash; a search estimates a coarser step from its
 * radius, takes the cell of its centre and the eight around it, and scans each cell's score range.
 */
final class GeoHash {
  private GeoHash() {}

  static final int STEP_MAX = 26;
  static final double LAT_MIN = -85.05112878;
  static final double LAT_MAX = 85.05112878;
  static final double LONG_MIN = -180;
  static final double LONG_MAX = 180;

  private static final double D_R = Math.PI / 180.0;
  private static final double EARTH_RADIUS_IN_METERS = 6372797.560856;
  private static final double MERCATOR_MAX = 20037726.37;

  /** A hash: {@code bits} of {@code step} bits per axis; step 0 marks an empty one. */
  record Bits(long bits, int step) {
    boolean isZero() {
      return bits == 0 && step == 0;
    }
  }

  /** A cell's corners. */
  record Area(double longMin, double longMax, double latMin, double latMax) {}

  /** The shape a search covers: a circle of {@code radius}, or a box of width and height. */
  record Shape(
      double longitude,
      double latitude,
      boolean circle,
      double radius,
      double width,
      double height,
      double conversion) {}

  /** The cells a search scans: its centre's and the eight around it (empty ones skipped). */
  record Cells(Bits centre, Bits[] neighbours) {
    /** In Redis's order: centre, N, S, E, W, NE, NW, SE, SW. */
    Bits[] inOrder() {
      Bits[] all = new Bits[9];
      all[0] = centre;
      System.arraycopy(neighbours, 0, all, 1, 8);
      return all;
    }
  }

  private static final int NORTH = 0;
  private static final int SOUTH = 1;
  private static final int EAST = 2;
  private static final int WEST = 3;
  private static final int NORTH_EAST = 4;
  private static final int NORTH_WEST = 5;
  private static final int SOUTH_EAST = 6;
  private static final int SOUTH_WEST = 7;

  // ------------------------------------------------------------------ encoding

  /** The score of a point: its 26-step hash, left-aligned to 52 bits. */
  static long score(double longitude, double latitude) {
    Bits hash = encode(LONG_MIN, LONG_MAX, LAT_MIN, LAT_MAX, longitude, latitude, STEP_MAX);
    return align52(hash);
  }

  /** Whether a point can be stored (Redis's range check of GEOADD and the searches). */
  static boolean valid(double longitude, double latitude) {
    return !(longitude < LONG_MIN
        || longitude > LONG_MAX
        || latitude < LAT_MIN
        || latitude > LAT_MAX);
  }

  /** The hash of a point in the given ranges, or null if it is outside them. */
  static Bits encode(
      double longMin,
      double longMax,
      double latMin,
      double latMax,
      double longitude,
      double latitude,
      int step) {
    if (!valid(longitude, latitude)
        || latitude < latMin
        || latitude > latMax
        || longitude < longMin
        || longitude > longMax) {
      return null;
    }
    double latOffset = (latitude - latMin) / (latMax - latMin);
    double longOffset = (longitude - longMin) / (longMax - longMin);
    latOffset *= (double) (1L << step);
    longOffset *= (double) (1L << step);
    return new Bits(interleave(uint32(latOffset), uint32(longOffset)), step);
  }

  /** C's conversion of a non-negative double to {@code uint32_t}: truncation. */
  private static long uint32(double d) {
    return ((long) d) & 0xFFFFFFFFL;
  }

  static long align52(Bits hash) {
    return hash.bits() << (52 - hash.step() * 2);
  }

  private static long interleave(long x, long y) {
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFL;
    y = (y | (y << 16)) & 0x0000FFFF0000FFFFL;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFL;
    y = (y | (y << 8)) & 0x00FF00FF00FF00FFL;
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FL;
    y = (y | (y << 4)) & 0x0F0F0F0F0F0F0F0FL;
    x = (x | (x << 2)) & 0x3333333333333333L;
    y = (y | (y << 2)) & 0x3333333333333333L;
    x = (x | (x << 1)) & 0x5555555555555555L;
    y = (y | (y << 1)) & 0x5555555555555555L;
    return x | (y << 1);
  }

  private static long deinterleave(long interleaved) {
    long x = interleaved & 0x5555555555555555L;
    long y = (interleaved >>> 1) & 0x5555555555555555L;
    x = (x | (x >>> 1)) & 0x3333333333333333L;
    y = (y | (y >>> 1)) & 0x3333333333333333L;
    x = (x | (x >>> 2)) & 0x0F0F0F0F0F0F0F0FL;
    y = (y | (y >>> 2)) & 0x0F0F0F0F0F0F0F0FL;
    x = (x | (x >>> 4)) & 0x00FF00FF00FF00FFL;
    y = (y | (y >>> 4)) & 0x00FF00FF00FF00FFL;
    x = (x | (x >>> 8)) & 0x0000FFFF0000FFFFL;
    y = (y | (y >>> 8)) & 0x0000FFFF0000FFFFL;
    x = (x | (x >>> 16)) & 0x00000000FFFFFFFFL;
    y = (y | (y >>> 16)) & 0x00000000FFFFFFFFL;
    return x | (y << 32);
  }

  // ------------------------------------------------------------------ decoding

  /** The cell of a hash in the given ranges. */
  static Area decode(double longMin, double longMax, double latMin, double latMax, Bits hash) {
    long separated = deinterleave(hash.bits());
    double latScale = latMax - latMin;
    double longScale = longMax - longMin;
    long lat = separated & 0xFFFFFFFFL;
    long lon = separated >>> 32;
    double cells = (double) (1L << hash.step());
    // C adds 1 in uint32_t, which wraps: a score past 52 bits can hold the largest cell number.
    return new Area(
        longMin + (lon * 1.0 / cells) * longScale,
        longMin + (((lon + 1) & 0xFFFFFFFFL) * 1.0 / cells) * longScale,
        latMin + (lat * 1.0 / cells) * latScale,
        latMin + (((lat + 1) & 0xFFFFFFFFL) * 1.0 / cells) * latScale);
  }

  private static Area decode(Bits hash) {
    return decode(LONG_MIN, LONG_MAX, LAT_MIN, LAT_MAX, hash);
  }

  /** The point a score stands for: its cell's centre, within the valid ranges; {lon, lat}. */
  static double[] position(double score) {
    Area area = decode(new Bits(toUint64(score), STEP_MAX));
    double lon = (area.longMin() + area.longMax()) / 2;
    lon = Math.min(LONG_MAX, Math.max(LONG_MIN, lon));
    double lat = (area.latMin() + area.latMax()) / 2;
    lat = Math.min(LAT_MAX, Math.max(LAT_MIN, lat));
    return new double[] {lon, lat};
  }

  /**
   * C's conversion of a double to {@code uint64_t} as x86-64 code does it, for any score a sorted
   * set may hold (ZADD can give a GEO key any score): truncation below 2^63, negative numbers
   * included (two's complement); 2^63 to 2^64 by way of the sign bit; 0 from 2^64 up.
   */
  private static long toUint64(double d) {
    if (d >= 0x1p63) {
      return d >= 0x1p64 ? 0 : ((long) (d - 0x1p63)) ^ Long.MIN_VALUE;
    }
    return (long) d; // -inf and below -2^63: Long.MIN_VALUE, as cvttsd2si gives
  }

  /** The 11-character standard geohash of a score (latitude over ±90, the last character 0). */
  static String standard(double score) {
    double[] xy = position(score);
    Bits hash = encode(-180, 180, -90, 90, xy[0], xy[1], STEP_MAX);
    String alphabet = "0123456789bcdefghjkmnpqrstuvwxyz";
    char[] out = new char[11];
    for (int i = 0; i < 11; i++) {
      int idx = i == 10 ? 0 : (int) ((hash.bits() >>> (52 - ((i + 1) * 5))) & 0x1f);
      out[i] = alphabet.charAt(idx);
    }
    return new String(out);
  }

  // ------------------------------------------------------------------ searching

  private static final long ODD_BITS = 0xaaaaaaaaaaaaaaaaL; // longitude
  private static final long EVEN_BITS = 0x5555555555555555L; // latitude

  private static Bits moveX(Bits hash, int d) {
    return move(hash, d, ODD_BITS);
  }

  private static Bits moveY(Bits hash, int d) {
    return move(hash, d, EVEN_BITS);
  }

  /**
   * The hash one cell along the axis whose bits {@code axis} masks ({@code d} of +1 or -1; 0
   * stays): that axis's interleaved number incremented or decremented with carries through the
   * other axis's bits, wrapping at the edge, as Redis's {@code geohash_move_x}/{@code _y}.
   */
  private static Bits move(Bits hash, int d, long axis) {
    if (d == 0) {
      return hash;
    }
    long other = ~axis;
    long moving = hash.bits() & axis;
    long staying = hash.bits() & other;
    int unused = 64 - hash.step() * 2;
    long zz = other >>> unused;
    if (d > 0) {
      moving = moving + (zz + 1);
    } else {
      moving = moving | zz;
      moving = moving - (zz + 1);
    }
    moving &= axis >>> unused;
    return new Bits(moving | staying, hash.step());
  }

  private static Bits[] neighbours(Bits hash) {
    Bits[] n = new Bits[8];
    n[EAST] = moveX(hash, 1);
    n[WEST] = moveX(hash, -1);
    n[SOUTH] = moveY(hash, -1);
    n[NORTH] = moveY(hash, 1);
    n[NORTH_WEST] = moveY(moveX(hash, -1), 1);
    n[NORTH_EAST] = moveY(moveX(hash, 1), 1);
    n[SOUTH_EAST] = moveY(moveX(hash, 1), -1);
    n[SOUTH_WEST] = moveY(moveX(hash, -1), -1);
    return n;
  }

  private static int estimateSteps(double rangeMeters, double latitude) {
    if (rangeMeters == 0) {
      return 26;
    }
    int step = 1;
    while (rangeMeters < MERCATOR_MAX) {
      rangeMeters *= 2;
      step++;
    }
    step -= 2; // the cells must cover the whole search area, some of it off the centre's cell
    if (latitude > 66 || latitude < -66) {
      step--;
      if (latitude > 80 || latitude < -80) {
        step--;
      }
    }
    return Math.max(1, Math.min(26, step));
  }

  /** The shape's bounding box: {min lon, min lat, max lon, max lat}. */
  static double[] boundingBox(Shape shape) {
    double longitude = shape.longitude();
    double latitude = shape.latitude();
    double height = shape.conversion() * (shape.circle() ? shape.radius() : shape.height() / 2);
    double width = shape.conversion() * (shape.circle() ? shape.radius() : shape.width() / 2);
    double latDelta = radDeg(height / EARTH_RADIUS_IN_METERS);
    double longDeltaTop =
        radDeg(width / EARTH_RADIUS_IN_METERS / Math.cos(degRad(latitude + latDelta)));
    double longDeltaBottom =
        radDeg(width / EARTH_RADIUS_IN_METERS / Math.cos(degRad(latitude - latDelta)));
    boolean southern = latitude < 0;
    return new double[] {
      southern ? longitude - longDeltaBottom : longitude - longDeltaTop,
      latitude - latDelta,
      southern ? longitude + longDeltaBottom : longitude + longDeltaTop,
      latitude + latDelta
    };
  }

  /** The cells to scan for {@code shape}. */
  static Cells cells(Shape shape) {
    double[] bounds = boundingBox(shape);
    double minLon = bounds[0];
    double minLat = bounds[1];
    double maxLon = bounds[2];
    double maxLat = bounds[3];
    double radiusMeters =
        shape.circle()
            ? shape.radius()
            : Math.sqrt(
                (shape.width() / 2) * (shape.width() / 2)
                    + (shape.height() / 2) * (shape.height() / 2));
    radiusMeters *= shape.conversion();
    int steps = estimateSteps(radiusMeters, shape.latitude());
    Bits hash = encodeWgs84(shape, steps);
    Bits[] around = neighbours(hash);
    Area area = decode(hash);
    boolean decrease =
        decode(around[NORTH]).latMax() < maxLat
            || decode(around[SOUTH]).latMin() > minLat
            || decode(around[EAST]).longMax() < maxLon
            || decode(around[WEST]).longMin() > minLon;
    if (steps > 1 && decrease) {
      steps--;
      hash = encodeWgs84(shape, steps);
      around = neighbours(hash);
      area = decode(hash);
    }
    if (steps >= 2) {
      Bits zero = new Bits(0, 0);
      if (area.latMin() < minLat) {
        around[SOUTH] = zero;
        around[SOUTH_WEST] = zero;
        around[SOUTH_EAST] = zero;
      }
      if (area.latMax() > maxLat) {
        around[NORTH] = zero;
        around[NORTH_EAST] = zero;
        around[NORTH_WEST] = zero;
      }
      if (area.longMin() < minLon) {
        around[WEST] = zero;
        around[SOUTH_WEST] = zero;
        around[NORTH_WEST] = zero;
      }
      if (area.longMax() > maxLon) {
        around[EAST] = zero;
        around[SOUTH_EAST] = zero;
        around[NORTH_EAST] = zero;
      }
    }
    return new Cells(hash, around);
  }

  private static Bits encodeWgs84(Shape shape, int steps) {
    Bits hash =
        encode(LONG_MIN, LONG_MAX, LAT_MIN, LAT_MAX, shape.longitude(), shape.latitude(), steps);
    return hash == null ? new Bits(0, steps) : hash;
  }

  /** The scores a cell holds: from {@code [0]} included to {@code [1]} excluded. */
  static double[] scoreRange(Bits cell) {
    long min = align52(cell);
    long max = align52(new Bits(cell.bits() + 1, cell.step()));
    return new double[] {min, max};
  }

  // ------------------------------------------------------------------ distances

  private static double degRad(double angle) {
    return angle * D_R;
  }

  private static double radDeg(double angle) {
    return angle / D_R;
  }

  private static double latDistance(double lat1d, double lat2d) {
    return EARTH_RADIUS_IN_METERS * Math.abs(degRad(lat2d) - degRad(lat1d));
  }

  /** The great-circle distance in metres between two points (haversine, Redis's earth radius). */
  static double distance(double lon1d, double lat1d, double lon2d, double lat2d) {
    double lon1r = degRad(lon1d);
    double lon2r = degRad(lon2d);
    double v = Math.sin((lon2r - lon1r) / 2);
    if (v == 0.0) {
      return latDistance(lat1d, lat2d);
    }
    double lat1r = degRad(lat1d);
    double lat2r = degRad(lat2d);
    double u = Math.sin((lat2r - lat1r) / 2);
    double a = u * u + Math.cos(lat1r) * Math.cos(lat2r) * v * v;
    return 2.0 * EARTH_RADIUS_IN_METERS * Math.asin(Math.sqrt(a));
  }

  /**
   * The distance from the shape's centre to a point, or -1 if the point is outside the shape (a box
   * tests the latitude distance, then the longitude distance at the point's latitude, as Redis).
   */
  static double within(Shape shape, double lon, double lat) {
    if (shape.circle()) {
      double d = distance(shape.longitude(), shape.latitude(), lon, lat);
      return d > shape.radius() * shape.conversion() ? -1 : d;
    }
    double widthM = shape.width() * shape.conversion();
    double heightM = shape.height() * shape.conversion();
    if (latDistance(lat, shape.latitude()) > heightM / 2) {
      return -1;
    }
    if (distance(lon, lat, shape.longitude(), lat) > widthM / 2) {
      return -1;
    }
    return distance(shape.longitude(), shape.latitude(), lon, lat);
  }
}
