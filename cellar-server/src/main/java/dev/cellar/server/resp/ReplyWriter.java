package dev.cellar.server.resp;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * Encodes replies into a growable byte array that the connection hands to the socket once per batch
 * of requests. RESP2 or RESP3 ({@code HELLO 3}) decides how nulls, maps and doubles look.
 *
 * <p>Owned by one connection, so not thread-safe.
 */
public final class ReplyWriter {
  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL_BULK2 = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL_ARRAY2 = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL3 = "_\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TRUE3 = "#t\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FALSE3 = "#f\r\n".getBytes(StandardCharsets.US_ASCII);

  /** Asked before the buffer grows; see {@link #limitGrowth}. */
  public interface Growth {
    /** Whether the buffer may grow from {@code from} to {@code to} bytes. */
    boolean allow(int from, int to);
  }

  /**
   * A reply the writer's {@link Growth} did not let it hold; the command fails with this message.
   */
  public static final class ReplyTooLarge extends RuntimeException {
    ReplyTooLarge(String message) {
      super(message, null, false, false);
    }
  }

  /** Told of each error reply a client is sent ({@code INFO errorstats}). */
  public interface ErrorCounter {
    void count(String text);
  }

  private byte[] buffer;
  private MemorySegment segment;
  private ErrorCounter errorCounter;

  /** Error replies written, counted or not; see {@link #errorsSinceLastAsked}. */
  private int errorsWritten;

  private int errorsAsked;
  private Growth growth = (from, to) -> true;
  private int position;
  private int protocol = 2;

  public ReplyWriter(int initialCapacity) {
    buffer = new byte[initialCapacity];
    segment = MemorySegment.ofArray(buffer);
  }

  /**
   * Asks {@code growth} before each growth of the buffer, so that a reply cannot outgrow the
   * clients' memory budget.
   */
  public void limitGrowth(Growth growth) {
    this.growth = growth;
  }

  /** Bytes the buffer holds (its capacity, not what is written). */
  public int capacity() {
    return buffer.length;
  }

  public int protocol() {
    return protocol;
  }

  public void protocol(int version) {
    this.protocol = version;
  }

  public byte[] buffer() {
    return buffer;
  }

  /** Bytes written since the last {@link #reset}. */
  public int size() {
    return position;
  }

  public void reset() {
    position = 0;
  }

  /** Drops everything written after {@code mark} (a {@link #size()} taken earlier). */
  public void truncate(int mark) {
    position = mark;
  }

  /** Gives back a large buffer once it has been sent, so an idle connection holds little. */
  public void shrinkTo(int capacity) {
    if (buffer.length > capacity && position <= capacity) {
      buffer = java.util.Arrays.copyOf(buffer, capacity);
      segment = MemorySegment.ofArray(buffer);
    }
  }

  private void ensure(long extra) {
    long needed = position + extra;
    if (needed > buffer.length) {
      if (needed > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("reply larger than 2 GiB");
      }
      int capacity = (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, buffer.length * 2L));
      if (!growth.allow(buffer.length, capacity)) {
        // Doubling would not fit the budget: exactly what is needed might.
        capacity = (int) needed;
        if (!growth.allow(buffer.length, capacity)) {
          throw new ReplyTooLarge(
              "reply of more than "
                  + needed
                  + " bytes would take the clients' buffers over"
                  + " maxmemory-clients; ask for less at a time (a range, SCAN, GETRANGE)");
        }
      }
      buffer = java.util.Arrays.copyOf(buffer, capacity);
      segment = MemorySegment.ofArray(buffer);
    }
  }

  /** Writes {@code reply}, a whole reply made by another writer (a blocked client's, served). */
  public void replay(byte[] reply) {
    raw(reply);
  }

  private void raw(byte[] bytes) {
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buffer, position, bytes.length);
    position += bytes.length;
  }

  private void ascii(String s) {
    int n = s.length();
    ensure(n);
    for (int i = 0; i < n; i++) {
      buffer[position++] = (byte) s.charAt(i);
    }
  }

  private void header(byte type, long n) {
    ensure(1 + Numbers.MAX_LONG_CHARS + 2);
    buffer[position++] = type;
    position = Numbers.writeDecimal(buffer, position, n);
    buffer[position++] = '\r';
    buffer[position++] = '\n';
  }

  public void ok() {
    raw(OK);
  }

  /** {@code +text}; the text must not contain CR or LF. */
  public void simple(String text) {
    ensure(text.length() + 3);
    buffer[position++] = '+';
    ascii(text);
    raw(CRLF);
  }

  /** An error reply; {@code text} starts with its code ({@code ERR}, {@code WRONGTYPE}, ...). */
  /**
   * Counts the error replies this writer writes in {@code counter} from now on: a writer whose
   * output reaches a client.
   */
  public void countErrors(ErrorCounter counter) {
    this.errorCounter = counter;
  }

  /**
   * Whether an error reply was written since this was last asked: a command's {@code failed_calls},
   * as Redis tells them (the errors of the commands a transaction ran are theirs, not EXEC's).
   */
  public boolean errorsSinceLastAsked() {
    boolean any = errorsWritten != errorsAsked;
    errorsAsked = errorsWritten;
    return any;
  }

  /** An error reply, counted in the error statistics if this writer counts them. */
  public void error(String text) {
    if (errorCounter != null) {
      errorCounter.count(text);
    }
    errorCounted(text);
  }

  /** An error reply already counted where it arose (a script passing on its command's error). */
  public void errorCounted(String text) {
    errorsWritten++;
    ensure(text.length() + 3);
    buffer[position++] = '-';
    // Replies are one line: a newline from an exception message would end the reply early.
    String line =
        text.indexOf('\r') >= 0 || text.indexOf('\n') >= 0
            ? text.replace('\r', ' ').replace('\n', ' ')
            : text;
    byte[] utf8 = line.getBytes(StandardCharsets.UTF_8);
    raw(utf8);
    raw(CRLF);
  }

  public void integer(long value) {
    header((byte) ':', value);
  }

  public void bulk(byte[] value) {
    bulk(value, 0, value.length);
  }

  public void bulk(byte[] value, int offset, int length) {
    header((byte) '$', length);
    ensure(length + 2L);
    System.arraycopy(value, offset, buffer, position, length);
    position += length;
    buffer[position++] = '\r';
    buffer[position++] = '\n';
  }

  /** A bulk string copied straight from a segment (a value in the log). */
  public void bulk(MemorySegment value) {
    bulk(value, 0, value.byteSize());
  }

  /** A bulk string of the {@code length} bytes of {@code source} from {@code offset}. */
  public void bulk(MemorySegment source, long offset, long length) {
    header((byte) '$', length);
    ensure(length + 2);
    MemorySegment.copy(source, offset, segment, position, length);
    position += (int) length;
    buffer[position++] = '\r';
    buffer[position++] = '\n';
  }

  public void bulk(String value) {
    bulk(value.getBytes(StandardCharsets.UTF_8));
  }

  /** A bulk string holding a decimal: what {@code INCR} and friends store. */
  public void bulkDecimal(long value) {
    header((byte) '$', Numbers.decimalLength(value));
    ensure(Numbers.MAX_LONG_CHARS + 2);
    position = Numbers.writeDecimal(buffer, position, value);
    buffer[position++] = '\r';
    buffer[position++] = '\n';
  }

  public void nullBulk() {
    raw(protocol == 3 ? NULL3 : NULL_BULK2);
  }

  public void nullArray() {
    raw(protocol == 3 ? NULL3 : NULL_ARRAY2);
  }

  public void array(long n) {
    header((byte) '*', n);
  }

  /**
   * Out-of-band data the client did not ask for (a pub/sub message, a subscription's confirmation):
   * a push ({@code >n}) in RESP3, an array in RESP2, as Redis's {@code addReplyPushLen}.
   */
  public void push(long n) {
    header(protocol == 3 ? (byte) '>' : (byte) '*', n);
  }

  /** An array of simple strings, one per line: the shape of every {@code HELP} reply. */
  public void simpleLines(String[] lines) {
    array(lines.length);
    for (String line : lines) {
      simple(line);
    }
  }

  /** A map of {@code n} pairs: {@code %n} in RESP3, a flat array of 2n in RESP2. */
  public void map(long n) {
    if (protocol == 3) {
      header((byte) '%', n);
    } else {
      header((byte) '*', n * 2);
    }
  }

  /** A set: {@code ~n} in RESP3, an array in RESP2. */
  public void set(long n) {
    header(protocol == 3 ? (byte) '~' : (byte) '*', n);
  }

  /** A double: {@code ,} in RESP3, a bulk string in RESP2 (as Redis's {@code addReplyDouble}). */
  public void doubleValue(String formatted) {
    lineOrBulk((byte) ',', formatted);
  }

  /** {@code text} as a RESP3 line of type {@code type}, or as a bulk string in RESP2. */
  private void lineOrBulk(byte type, String text) {
    if (protocol == 3) {
      ensure(text.length() + 3);
      buffer[position++] = type;
      ascii(text);
      raw(CRLF);
    } else {
      bulk(text);
    }
  }

  /**
   * A boolean: {@code #t}/{@code #f} in RESP3, the integer 1 or 0 in RESP2 ({@code addReplyBool}).
   */
  public void bool(boolean value) {
    if (protocol == 3) {
      raw(value ? TRUE3 : FALSE3);
    } else {
      integer(value ? 1 : 0);
    }
  }

  /** A big number, given as its decimal digits: {@code (} in RESP3, a bulk string in RESP2. */
  public void bigNumber(String digits) {
    lineOrBulk((byte) '(', digits);
  }

  /** A verbatim string of {@code format} (three characters): {@code =} in RESP3, bulk in RESP2. */
  public void verbatim(String format, byte[] text) {
    if (protocol == 3) {
      header((byte) '=', text.length + 4L);
      raw(format.getBytes(StandardCharsets.US_ASCII));
      raw(new byte[] {':'});
      raw(text);
      raw(CRLF);
    } else {
      bulk(text);
    }
  }

  /** A verbatim string ({@code =} in RESP3, bulk in RESP2) such as {@code INFO}'s text. */
  public void verbatim(String text) {
    if (protocol == 3) {
      byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
      header((byte) '=', utf8.length + 4L);
      raw("txt:".getBytes(StandardCharsets.US_ASCII));
      raw(utf8);
      raw(CRLF);
    } else {
      bulk(text);
    }
  }

  /** Bytes [from, to) of what was written, copied (tests and HTTP). */
  public byte[] copy(int from, int to) {
    return java.util.Arrays.copyOfRange(buffer, from, to);
  }
}
