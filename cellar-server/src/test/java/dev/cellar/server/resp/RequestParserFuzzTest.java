package dev.cellar.server.resp;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzz targets for {@link RequestParser}: the first thing every byte a client sends goes through.
 *
 * <h2>Properties</h2>
 *
 * <ul>
 *   <li>Only {@link ProtocolException} escapes; the result is {@link RequestParser#NEED_MORE} or a
 *       position in {@code (start, end]}; every argument lies inside the consumed bytes.
 *   <li>Nothing outside {@code [start, end)} is read: the input is parsed in an exact-size array
 *       (an out-of-range read throws) and embedded between two different fillers (a read past
 *       {@code end} would change the answer). Nothing outside the consumed bytes is written, and an
 *       incomplete request writes nothing.
 *   <li>Arrival in pieces does not matter: every prefix of a complete request needs more, every
 *       extension of it parses the same, and a prefix fails only if the whole does.
 *   <li>A request declaring a length it does not carry allocates nothing in proportion to that
 *       length (the parser is given Redis's largest limit, 512 MB).
 * </ul>
 *
 * Run as regression tests by default (the seeds in {@code RequestParserFuzzTestInputs}); fuzzed
 * with {@code -Pfuzz}. {@link RequestRoundTripFuzzTest} checks well-formed requests.
 */
class RequestParserFuzzTest {
  private static final long REDIS_MAX_BULK = 512L << 20;
  private static final int PAD = 7;

  /** Split points tried per input beyond the first few; all of them for short inputs. */
  private static final int SAMPLED_SPLITS = 24;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private final RequestParser large = new RequestParser(REDIS_MAX_BULK);
  private final RequestParser small = new RequestParser(16);

  @FuzzTest(maxDuration = "15s")
  void arbitraryBytes(byte[] input) {
    for (RequestParser parser : List.of(large, small)) {
      Outcome whole = checkOne(parser, input);
      checkSplits(parser, input, whole);
    }
  }

  // ------------------------------------------------------------ one parse, checked

  /** What a parse did: a position and the arguments, NEED_MORE, or an error message. */
  record Outcome(int position, List<String> args, String error) {
    boolean complete() {
      return error == null && position != RequestParser.NEED_MORE;
    }

    boolean needsMore() {
      return error == null && position == RequestParser.NEED_MORE;
    }
  }

  /** Parses {@code input} three ways (exact array, two different surroundings); all must agree. */
  private static Outcome checkOne(RequestParser parser, byte[] input) {
    Outcome exact = parseChecked(parser, input, 0, (byte) 0);
    Outcome zeros = parseChecked(parser, input, PAD, (byte) 0);
    Outcome lines = parseChecked(parser, input, PAD, (byte) '\n');
    assertEquals(exact, shift(zeros, -PAD), "result depends on bytes before start or after end");
    assertEquals(zeros, lines, "result depends on bytes before start or after end");
    return exact;
  }

  private static Outcome shift(Outcome o, int by) {
    return o.complete() ? new Outcome(o.position + by, o.args, null) : o;
  }

  /** One parse of {@code input} placed at {@code pad} inside {@code filler} bytes. */
  private static Outcome parseChecked(RequestParser parser, byte[] input, int pad, byte filler) {
    byte[] buf = new byte[pad + input.length + pad];
    Arrays.fill(buf, filler);
    System.arraycopy(input, 0, buf, pad, input.length);
    byte[] before = buf.clone();
    int start = pad;
    int end = pad + input.length;
    Request request = new Request();
    long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
    Outcome outcome;
    try {
      int position = parser.parse(buf, start, end, request);
      outcome = new Outcome(position, args(request), null);
    } catch (ProtocolException e) {
      assertNotNull(e.getMessage());
      outcome = new Outcome(RequestParser.NEED_MORE, List.of(), e.getMessage());
    }
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore;
    assertTrue(
        allocated < 64L * 1024 + 64L * input.length,
        "parsing " + input.length + " bytes allocated " + allocated);
    if (outcome.error != null) {
      assertUnchangedOutside(before, buf, start, end);
      return outcome;
    }
    if (outcome.position == RequestParser.NEED_MORE) {
      assertArrayEquals(before, buf, "an incomplete request must not modify the buffer");
      return outcome;
    }
    int position = outcome.position;
    assertTrue(
        position > start && position <= end,
        "position " + position + " outside (" + start + ", " + end + "]");
    assertUnchangedOutside(before, buf, start, position);
    for (int i = 0; i < request.argc(); i++) {
      int from = request.offset(i);
      int to = from + request.length(i);
      assertTrue(
          request.length(i) >= 0 && from >= start && to <= position,
          "argument "
              + i
              + " at ["
              + from
              + ", "
              + to
              + ") outside the consumed ["
              + start
              + ", "
              + position
              + ")");
    }
    return outcome;
  }

  private static void assertUnchangedOutside(byte[] before, byte[] after, int from, int to) {
    assertArrayEquals(
        Arrays.copyOfRange(before, 0, from),
        Arrays.copyOfRange(after, 0, from),
        "wrote before start");
    assertArrayEquals(
        Arrays.copyOfRange(before, to, before.length),
        Arrays.copyOfRange(after, to, after.length),
        "wrote past the request");
  }

  // ------------------------------------------------------------ splits

  /**
   * Prefixes of a complete request need more; extensions parse the same; a prefix fails only if the
   * whole input fails.
   */
  private static void checkSplits(RequestParser parser, byte[] input, Outcome whole) {
    for (int cut : cuts(input.length)) {
      Outcome part = parseChecked(parser, Arrays.copyOf(input, cut), 0, (byte) 0);
      if (whole.complete() && cut < whole.position) {
        assertTrue(
            part.needsMore(),
            "prefix of " + cut + " of a complete " + whole.position + "-byte request gave " + part);
      } else if (whole.complete()) {
        assertEquals(
            whole, part, "the bytes after a complete request changed it (cut " + cut + ")");
      } else if (whole.needsMore()) {
        assertTrue(part.needsMore(), "prefix of " + cut + " of an incomplete request gave " + part);
      } else {
        assertFalse(part.complete(), "prefix of " + cut + " of a failing request parsed: " + part);
      }
    }
  }

  private static int[] cuts(int length) {
    if (length <= SAMPLED_SPLITS + 8) {
      int[] all = new int[length];
      Arrays.setAll(all, i -> i);
      return all;
    }
    int[] cuts = new int[8 + SAMPLED_SPLITS];
    for (int i = 0; i < 8; i++) {
      cuts[i] = i; // the header bytes, where most decisions are made
    }
    for (int i = 0; i < SAMPLED_SPLITS; i++) {
      cuts[8 + i] = 8 + (int) ((long) (length - 8) * i / SAMPLED_SPLITS);
    }
    cuts[cuts.length - 1] = length - 1;
    return cuts;
  }

  private static List<String> args(Request request) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < request.argc(); i++) {
      out.add(new String(request.bytes(i), ISO_8859_1));
    }
    return out;
  }
}
