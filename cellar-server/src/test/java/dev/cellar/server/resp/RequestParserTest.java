package dev.cellar.server.resp;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.*;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Cases the fuzz targets found or that need inputs larger than a fuzzer makes. */
class RequestParserTest {
  private final RequestParser parser = new RequestParser(512L << 20);

  /**
   * {@link RequestParserFuzzTest}'s split property at the limit, a size its inputs do not reach.
   */
  @Test
  void inlineLineOverTheLimitIsRefusedWhetherOrNotItsNewlineHasArrived() {
    byte[] line = new byte[RequestParser.MAX_INLINE + 2];
    Arrays.fill(line, (byte) 'a');
    line[line.length - 1] = '\n';
    Request request = new Request();
    ProtocolException whole =
        assertThrows(ProtocolException.class, () -> parser.parse(line, 0, line.length, request));
    ProtocolException part =
        assertThrows(
            ProtocolException.class, () -> parser.parse(line, 0, line.length - 1, request));
    assertEquals(part.getMessage(), whole.getMessage());
  }

  @Test
  void inlineLineAtTheLimitIsAccepted() throws ProtocolException {
    byte[] line = new byte[RequestParser.MAX_INLINE + 1];
    Arrays.fill(line, (byte) 'a');
    line[line.length - 1] = '\n';
    Request request = new Request();
    assertEquals(RequestParser.NEED_MORE, parser.parse(line, 0, line.length - 1, request));
    assertEquals(line.length, parser.parse(line, 0, line.length, request));
    assertEquals(RequestParser.MAX_INLINE, request.length(0));
  }

  @Test
  void declaredButAbsentBulkNeedsMore() throws ProtocolException {
    byte[] header = "*1\r\n$500000000\r\n".getBytes(US_ASCII);
    assertEquals(RequestParser.NEED_MORE, parser.parse(header, 0, header.length, new Request()));
  }

  /**
   * A resumed request is not read again from its start: headers already read are not looked at, so
   * garbage written over them after the first call goes unnoticed. A parser that re-read them would
   * refuse the request, and would cost its header count times the pieces it arrives in.
   */
  @Test
  void anIncompleteRequestResumesAfterTheHeadersAlreadyRead() throws ProtocolException {
    byte[] wire = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n".getBytes(US_ASCII);
    Request request = new Request();
    int firstPiece = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nva".length();
    assertEquals(RequestParser.NEED_MORE, parser.parse(wire, 0, firstPiece, request));
    wire[0] = 'X'; // the count line
    wire[4] = 'X'; // the first bulk's header
    assertEquals(wire.length, parser.parse(wire, 0, wire.length, request));
    assertEquals("value", request.string(2));
    assertEquals("k", request.string(1));
  }

  /** The newline search of an inline line goes on where it stopped, as headers do. */
  @Test
  void anIncompleteInlineLineIsNotSearchedAgain() throws ProtocolException {
    byte[] wire = "SET key value\r\n".getBytes(US_ASCII);
    Request request = new Request();
    assertEquals(RequestParser.NEED_MORE, parser.parse(wire, 0, 8, request));
    wire[3] = '\n'; // searched already: a parser that started over would end the line here
    assertEquals(wire.length, parser.parse(wire, 0, wire.length, request));
    assertEquals(3, request.argc());
  }

  /** The connection compacts its buffer between pieces: the parser resumes where the bytes went. */
  @Test
  void anIncompleteRequestMovedToAnotherBufferResumesThere() throws ProtocolException {
    byte[] old = "PING\r\n*2\r\n$3\r\nGET\r\n$3\r\nke".getBytes(US_ASCII);
    Request ping = new Request();
    Request request = new Request();
    assertEquals(6, parser.parse(old, 0, old.length, ping));
    assertEquals(RequestParser.NEED_MORE, parser.parse(old, 6, old.length, request));
    byte[] moved = new byte[64];
    int kept = old.length - 6;
    System.arraycopy(old, 6, moved, 0, kept);
    parser.moved(6, moved, 0);
    byte[] rest = "y\r\n".getBytes(US_ASCII);
    System.arraycopy(rest, 0, moved, kept, rest.length);
    assertEquals(kept + rest.length, parser.parse(moved, 0, kept + rest.length, request));
    assertEquals("GET", request.string(0));
    assertEquals("key", request.string(1));
  }

  /** Every split point of a pipelined pair gives the same requests as the whole. */
  @Test
  void everySplitOfAPipelinedPairParsesAsTheWhole() throws ProtocolException {
    byte[] wire = "*2\r\n$4\r\nECHO\r\n$4\r\nab\r\n\r\n*1\r\n$4\r\nPING\r\n".getBytes(US_ASCII);
    for (int cut = 0; cut <= wire.length; cut++) {
      Request request = new Request();
      int end = parser.parse(wire, 0, cut, request);
      if (end == RequestParser.NEED_MORE) {
        end = parser.parse(wire, 0, wire.length, request);
      }
      assertEquals(24, end, "cut at " + cut);
      assertEquals("ab\r\n", request.string(1), "cut at " + cut);
    }
  }

  @Test
  void beforeAuthCountsOverTenAndBulksOver16KiBAreRefusedAsRedisDoes() throws ProtocolException {
    parser.authenticated(false);
    byte[] count = "*11\r\n".getBytes(US_ASCII);
    assertEquals(
        "unauthenticated multibulk length",
        assertThrows(
                ProtocolException.class, () -> parser.parse(count, 0, count.length, new Request()))
            .getMessage());
    byte[] bulk = "*1\r\n$16385\r\n".getBytes(US_ASCII);
    assertEquals(
        "unauthenticated bulk length",
        assertThrows(
                ProtocolException.class, () -> parser.parse(bulk, 0, bulk.length, new Request()))
            .getMessage());
    byte[] atLimits = "*10\r\n$16384\r\n".getBytes(US_ASCII);
    assertEquals(
        RequestParser.NEED_MORE, parser.parse(atLimits, 0, atLimits.length, new Request()));
    parser.authenticated(true);
    assertEquals(RequestParser.NEED_MORE, parser.parse(bulk, 0, bulk.length, new Request()));
  }
}
