package dev.cellar.client.protocol;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cellar.client.Reply;
import java.io.EOFException;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Assertions;

/**
 * The decoder on any bytes: each reply decodes, or the stream is refused with {@link
 * RespProtocolException} or ends ({@link EOFException}); nothing else escapes (no other exception,
 * no stack overflow, no allocation out of proportion to the input). The first byte sets the size of
 * the pieces the bytes arrive in, so boundaries fall everywhere. The same bytes lent in place (as
 * shared memory lends its ring), each bulk string read through an in-place decoder, decode to the
 * same replies and end the same way, and every loan is ended. Seeds in {@code
 * RespReaderFuzzTestInputs}; docs/fuzzing.md says how to fuzz.
 */
class RespReaderFuzzTest {
  private static final Command<String> HEX =
      Command.reading("GET", view -> HexFormat.of().formatHex(view.toArray(ValueLayout.JAVA_BYTE)));

  @FuzzTest(maxDuration = "15s")
  void decodesOrRefuses(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    int chunk = (input[0] & 0x0f) + 1;
    byte[] wire = Arrays.copyOfRange(input, 1, input.length);
    List<String> copied = new ArrayList<>();
    String copiedEnd =
        decodeAll(new RespReader(new RespReaderTest.Bytes(wire, chunk)), copied, false);
    List<String> inPlace = new ArrayList<>();
    String inPlaceEnd =
        decodeAll(new RespReader(new RespReaderTest.Lender(wire, chunk)), inPlace, true);
    Assertions.assertEquals(copied, inPlace);
    Assertions.assertEquals(copiedEnd, inPlaceEnd);
  }

  /** Decodes replies into {@code out} until the stream ends; returns how it ended. */
  private static String decodeAll(RespReader reader, List<String> out, boolean inPlace)
      throws Exception {
    try {
      while (true) {
        Object outcome = inPlace ? reader.read(HEX) : reader.read();
        out.add(describe(outcome));
      }
    } catch (RespProtocolException | EOFException expected) {
      return expected.getClass().getSimpleName(); // refused, or the end of the input
    }
  }

  private static String describe(Object outcome) {
    if (outcome instanceof RespReader.InPlaceResult r) {
      return "bulk " + r.value();
    }
    if (outcome instanceof Reply.Bulk bulk) {
      return "bulk " + HexFormat.of().formatHex(bulk.bytes());
    }
    return String.valueOf(outcome);
  }
}
