package dev.cellar.server.command;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of {@code FUNCTION DUMP} and {@code FUNCTION RESTORE}, byte for byte Redis's
 * (docs/format/function-dump.md): for each library the RDB opcode {@code FUNCTION2} (245) and its
 * code as an RDB string, then the footer every {@code DUMP} payload has, the RDB version (2 bytes,
 * little-endian) and the CRC-64 of all before it (8 bytes, little-endian; {@link DumpPayload}). So
 * a payload moves between Cellar and Redis either way.
 */
final class FunctionDump {
  private FunctionDump() {}

  /** RDB_OPCODE_FUNCTION2: a library's code follows. */
  static final int FUNCTION2 = 245;

  /** RDB_OPCODE_FUNCTION_PRE_GA: Redis 7.0's release candidates, which Redis no longer reads. */
  static final int FUNCTION_PRE_GA = 246;

  static byte[] dump(List<FunctionLibraries.Library> libraries) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (FunctionLibraries.Library library : libraries) {
      out.write(FUNCTION2);
      DumpPayload.writeString(out, library.code());
    }
    return DumpPayload.seal(out);
  }

  /** The libraries' codes in {@code payload}, or Redis's error for a payload that is not one. */
  static List<byte[]> codes(byte[] payload) {
    int end = payload.length - 10;
    if (!DumpPayload.footerValid(payload)) {
      throw new CommandError("ERR DUMP payload version or checksum are wrong");
    }
    DumpPayload.Reader r = new DumpPayload.Reader(payload, end);
    List<byte[]> codes = new ArrayList<>();
    try {
      while (r.position() < end) {
        int type = r.u8();
        if (type == FUNCTION_PRE_GA) {
          throw new CommandError("ERR Pre-GA function format not supported");
        }
        if (type != FUNCTION2) {
          throw new CommandError("ERR given type is not a function");
        }
        codes.add(r.string());
      }
    } catch (IndexOutOfBoundsException | NegativeArraySizeException e) {
      throw new CommandError("ERR failed loading the given functions payload");
    } catch (CommandError e) {
      if (e == DumpPayload.BAD_DATA || e == DumpPayload.BAD_PAYLOAD) {
        throw new CommandError("ERR failed loading the given functions payload");
      }
      throw e;
    }
    return codes;
  }
}
