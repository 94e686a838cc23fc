package dev.cellar.client.protocol;

import dev.cellar.client.Reply;
import dev.cellar.client.transport.Transport;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes RESP3 replies from a transport, blocking until each is whole: every type the protocol
 * defines (simple, error and blob error, integer, bulk, null, array, map, set, double, boolean,
 * verbatim, big number, push) and attributes, which are read and dropped. RESP2's null bulk and
 * null array ({@code $-1}, {@code *-1}) read as null too. Streamed strings and aggregates ({@code
 * $?}) are refused: Cellar never sends them.
 *
 * <p>Over a socket, bytes come through a 64 KiB buffer; a bulk string longer than what the buffer
 * holds is read straight into its own array. Over a transport that lends its bytes in place (shared
 * memory), replies are parsed where they arrived, with no buffer between, and {@link
 * #read(Command)} hands a value to its command's decoder as a view of the ring itself. Whatever the
 * server says, the decoder allocates in proportion to the bytes it actually received (at most twice
 * as many, plus a megabyte): lengths are checked against {@link #MAX_BULK}, and long strings and
 * aggregates grow as their bytes and elements arrive. Nesting is limited to {@link #MAX_DEPTH}
 * levels, so a broken stream cannot overflow the stack. Owned by the one thread that reads the
 * connection.
 */
public final class RespReader {
  /** Longest string accepted: Cellar's values are at most 16 MiB. */
  static final int MAX_BULK = 512 << 20;

  static final int MAX_DEPTH = 64;

  /** Strings up to this long get their whole array at once. */
  static final int PREALLOCATE = 1 << 20;

  private final Transport transport;

  /** The transport's bytes in place, or null: copied through {@link #buffer}. */
  private final Transport.InPlace inPlace;

  private final byte[] buffer = new byte[64 << 10];
  private final MemorySegment bufferSegment = MemorySegment.ofArray(buffer);

  /** What is being parsed: {@link #buffer}, or the bytes the transport lends in place. */
  private MemorySegment window = bufferSegment;

  private long position;
  private long limit;

  /** In place: where the lent bytes began, and whether a loan is open (until {@link #endLoan}). */
  private long lentFrom;

  private boolean lent;

  public RespReader(Transport transport) {
    this.transport = transport;
    this.inPlace = transport.inPlace();
  }

  /**
   * Waits for the first byte of the next reply. A timeout here ({@link
   * java.net.SocketTimeoutException}) has consumed nothing, so the caller may wait again; one
   * inside {@link #read} leaves a reply half read, and the stream must be dropped.
   */
  public void awaitReply() throws IOException {
    if (position == limit) {
      fill();
    }
  }

  /** The next reply; an error reply is returned as {@link Reply.Error}, not thrown. */
  public Reply read() throws IOException {
    Reply reply = value(0);
    endReply();
    return reply;
  }

  /**
   * The next reply, for {@code command}: if the command decodes values in place ({@link
   * Command#inPlace()}) and the reply is a bulk string, the decoder is called on a read-only view
   * of its bytes where they arrived (in the ring, or in this reader's buffer) and its result, or
   * what it threw, is returned as an {@link InPlaceResult}; a bulk string split across the
   * transport's pieces is copied once first. Any other reply is returned as {@link #read()} returns
   * it.
   */
  public Object read(Command<?> command) throws IOException {
    java.util.function.Function<MemorySegment, ?> decoder = command.inPlace();
    if (decoder == null) {
      return read();
    }
    if (position == limit) {
      fill();
    }
    if (window.get(ValueLayout.JAVA_BYTE, position) != '$') {
      return read();
    }
    position++;
    long n = number();
    if (n == -1) {
      endReply();
      return Reply.NULL;
    }
    int length = checkLength(n);
    MemorySegment view;
    if (limit - position >= length) {
      view = window.asSlice(position, length).asReadOnly();
      position += length;
    } else {
      view = MemorySegment.ofArray(copied(length)).asReadOnly();
    }
    InPlaceResult result;
    try {
      // Before the CRLF is read: reading it may end the loan of the bytes the view shows.
      result = new InPlaceResult(decoder.apply(view), null);
    } catch (RuntimeException e) {
      result = new InPlaceResult(null, e);
    }
    endOfLine();
    endReply();
    return result;
  }

  /**
   * What an in-place decoder made of a bulk reply ({@link #read(Command)}).
   *
   * @param value its result
   * @param failure what it threw instead, or null
   */
  public record InPlaceResult(Object value, RuntimeException failure) {}

  /**
   * A reply is whole: in place, the bytes it used are handed back and the rest will be lent again,
   * so that between replies the transport holds nothing for this reader.
   */
  private void endReply() {
    if (lent) {
      endLoan(position);
      window = bufferSegment;
      position = limit = 0;
    }
  }

  private void endLoan(long to) {
    inPlace.consume((int) (to - lentFrom));
    lent = false;
  }

  /**
   * Whether the server has closed the stream, looking without waiting. Bytes that have arrived stay
   * buffered for {@link #read}.
   */
  public boolean peerClosed() {
    if (position < limit) {
      return false;
    }
    if (inPlace != null) {
      try {
        if (inPlace.poll() > 0) {
          inPlace.consume(0); // bytes have arrived: a reply, so not closed; left for read()
        }
        return false;
      } catch (IOException e) {
        return true;
      }
    }
    position = 0;
    limit = 0;
    try {
      int n = transport.readNow(buffer, 0, buffer.length);
      if (n < 0) {
        return true;
      }
      limit = n;
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  private Reply value(int depth) throws IOException {
    if (depth > MAX_DEPTH) {
      throw new RespProtocolException("replies nested more than " + MAX_DEPTH + " deep");
    }
    byte type = next();
    return switch (type) {
      case '+' -> new Reply.Simple(line());
      case '-' -> new Reply.Error(line());
      case ':' -> new Reply.Int(number());
      case '$' -> bulkOrNull();
      case '_' -> {
        endOfLine();
        yield Reply.NULL;
      }
      case '*' -> {
        long n = number();
        yield n == -1 ? Reply.NULL : new Reply.Array(elements(checkCount(n), depth));
      }
      case '~' -> new Reply.SetReply(elements(count(), depth));
      case '>' -> new Reply.Push(elements(count(), depth));
      case '%' -> new Reply.MapReply(entries(count(), depth));
      case '|' -> {
        entries(count(), depth); // attributes describe the reply that follows; not used here
        yield value(depth);
      }
      case ',' -> new Reply.Dbl(parseDouble(line()));
      case '#' -> boolTail();
      case '(' -> bigNumber(line());
      case '=' -> verbatim(bytes(length()));
      case '!' -> new Reply.Error(new String(bytes(length()), StandardCharsets.UTF_8));
      default ->
          throw new RespProtocolException(
              "unknown RESP3 type byte 0x" + Integer.toHexString(type & 0xff));
    };
  }

  private Reply bulkOrNull() throws IOException {
    long n = number();
    return n == -1 ? Reply.NULL : new Reply.Bulk(bytes(checkLength(n)));
  }

  private Reply boolTail() throws IOException {
    String b = line();
    return switch (b) {
      case "t" -> new Reply.Bool(true);
      case "f" -> new Reply.Bool(false);
      default -> throw new RespProtocolException("a boolean is #t or #f, not #" + b);
    };
  }

  private static Reply bigNumber(String digits) throws RespProtocolException {
    try {
      return new Reply.BigNumber(new BigInteger(digits));
    } catch (NumberFormatException e) {
      throw new RespProtocolException("not a big number: (" + digits);
    }
  }

  private static Reply verbatim(byte[] body) throws RespProtocolException {
    if (body.length < 4 || body[3] != ':') {
      throw new RespProtocolException("a verbatim string starts with a format and ':'");
    }
    return new Reply.Verbatim(
        new String(body, 0, 3, StandardCharsets.US_ASCII),
        new String(body, 4, body.length - 4, StandardCharsets.UTF_8));
  }

  private static double parseDouble(String text) throws RespProtocolException {
    switch (text) {
      case "inf", "+inf" -> {
        return Double.POSITIVE_INFINITY;
      }
      case "-inf" -> {
        return Double.NEGATIVE_INFINITY;
      }
      case "nan", "-nan" -> {
        return Double.NaN;
      }
      default -> {
        try {
          return Double.parseDouble(text);
        } catch (NumberFormatException e) {
          throw new RespProtocolException("not a double: ," + text);
        }
      }
    }
  }

  private List<Reply> elements(long n, int depth) throws IOException {
    List<Reply> list = new ArrayList<>((int) Math.min(n, 1024));
    for (long i = 0; i < n; i++) {
      list.add(value(depth + 1));
    }
    return list;
  }

  private Map<Reply, Reply> entries(long n, int depth) throws IOException {
    Map<Reply, Reply> map = new LinkedHashMap<>();
    for (long i = 0; i < n; i++) {
      Reply key = value(depth + 1);
      map.put(key, value(depth + 1));
    }
    return map;
  }

  private long count() throws IOException {
    return checkCount(number());
  }

  private static long checkCount(long n) throws RespProtocolException {
    if (n < 0) {
      throw new RespProtocolException("negative aggregate length " + n);
    }
    return n;
  }

  private int length() throws IOException {
    return checkLength(number());
  }

  private static int checkLength(long n) throws RespProtocolException {
    if (n < 0 || n > MAX_BULK) {
      throw new RespProtocolException("string length " + n + " outside 0.." + MAX_BULK);
    }
    return (int) n;
  }

  /**
   * {@code n} bytes and the CRLF after them. Up to {@link #PREALLOCATE} bytes the array is made at
   * once; a longer one grows as its bytes arrive, so a length the server never backs with bytes
   * costs nothing.
   */
  private byte[] bytes(int n) throws IOException {
    byte[] out = copied(n);
    if (next() != '\r' || next() != '\n') {
      throw new RespProtocolException("a string of " + n + " bytes is not followed by CRLF");
    }
    return out;
  }

  /** The next {@code n} bytes, copied into an array of their own. */
  private byte[] copied(int n) throws IOException {
    byte[] out = new byte[Math.min(n, PREALLOCATE)];
    int have = (int) Math.min(n, limit - position);
    out = room(out, have, n);
    MemorySegment.copy(window, ValueLayout.JAVA_BYTE, position, out, 0, have);
    position += have;
    while (have < n) {
      out = room(out, have + 1, n);
      if (inPlace == null) {
        // Straight into the array: a long string does not pass through the buffer.
        int r = transport.read(out, have, out.length - have);
        if (r < 0) {
          throw eof();
        }
        have += r;
      } else {
        if (position == limit) {
          fill();
        }
        int r = (int) Math.min(out.length - have, limit - position);
        MemorySegment.copy(window, ValueLayout.JAVA_BYTE, position, out, have, r);
        position += r;
        have += r;
      }
    }
    return out;
  }

  /** {@code out}, or a copy twice as large (at most {@code n}) if it has less than {@code need}. */
  private static byte[] room(byte[] out, int need, int n) {
    if (need <= out.length) {
      return out;
    }
    return Arrays.copyOf(out, (int) Math.min(n, Math.max(need, 2L * out.length)));
  }

  /** A signed decimal ending the line. */
  private long number() throws IOException {
    byte b = next();
    boolean negative = b == '-';
    if (negative || b == '+') {
      b = next();
    }
    long value = 0; // accumulated negatively, so that Long.MIN_VALUE fits
    int digits = 0;
    try {
      while (b >= '0' && b <= '9') {
        digits++;
        value = Math.subtractExact(Math.multiplyExact(value, 10), b - '0');
        b = next();
      }
      if (digits == 0 || b != '\r' || next() != '\n') {
        throw new RespProtocolException("malformed number in a reply header");
      }
      return negative ? value : Math.negateExact(value);
    } catch (ArithmeticException e) {
      throw new RespProtocolException("number in a reply header outside the range of a long");
    }
  }

  private void endOfLine() throws IOException {
    if (next() != '\r' || next() != '\n') {
      throw new RespProtocolException("expected CRLF");
    }
  }

  /** The rest of the line, as UTF-8. */
  private String line() throws IOException {
    ByteArrayOutputStream text = new ByteArrayOutputStream(32);
    byte b;
    while ((b = next()) != '\r') {
      text.write(b);
    }
    if (next() != '\n') {
      throw new RespProtocolException("CR without LF in a reply line");
    }
    return text.toString(StandardCharsets.UTF_8);
  }

  private byte next() throws IOException {
    if (position == limit) {
      fill();
    }
    return window.get(ValueLayout.JAVA_BYTE, position++);
  }

  /** More bytes, once those in {@link #window} are all read: in place, or into the buffer. */
  private void fill() throws IOException {
    if (inPlace != null) {
      if (lent) {
        endLoan(limit);
      }
      int n = inPlace.await();
      window = inPlace.segment();
      lentFrom = position = inPlace.offset();
      limit = position + n;
      lent = true;
      return;
    }
    int n = transport.read(buffer, 0, buffer.length);
    if (n < 0) {
      throw eof();
    }
    position = 0;
    limit = n;
  }

  private EOFException eof() {
    return new EOFException("the server closed the connection");
  }
}
