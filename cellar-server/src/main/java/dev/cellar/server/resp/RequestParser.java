package dev.cellar.server.resp;

import java.util.List;

/**
 * Parses RESP requests (arrays of bulk strings) and inline commands (a line of space-separated,
 * optionally quoted words, as {@code redis-cli} and {@code telnet} send) straight from the
 * connection's input buffer, without copying arguments.
 *
 * <p>Incremental. A request that ends past the bytes received so far leaves its progress here: the
 * arguments read stay in its {@link Request}, and the next call for the same request (same buffer,
 * start and {@code Request}) goes on from the first header not yet read, or, for an inline line,
 * from where the search for its newline stopped. So a request costs time linear in its size however
 * finely it is split: a 200,000-argument MSET trickled in 50-byte pieces had cost the server 1.4 s
 * of CPU when every piece re-read all the headers before it. When the connection moves its
 * unconsumed bytes (to the start of its buffer, or into a larger one), it says so through {@link
 * #moved}, and the progress is moved with them. One parser per connection; not thread-safe.
 *
 * <p>Limits, as Redis has them: at most {@value #MAX_MULTIBULK} arguments, each at most the
 * configured bulk length; a header or inline line must end within {@value #MAX_INLINE} bytes.
 * Before a client authenticates ({@link #authenticated(boolean)}), as in Redis 7.2: at most {@value
 * #MAX_UNAUTHENTICATED_MULTIBULK} arguments, each at most {@value #MAX_UNAUTHENTICATED_BULK} bytes.
 * Anything else is a {@link ProtocolException} with Redis's message.
 */
public final class RequestParser {
  /** {@link #parse} result: the buffer ends inside a request. */
  public static final int NEED_MORE = -1;

  static final int MAX_MULTIBULK = 1024 * 1024;
  static final int MAX_INLINE = 64 * 1024;
  static final int MAX_UNAUTHENTICATED_MULTIBULK = 10;
  static final int MAX_UNAUTHENTICATED_BULK = 16 * 1024;

  private final long maxBulkLength;
  private boolean authenticated = true;

  // The request left incomplete by the last call, if any: where it starts, in which buffer and
  // Request; for a multibulk, the next header to read and the bulks still to come; for an inline
  // line, how far the newline search went.
  private Request partial;
  private boolean partialInline;
  private byte[] partialBuffer;
  private int partialStart;
  private int resumeAt;
  private long remaining;

  /** Where the search for the end of the line being read goes on: the bytes before hold no CRLF. */
  private int scanned;

  public RequestParser(long maxBulkLength) {
    this.maxBulkLength = maxBulkLength;
  }

  /** Whether the client has authenticated; until it has, Redis's smaller limits apply. */
  public void authenticated(boolean value) {
    this.authenticated = value;
  }

  /**
   * The connection moved its unconsumed bytes, which begin at {@code oldStart} in the old buffer,
   * to {@code newStart} in {@code buffer}: an incomplete request among them is resumed there.
   */
  public void moved(int oldStart, byte[] buffer, int newStart) {
    if (partial == null || partialStart < oldStart) {
      partial = null;
      return;
    }
    int delta = newStart - oldStart;
    partial.moved(buffer, delta);
    partialBuffer = buffer;
    partialStart += delta;
    resumeAt += delta;
    scanned += delta;
  }

  /**
   * Parses one request from {@code buf[start, end)} into {@code request}; returns the position
   * after it, or {@link #NEED_MORE}. A request with no arguments (an empty line, {@code *0}) is
   * returned with {@code argc() == 0}: callers skip it. Inline arguments are unescaped in place, so
   * the buffer is modified within the parsed line.
   */
  public int parse(byte[] buf, int start, int end, Request request) throws ProtocolException {
    boolean resume =
        partial == request && partialBuffer == buf && partialStart == start && resumeAt <= end;
    partial = null;
    if (!resume) {
      request.reset(buf);
      if (start >= end) {
        return NEED_MORE;
      }
      resumeAt = -1;
      scanned = start;
      partialInline = buf[start] != '*';
    }
    int next =
        partialInline
            ? parseInline(buf, start, end, request)
            : parseMultibulk(buf, start, end, request);
    if (next == NEED_MORE) {
      partial = request;
      partialBuffer = buf;
      partialStart = start;
    }
    return next;
  }

  private int parseMultibulk(byte[] buf, int start, int end, Request request)
      throws ProtocolException {
    int at;
    if (resumeAt >= 0) {
      at = resumeAt;
    } else {
      int lineEnd = findCrlf(buf, Math.max(start + 1, scanned), end);
      if (lineEnd < 0) {
        if (end - start > MAX_INLINE) {
          throw new ProtocolException("too big mbulk count string");
        }
        scanned = Math.max(start + 1, end - 1); // a CR as the last byte may yet be followed by LF
        return NEED_MORE;
      }
      long count = parseLength(buf, start + 1, lineEnd);
      if (count == Long.MIN_VALUE || count > MAX_MULTIBULK) {
        throw new ProtocolException("invalid multibulk length");
      }
      if (count > MAX_UNAUTHENTICATED_MULTIBULK && !authenticated) {
        throw new ProtocolException("unauthenticated multibulk length");
      }
      at = lineEnd + 2;
      if (count <= 0) {
        return at; // "*0" and negative counts are empty requests, skipped as Redis does
      }
      remaining = count;
    }
    for (; remaining > 0; remaining--) {
      if (resumeAt != at) {
        resumeAt = at;
        scanned = at + 1;
      }
      if (at >= end) {
        return NEED_MORE;
      }
      if (buf[at] != '$') {
        throw new ProtocolException("expected '$', got '" + (char) (buf[at] & 0xff) + "'");
      }
      int headerEnd = findCrlf(buf, Math.max(at + 1, scanned), end);
      if (headerEnd < 0) {
        if (end - at > MAX_INLINE) {
          throw new ProtocolException("too big bulk count string");
        }
        scanned = Math.max(at + 1, end - 1);
        return NEED_MORE;
      }
      long length = parseLength(buf, at + 1, headerEnd);
      if (length < 0 || length > maxBulkLength) {
        throw new ProtocolException("invalid bulk length");
      }
      if (length > MAX_UNAUTHENTICATED_BULK && !authenticated) {
        throw new ProtocolException("unauthenticated bulk length");
      }
      int bodyStart = headerEnd + 2;
      long bodyEnd = bodyStart + length;
      if (bodyEnd + 2 > end) {
        return NEED_MORE;
      }
      if (buf[(int) bodyEnd] != '\r' || buf[(int) bodyEnd + 1] != '\n') {
        throw new ProtocolException("expected CRLF after bulk string");
      }
      request.add(bodyStart, (int) length);
      at = (int) bodyEnd + 2;
    }
    return at;
  }

  /**
   * A non-negative decimal, -1 for any negative one; {@code Long.MIN_VALUE} when it is not a
   * number.
   */
  private static long parseLength(byte[] buf, int from, int to) {
    if (from == to || to - from > 18) {
      return Long.MIN_VALUE;
    }
    if (buf[from] == '-') {
      // Any negative count is an empty request, as in Redis; a negative bulk length is refused.
      if (to - from < 2) {
        return Long.MIN_VALUE;
      }
      for (int i = from + 1; i < to; i++) {
        if (buf[i] < '0' || buf[i] > '9') {
          return Long.MIN_VALUE;
        }
      }
      return -1;
    }
    long value = 0;
    for (int i = from; i < to; i++) {
      int d = buf[i] - '0';
      if (d < 0 || d > 9) {
        return Long.MIN_VALUE;
      }
      value = value * 10 + d;
    }
    return value;
  }

  /** Index of the {@code \r} of the first CRLF in {@code [from, end)}, or -1. */
  private static int findCrlf(byte[] buf, int from, int end) {
    for (int i = from; i + 1 < end; i++) {
      if (buf[i] == '\r') {
        if (buf[i + 1] == '\n') {
          return i;
        }
      }
    }
    return -1;
  }

  private int parseInline(byte[] buf, int start, int end, Request request)
      throws ProtocolException {
    int newline = -1;
    // The newline search resumes where the last call's stopped: the bytes before it hold none.
    for (int i = scanned; i < end; i++) {
      if (buf[i] == '\n') {
        newline = i;
        break;
      }
    }
    // The limit holds for the line however it arrives: checked only while the newline is missing,
    // a long line would be refused when split across reads and accepted when read at once.
    if (newline < 0 ? end - start > MAX_INLINE : newline - start > MAX_INLINE) {
      throw new ProtocolException("too big inline request");
    }
    if (newline < 0) {
      scanned = end;
      return NEED_MORE;
    }
    int lineEnd = newline > start && buf[newline - 1] == '\r' ? newline - 1 : newline;
    splitInline(buf, start, lineEnd, request);
    return newline + 1;
  }

  /**
   * The words of {@code line} as Redis's {@code sdssplitargs} splits them (quotes and escapes, as
   * below), or null if its quotes are unbalanced: for texts other than requests that Redis splits
   * so, a function library's first line.
   */
  public static List<byte[]> splitArgs(byte[] line) {
    byte[] buf = line.clone();
    Request words = new Request();
    words.reset(buf);
    try {
      splitInline(buf, 0, buf.length, words);
    } catch (ProtocolException e) {
      return null;
    }
    List<byte[]> out = new java.util.ArrayList<>(words.argc());
    for (int i = 0; i < words.argc(); i++) {
      out.add(words.bytes(i));
    }
    return out;
  }

  /**
   * Splits a line into words as Redis's {@code sdssplitargs} does: double quotes with escapes
   * ({@code \n \r \t \b \a \\ \" \xHH}), single quotes with {@code \'}, and a closing quote must be
   * followed by a space or the end. Unescaped words are written back over the line.
   */
  private static void splitInline(byte[] buf, int from, int to, Request request)
      throws ProtocolException {
    int i = from;
    while (true) {
      while (i < to && isSpace(buf[i])) {
        i++;
      }
      if (i >= to) {
        return;
      }
      int out = i;
      int wordStart = i;
      boolean inDouble = false;
      boolean inSingle = false;
      boolean done = false;
      while (!done) {
        if (inDouble) {
          if (i >= to) {
            throw new ProtocolException("unbalanced quotes in request");
          }
          byte c = buf[i];
          if (c == '\\'
              && i + 3 < to
              && buf[i + 1] == 'x'
              && isHex(buf[i + 2])
              && isHex(buf[i + 3])) {
            buf[out++] = (byte) (hex(buf[i + 2]) * 16 + hex(buf[i + 3]));
            i += 4;
          } else if (c == '\\' && i + 1 < to) {
            byte e = buf[i + 1];
            buf[out++] =
                switch (e) {
                  case 'n' -> (byte) '\n';
                  case 'r' -> (byte) '\r';
                  case 't' -> (byte) '\t';
                  case 'b' -> (byte) '\b';
                  case 'a' -> (byte) 7;
                  default -> e;
                };
            i += 2;
          } else if (c == '"') {
            if (i + 1 < to && !isSpace(buf[i + 1])) {
              throw new ProtocolException("unbalanced quotes in request");
            }
            i++;
            done = true;
          } else {
            buf[out++] = c;
            i++;
          }
        } else if (inSingle) {
          if (i >= to) {
            throw new ProtocolException("unbalanced quotes in request");
          }
          byte c = buf[i];
          if (c == '\\' && i + 1 < to && buf[i + 1] == '\'') {
            buf[out++] = '\'';
            i += 2;
          } else if (c == '\'') {
            if (i + 1 < to && !isSpace(buf[i + 1])) {
              throw new ProtocolException("unbalanced quotes in request");
            }
            i++;
            done = true;
          } else {
            buf[out++] = c;
            i++;
          }
        } else {
          if (i >= to || isSpace(buf[i])) {
            done = true;
          } else if (buf[i] == '"') {
            inDouble = true;
            i++;
          } else if (buf[i] == '\'') {
            inSingle = true;
            i++;
          } else {
            buf[out++] = buf[i++];
          }
        }
      }
      request.add(wordStart, out - wordStart);
      if (request.argc() > MAX_MULTIBULK) {
        throw new ProtocolException("invalid multibulk length");
      }
    }
  }

  private static boolean isSpace(byte c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
  }

  private static boolean isHex(byte c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static int hex(byte c) {
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
  }
}
