package dev.cellar.client.protocol;

import dev.cellar.client.transport.Transport;
import java.io.IOException;

/**
 * Encodes commands as RESP arrays of bulk strings into one buffer, handed to the transport when
 * flushed: a batch up to {@link #MAX_HELD} bytes is one write and one flush. A larger batch spills
 * in writes of about that size, and an argument of more than half of it goes to the transport
 * straight from the caller's array (a 16 MiB value is not copied twice).
 *
 * <p>Owned by the one thread that writes to the connection.
 */
public final class RespWriter {
  /** Most bytes held before they go to the transport. */
  static final int MAX_HELD = 1 << 20;

  private static final int INITIAL = 8 << 10;

  private final Transport transport;
  private byte[] buffer = new byte[INITIAL];
  private int position;

  public RespWriter(Transport transport) {
    this.transport = transport;
  }

  /** Appends one command: {@code args[0]} is its name. */
  public void command(byte[][] args) throws IOException {
    header('*', args.length);
    for (byte[] arg : args) {
      header('$', arg.length);
      if (arg.length > MAX_HELD / 2) {
        spill();
        transport.write(arg, 0, arg.length);
      } else {
        ensure(arg.length);
        System.arraycopy(arg, 0, buffer, position, arg.length);
        position += arg.length;
      }
      ensure(2);
      buffer[position++] = '\r';
      buffer[position++] = '\n';
    }
  }

  /** Sends everything appended. */
  public void flush() throws IOException {
    spill();
    transport.flush();
    if (buffer.length > 64 * INITIAL) {
      buffer = new byte[INITIAL]; // one huge batch should not pin a megabyte for the client's life
    }
  }

  private void spill() throws IOException {
    if (position > 0) {
      transport.write(buffer, 0, position);
      position = 0;
    }
  }

  /** {@code type}, the decimal {@code n} (never negative here) and CRLF, with no allocation. */
  private void header(char type, long n) throws IOException {
    ensure(1 + 20 + 2);
    buffer[position++] = (byte) type;
    if (n < 10) {
      buffer[position++] = (byte) ('0' + n);
    } else {
      int digits = 1;
      for (long rest = n / 10; rest > 0; rest /= 10) {
        digits++;
      }
      int at = position + digits;
      for (long rest = n; rest > 0; rest /= 10) {
        buffer[--at] = (byte) ('0' + rest % 10);
      }
      position += digits;
    }
    buffer[position++] = '\r';
    buffer[position++] = '\n';
  }

  private void ensure(int extra) throws IOException {
    if (position + extra <= buffer.length) {
      return;
    }
    if (position + extra > MAX_HELD) {
      spill();
    }
    if (position + extra > buffer.length) {
      int size = Math.max(buffer.length * 2, position + extra);
      buffer = java.util.Arrays.copyOf(buffer, Math.min(Math.max(size, extra), MAX_HELD));
    }
  }
}
