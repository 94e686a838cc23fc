package dev.cellar.server.command;

import dev.cellar.server.files.SmallFiles;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
    ByteBuffer b = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC).putShort((short) VERSION).putShort((short) 0).putInt(libraries.size());
    for (byte[] code : libraries) {
      b.putInt(code.length).put(code);
    }
    b.putInt(SmallFiles.maskedCrc(b.array(), b.position()));
    return b.array();
  }

  /**
   * The libraries' codes in {@code file}.
   *
   * @throws IllegalArgumentException naming what is wrong, if the bytes are not such a file
   */
  static List<byte[]> decode(byte[] file) {
    if (file.length < HEADER_BYTES + 4) {
      throw new IllegalArgumentException("it is " + file.length + " bytes, shorter than a header");
    }
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    byte[] magic = new byte[MAGIC.length];
    b.get(magic);
    if (!java.util.Arrays.equals(magic, MAGIC)) {
      throw new IllegalArgumentException("it does not start with " + new String(MAGIC));
    }
    int stored = b.getInt(file.length - 4);
    if (stored != SmallFiles.maskedCrc(file, file.length - 4)) {
      throw new IllegalArgumentException("its checksum does not match its contents");
    }
    int version = Short.toUnsignedInt(b.getShort());
    if (version != VERSION) {
      throw new IllegalArgumentException(
          "it is version " + version + "; this build reads version " + VERSION);
    }
    b.getShort();
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
