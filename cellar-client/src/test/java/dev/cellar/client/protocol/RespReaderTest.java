package dev.cellar.client.protocol;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.client.Reply;
import dev.cellar.client.transport.Transport;
import java.io.EOFException;
import java.io.IOException;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The decoder on every RESP3 type, including those Cellar's server never sends (booleans, big
 * numbers, pushes, attributes, blob errors), so they are checked on bytes written out here. Bytes
 * arrive one at a time, so every boundary falls inside a reply somewhere.
 */
class RespReaderTest {
  /** Reply bytes handed out {@code chunk} at a time. */
  static final class Bytes implements Transport {
    private final byte[] data;
    private final int chunk;
    private int position;

    Bytes(String text, int chunk) {
      this(text.getBytes(UTF_8), chunk);
    }

    Bytes(byte[] data, int chunk) {
      this.data = data;
      this.chunk = chunk;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {}

    @Override
    public void flush() {}

    @Override
    public int read(byte[] buffer, int offset, int length) {
      if (position == data.length) {
        return -1;
      }
      int n = Math.min(Math.min(length, chunk), data.length - position);
      System.arraycopy(data, position, buffer, offset, n);
      position += n;
      return n;
    }

    @Override
    public int readNow(byte[] buffer, int offset, int length) {
      return position == data.length ? -1 : read(buffer, offset, length);
    }

    @Override
    public String describe() {
      return "bytes";
    }

    @Override
    public void close() {}
  }

  static Reply one(String wire) throws IOException {
    RespReader oneByte = new RespReader(new Bytes(wire, 1));
    Reply reply = oneByte.read();
    assertEquals(reply.toString(), new RespReader(new Bytes(wire, 1 << 16)).read().toString());
    return reply;
  }

  @Test
  void scalars() throws IOException {
    assertEquals(new Reply.Simple("OK"), one("+OK\r\n"));
    assertEquals(new Reply.Error("ERR bad thing"), one("-ERR bad thing\r\n"));
    assertEquals(new Reply.Int(-42), one(":-42\r\n"));
    assertEquals(new Reply.Int(Long.MIN_VALUE), one(":-9223372036854775808\r\n"));
    assertEquals(new Reply.Int(Long.MAX_VALUE), one(":9223372036854775807\r\n"));
    assertArrayEquals("a\r\nb".getBytes(UTF_8), one("$4\r\na\r\nb\r\n").asBytes());
    assertArrayEquals(new byte[0], one("$0\r\n\r\n").asBytes());
    assertTrue(one("_\r\n").isNull());
    assertTrue(one("$-1\r\n").isNull());
    assertTrue(one("*-1\r\n").isNull());
    assertEquals(new Reply.Dbl(1.5), one(",1.5\r\n"));
    assertEquals(new Reply.Dbl(Double.POSITIVE_INFINITY), one(",inf\r\n"));
    assertEquals(new Reply.Dbl(Double.NEGATIVE_INFINITY), one(",-inf\r\n"));
    assertTrue(Double.isNaN(((Reply.Dbl) one(",nan\r\n")).value()));
    assertEquals(new Reply.Bool(true), one("#t\r\n"));
    assertEquals(new Reply.Bool(false), one("#f\r\n"));
    assertEquals(new Reply.Verbatim("txt", "Some string"), one("=15\r\ntxt:Some string\r\n"));
    assertEquals(
        new Reply.BigNumber(new BigInteger("3492890328409238509324850943850943825024385")),
        one("(3492890328409238509324850943850943825024385\r\n"));
    assertEquals(new Reply.Error("SYNTAX invalid"), one("!14\r\nSYNTAX invalid\r\n"));
  }

  @Test
  void aggregates() throws IOException {
    Reply array = one("*3\r\n:1\r\n$1\r\nx\r\n*1\r\n_\r\n");
    List<Reply> elements = array.asList();
    assertEquals(new Reply.Int(1), elements.get(0));
    assertEquals("x", elements.get(1).asString());
    assertTrue(elements.get(2).asList().get(0).isNull());

    Reply.MapReply map =
        assertInstanceOf(Reply.MapReply.class, one("%2\r\n+a\r\n:1\r\n+b\r\n#t\r\n"));
    assertEquals(
        Map.of(
            new Reply.Simple("a"), new Reply.Int(1), new Reply.Simple("b"), new Reply.Bool(true)),
        map.entries());

    Reply.SetReply set = assertInstanceOf(Reply.SetReply.class, one("~2\r\n+x\r\n+y\r\n"));
    assertEquals(List.of(new Reply.Simple("x"), new Reply.Simple("y")), set.elements());

    Reply.Push push = assertInstanceOf(Reply.Push.class, one(">2\r\n+message\r\n$2\r\nhi\r\n"));
    assertEquals("message", push.elements().get(0).asString());

    assertEquals(new Reply.Array(List.of()), one("*0\r\n"));
  }

  @Test
  void attributesAreReadAndDropped() throws IOException {
    assertEquals(
        new Reply.Int(7), one("|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n:7\r\n"));
  }

  @Test
  void repliesFollowOneAnotherInOneStream() throws IOException {
    RespReader reader = new RespReader(new Bytes("+OK\r\n:1\r\n$3\r\nabc\r\n", 3));
    assertEquals(new Reply.Simple("OK"), reader.read());
    assertEquals(new Reply.Int(1), reader.read());
    assertEquals("abc", reader.read().asString());
    assertThrows(EOFException.class, reader::read);
  }

  @Test
  void peerClosedKeepsWhatArrived() throws IOException {
    RespReader reader = new RespReader(new Bytes("+OK\r\n", 64));
    assertFalse(reader.peerClosed()); // the bytes were read, and stay for read()
    assertEquals(new Reply.Simple("OK"), reader.read());
    assertTrue(reader.peerClosed());
  }

  @Test
  void brokenStreamsAreProtocolErrors() {
    for (String wire :
        new String[] {
          "?x\r\n",
          ":12a\r\n",
          ":\r\n",
          ":99999999999999999999\r\n",
          "$3\r\nabcd\r\n",
          "$-5\r\n",
          "*-3\r\n",
          "$600000000\r\n",
          "#x\r\n",
          ",one\r\n",
          "(12x\r\n",
          "=3\r\ntxt\r\n",
          "~-1\r\n",
          "+OK\rX",
          "*1\r\n".repeat(100) + ":1\r\n",
        }) {
      assertThrows(RespProtocolException.class, () -> one(wire), wire);
    }
  }

  /**
   * Reply bytes lent in place, {@code chunk} at a time, from native memory, as the shared-memory
   * transport lends its ring: checks that every loan is ended before the next and that the reader
   * hands back exactly what it read.
   */
  static final class Lender implements Transport, Transport.InPlace {
    final java.lang.foreign.MemorySegment memory;
    private final long length;
    private final int chunk;
    private long consumed;
    private int lent = -1;

    Lender(String text, int chunk) {
      this(text.getBytes(UTF_8), chunk);
    }

    Lender(byte[] data, int chunk) {
      this.memory = java.lang.foreign.Arena.ofAuto().allocate(Math.max(1, data.length));
      java.lang.foreign.MemorySegment.copy(
          data, 0, memory, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, data.length);
      this.length = data.length;
      this.chunk = chunk;
    }

    long consumed() {
      return consumed;
    }

    @Override
    public int await() throws IOException {
      assertEquals(-1, lent, "a loan was not ended before the next");
      if (consumed == length) {
        throw new EOFException("no more");
      }
      lent = (int) Math.min(chunk, length - consumed);
      return lent;
    }

    @Override
    public int poll() throws IOException {
      return consumed == length ? 0 : await();
    }

    @Override
    public java.lang.foreign.MemorySegment segment() {
      return memory;
    }

    @Override
    public long offset() {
      return consumed;
    }

    @Override
    public void consume(int n) {
      assertTrue(n >= 0 && n <= lent, n + " consumed of " + lent + " lent");
      consumed += n;
      lent = -1;
    }

    @Override
    public InPlace inPlace() {
      return this;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {}

    @Override
    public void flush() {}

    @Override
    public int read(byte[] buffer, int offset, int length) {
      throw new AssertionError("an in-place transport is not read by copying");
    }

    @Override
    public int readNow(byte[] buffer, int offset, int length) {
      throw new AssertionError("an in-place transport is not read by copying");
    }

    @Override
    public String describe() {
      return "lender";
    }

    @Override
    public void close() {}
  }

  private static final Command<String> READ_TEXT =
      Command.reading(
          "GET",
          view -> {
            assertTrue(view.isReadOnly(), "the view is read-only");
            return new String(view.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), UTF_8);
          });

  private static final Command<Long> WHERE =
      Command.reading("GET", view -> view.isNative() ? view.address() : -1L);

  @Test
  void inPlaceRepliesAreTheSameRepliesAndEveryByteIsHandedBack() throws IOException {
    String wire = "+OK\r\n$5\r\nhello\r\n*2\r\n:1\r\n$1\r\nx\r\n$-1\r\n-ERR no\r\n$0\r\n\r\n";
    for (int chunk = 1; chunk <= wire.length(); chunk++) {
      Lender lender = new Lender(wire, chunk);
      RespReader reader = new RespReader(lender);
      assertEquals(new Reply.Simple("OK"), reader.read(READ_TEXT));
      assertEquals("hello", READ_TEXT.complete(reader.read(READ_TEXT)), "chunk " + chunk);
      assertEquals("x", reader.read().asList().get(1).asString());
      assertEquals(null, READ_TEXT.complete(reader.read(READ_TEXT)));
      Object error = reader.read(READ_TEXT);
      assertEquals(new Reply.Error("ERR no"), error);
      assertThrows(dev.cellar.client.CellarServerException.class, () -> READ_TEXT.complete(error));
      assertEquals("", READ_TEXT.complete(reader.read(READ_TEXT)));
      assertEquals(wire.length(), lender.consumed(), "chunk " + chunk);
      assertThrows(EOFException.class, reader::read);
    }
  }

  @Test
  void aValueThatLiesWholeInTheLentBytesIsViewedWhereItLies() throws IOException {
    Lender lender = new Lender("$5\r\nhello\r\n$5\r\nworld\r\n", 64);
    RespReader reader = new RespReader(lender);
    assertEquals(lender.memory.address() + 4, WHERE.complete(reader.read(WHERE)));
    assertEquals(lender.memory.address() + 15, WHERE.complete(reader.read(WHERE)));
    // Split across two loans: copied once, onto the heap.
    Lender split = new Lender("$5\r\nhello\r\n", 6);
    assertEquals(-1L, WHERE.complete(new RespReader(split).read(WHERE)));
  }

  @Test
  void aDecoderThatThrowsFailsItsOwnReplyOnly() throws IOException {
    Command<String> failing =
        Command.reading(
            "GET",
            view -> {
              throw new IllegalStateException("not mine");
            });
    for (int chunk : new int[] {1, 3, 64}) {
      Lender lender = new Lender("$3\r\nabc\r\n$3\r\ndef\r\n", chunk);
      RespReader reader = new RespReader(lender);
      Object outcome = reader.read(failing);
      assertThrows(IllegalStateException.class, () -> failing.complete(outcome));
      assertEquals("def", READ_TEXT.complete(reader.read(READ_TEXT)), "chunk " + chunk);
    }
  }

  @Test
  void inPlaceOverASocketViewsTheReceiveBuffer() throws IOException {
    RespReader reader = new RespReader(new Bytes("$5\r\nhello\r\n$3\r\nabc\r\n", 7));
    assertEquals("hello", READ_TEXT.complete(reader.read(READ_TEXT)));
    assertEquals("abc", READ_TEXT.complete(reader.read(READ_TEXT)));
  }
}
