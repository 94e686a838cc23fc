package dev.cellar.server.resp;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.*;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Cases the fuzz targets found or that need inputs larger than a fuzzer makes. */
class RequestParserTest {
  private final RequestParser parser = new RequestParser(512L << 20);

  /** {@link RequestParserFuzzTest}'s split property at the limit, a size its inputs do not reach. */
  @Test
  void inlineLineOverTheLimitIsRefusedWhetherOrNotItsNewlineHasArrived() {
    byte[] line = new byte[RequestParser.MAX_INLINE + 2];
    Arrays.fill(line, (byte) 'a');
    line[line.length - 1] = '\n';
    Request request = new Request();
    ProtocolException whole = assertThrows(ProtocolException.class, () -> parser.parse(line, 0, line.length, request));
    ProtocolException part = assertThrows(ProtocolException.class, () -> parser.parse(line, 0, line.length - 1, request));
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
}
