package dev.cellar.server.resp;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzz target for {@link RequestParser} on well-formed input: argument arrays (any bytes, empty
 * ones too) written as RESP multibulk or as double-quoted inline lines, several pipelined, and
 * delivered in arbitrary pieces, parse back to themselves. {@link RequestParserFuzzTest} covers
 * malformed input.
 */
class RequestRoundTripFuzzTest {
  private final RequestParser parser = new RequestParser(512L << 20);

  @FuzzTest(maxDuration = "15s")
  void roundTrip(FuzzedDataProvider data) {
    boolean inline = data.consumeBoolean();
    int requests = data.consumeInt(1, 4);
    List<List<byte[]>> sent = new ArrayList<>();
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    for (int r = 0; r < requests; r++) {
      int argc = data.consumeInt(1, 6);
      List<byte[]> args = new ArrayList<>();
      for (int a = 0; a < argc; a++) {
        args.add(data.consumeBytes(data.consumeInt(0, 40)));
      }
      sent.add(args);
      wire.writeBytes(inline ? RespEncoding.inline(args) : RespEncoding.multibulk(args));
    }
    byte[] bytes = wire.toByteArray();
    int[] pieces = new int[data.consumeInt(0, 8)];
    for (int i = 0; i < pieces.length; i++) {
      pieces[i] = data.consumeInt(0, bytes.length);
    }
    Arrays.sort(pieces);
    List<List<byte[]>> received = deliverInPieces(parser, bytes, pieces);
    assertEquals(sent.size(), received.size(), "requests");
    for (int r = 0; r < sent.size(); r++) {
      assertEquals(printable(sent.get(r)), printable(received.get(r)), "request " + r);
    }
  }

  // ------------------------------------------------------------ delivery as a connection sees it

  /**
   * Feeds {@code bytes} in pieces cut at {@code cuts} (sorted) to a buffer and parses as {@code
   * RespConnection} does: from the first unconsumed byte, again after each piece arrives.
   */
  private static List<List<byte[]>> deliverInPieces(
      RequestParser parser, byte[] bytes, int[] cuts) {
    byte[] buf = new byte[bytes.length];
    int arrived = 0;
    int consumed = 0;
    Request request = new Request();
    List<List<byte[]>> out = new ArrayList<>();
    int[] ends = Arrays.copyOf(cuts, cuts.length + 1);
    ends[cuts.length] = bytes.length;
    for (int end : ends) {
      System.arraycopy(bytes, arrived, buf, arrived, end - arrived);
      arrived = Math.max(arrived, end);
      while (consumed < arrived) {
        int next;
        try {
          next = parser.parse(buf, consumed, arrived, request);
        } catch (ProtocolException e) {
          throw new AssertionError("a well-formed request failed: " + e.getMessage(), e);
        }
        if (next == RequestParser.NEED_MORE) {
          break;
        }
        consumed = next;
        List<byte[]> args = new ArrayList<>();
        for (int i = 0; i < request.argc(); i++) {
          args.add(request.bytes(i));
        }
        out.add(args);
      }
    }
    assertEquals(bytes.length, consumed, "bytes left unparsed");
    return out;
  }

  private static List<String> printable(List<byte[]> args) {
    return args.stream().map(a -> new String(a, ISO_8859_1)).toList();
  }
}
