package dev.cellar.server.command;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzz target for {@link DumpPayload#read} and {@link FunctionDump#codes}, the parsers of what
 * {@code RESTORE} and {@code FUNCTION RESTORE} take from any client: any bytes end in a value or in
 * one of its two errors, never another exception, and never an allocation larger than the input
 * justifies. Half the inputs get a valid footer (version and CRC-64), so that the body's parsers
 * (lengths, integer and LZF strings, listpacks, intsets, quicklists) are reached, not only the
 * checksum.
 */
class DumpPayloadFuzzTest {
  @FuzzTest(maxDuration = "15s")
  void anyPayload(FuzzedDataProvider data) {
    boolean seal = data.consumeBoolean();
    byte[] body = data.consumeRemainingAsBytes();
    byte[] payload = body;
    if (seal) {
      payload = java.util.Arrays.copyOf(body, body.length + 10);
      payload[body.length] = (byte) DumpPayload.RDB_VERSION;
      payload[body.length + 1] = 0;
      long crc = DumpPayload.Crc64.of(payload, 0, body.length + 2);
      for (int b = 0; b < 8; b++) {
        payload[body.length + 2 + b] = (byte) (crc >>> (8 * b));
      }
    }
    try {
      // The same bytes as a FUNCTION RESTORE payload: its codes, or one of its errors.
      for (byte[] code : FunctionDump.codes(payload)) {
        if (code == null) {
          throw new AssertionError("a library without its code");
        }
      }
    } catch (CommandError expected) {
      if (!expected.getMessage().startsWith("ERR ")) {
        throw new AssertionError("unexpected error " + expected.getMessage(), expected);
      }
    }
    try {
      DumpPayload.Value v = DumpPayload.read(payload);
      if (v.type() == DumpPayload.STRING && v.string() == null) {
        throw new AssertionError("a string value without its bytes");
      }
    } catch (CommandError expected) {
      if (expected != DumpPayload.BAD_DATA && expected != DumpPayload.BAD_PAYLOAD) {
        throw new AssertionError("unexpected error " + expected.getMessage(), expected);
      }
    }
  }
}
