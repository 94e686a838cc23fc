package dev.cellar.server.command;

import dev.cellar.server.files.SmallFiles;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Layout of {@code functions.dat}, the file that keeps the function libraries ({@code FUNCTION
 * LOAD}) across restarts. Specified in docs/format/functions.md; this class is the only place that
 * knows the offsets.
 *
 * <pre>
 *   magic "CELLARFN" (8) | version u16 = 1 | reserved u16 = 0 | count u32
 *   count x { length u32 | the library's code, as FUNCTION LOAD took it }
 *   masked CRC32C u32 of every byte before it
 * </pre>
 *
 * All integers little-endian; the CRC is masked as the log's records are (docs/format/README.md).
 */
final class FunctionFileDescriptor {
  private FunctionFileDescriptor() {}

  static final String FILE_NAME = "functions.dat";
  static final byte[] MAGIC = "CELLARFN".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  static final int HEADER_BYTES = 16;

  /** The file's bytes for {@code libraries}' codes. */
  static byte[] encode(List<byte[]> libraries) {
    long size = HEADER_BYTES + 4;
    for (byte[] code : libraries) {
      size += 4 + code.length;
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("function libraries too large to save: " + size + " bytes");
    }
    ByteBuffer b = SmallFiles.start(MAGIC, VERSION, (int) size);
    b.putInt(libraries.size());
    for (byte[] code : libraries) {
      b.putInt(code.length).put(code);
    }
    return SmallFiles.seal(b);
  }

  /**
   * The libraries' codes in {@code file}.
   *
   * @throws IllegalArgumentException naming what is wrong, if the bytes are not such a file
   */
  static List<byte[]> decode(byte[] file) {
    ByteBuffer b = SmallFiles.open(file, MAGIC, VERSION, HEADER_BYTES - SmallFiles.HEADER_BYTES);
    long count = Integer.toUnsignedLong(b.getInt());
    List<byte[]> libraries = new ArrayList<>();
    for (long i = 0; i < count; i++) {
      if (b.position() + 4 > file.length - 4) {
        throw new IllegalArgumentException("library " + i + " is cut short");
      }
      long length = Integer.toUnsignedLong(b.getInt());
      if (length > file.length - 4 - b.position()) {
        throw new IllegalArgumentException("library " + i + " is cut short");
      }
      byte[] code = new byte[(int) length];
      b.get(code);
      libraries.add(code);
    }
    if (b.position() != file.length - 4) {
      throw new IllegalArgumentException("it has bytes after its last library");
    }
    return libraries;
  }
}
