package dev.cellar.client.protocol;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cellar.client.Reply;
import java.io.EOFException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The decoder on any bytes: each reply decodes, or the stream is refused with {@link
 * RespProtocolException} or ends ({@link EOFException}); nothing else escapes (no other exception,
 * no stack overflow, no allocation out of proportion to the input). The first byte sets the size of
 * the pieces the bytes arrive in, so boundaries fall everywhere. Seeds in {@code
 * RespReaderFuzzTestInputs}; docs/fuzzing.md says how to fuzz.
 */
class RespReaderFuzzTest {
  @FuzzTest(maxDuration = "15s")
  void decodesOrRefuses(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    int chunk = (input[0] & 0x0f) + 1;
    RespReader reader =
        new RespReader(new RespReaderTest.Bytes(Arrays.copyOfRange(input, 1, input.length), chunk));
    try {
      while (true) {
        Reply reply = reader.read();
        Objects.requireNonNull(reply).toString();
      }
    } catch (RespProtocolException | EOFException expected) {
      // refused, or the end of the input
    }
  }
}
