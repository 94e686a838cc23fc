package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The wire: RESP arrays and inline commands (as telnet and {@code redis-cli} in a pipe send them),
 * pipelining, requests cut at any byte, and protocol violations. A violation is answered with
 * {@code -ERR Protocol error: ...} after the replies to everything before it, and that connection
 * is closed; other connections are untouched.
 */
class ProtocolConformanceTest extends AbstractConformanceTest {
  private static final String PONG = "+PONG\r\n";

  // ------------------------------------------------------------------ inline commands

  @Test
  void inlineCommands() throws IOException {
    c.sendRaw("PING\r\n");
    assertEquals(PONG, c.readReply());
    c.sendRaw("SET k   hello\n");
    assertEquals(OK, c.readReply());
    c.sendRaw("GET k\r\n");
    assertEquals(bulk("hello"), c.readReply());
    c.sendRaw("\r\n\n  \r\nEXISTS k\r\n"); // empty lines are skipped
    assertEquals(integer(1), c.readReply());
  }

  @Test
  void inlineQuotingAndEscapes() throws IOException {
    c.sendRaw("SET \"a key\" \"line\\r\\nbreak \\x41\\x7a \\\"q\\\"\"\r\n");
    assertEquals(OK, c.readReply());
    assertEquals(bulk("line\r\nbreak Az \"q\""), c.call("GET", "a key"));
    c.sendRaw("SET 'single quoted' 'it\\'s'\r\n");
    assertEquals(OK, c.readReply());
    assertEquals(bulk("it's"), c.call("GET", "single quoted"));
    c.sendRaw("SET empty \"\"\r\n");
    assertEquals(OK, c.readReply());
    assertEquals(EMPTY_BULK, c.call("GET", "empty"));
  }

  @Test
  void inlineErrorsKeepTheConnection() throws IOException {
    c.sendRaw("NOSUCH a b\r\n");
    assertEquals(
        error("ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' "), c.readReply());
    c.sendRaw("GET\r\n");
    assertEquals(arity("get"), c.readReply());
    c.sendRaw("PING\r\n");
    assertEquals(PONG, c.readReply());
  }

  // ------------------------------------------------------------------ pipelining and fragmentation

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws IOException {
    StringBuilder pipeline = new StringBuilder();
    for (int i = 0; i < 500; i++) {
      pipeline
          .append(RawClient.command("SET", "k" + i, "v" + i))
          .append(RawClient.command("GET", "k" + i));
      pipeline.append(i % 50 == 0 ? "INCR counter\r\n" : RawClient.command("INCR", "counter"));
    }
    c.sendRaw(pipeline.toString());
    for (int i = 0; i < 500; i++) {
      assertEquals(OK, c.readReply());
      assertEquals(bulk("v" + i), c.readReply());
      assertEquals(integer(i + 1), c.readReply());
    }
  }

  @Test
  void aRequestCutAtEveryByteIsStillOneRequest() throws Exception {
    byte[] request =
        (RawClient.command("SET", "split", "a value\r\nwith CRLF") + "GET split\r\n")
            .getBytes(StandardCharsets.ISO_8859_1);
    for (byte b : request) {
      c.sendRaw(new byte[] {b});
    }
    assertEquals(OK, c.readReply());
    assertEquals(bulk("a value\r\nwith CRLF"), c.readReply());
  }

  @Test
  void emptyAndNullArraysAreIgnored() throws IOException {
    c.sendRaw("*0\r\n*-1\r\n" + RawClient.command("PING"));
    assertEquals(PONG, c.readReply());
  }

  @Test
  void largeValuesRoundTrip() throws IOException {
    String value = "x".repeat(3 * 1024 * 1024 + 7);
    assertEquals(OK, c.call("SET", "big", value));
    assertEquals(bulk(value), c.call("GET", "big"));
    assertEquals(integer(value.length()), c.call("STRLEN", "big"));
  }

  // ------------------------------------------------------------------ protocol errors close the
  // connection

  @Test
  void invalidMultibulkLength() throws IOException {
    assertProtocolError("*abc\r\n", "invalid multibulk length");
    assertProtocolError("*99999999999\r\n", "invalid multibulk length");
  }

  @Test
  void invalidBulkLength() throws IOException {
    assertProtocolError("*1\r\n$abc\r\n", "invalid bulk length");
    assertProtocolError("*1\r\n$-5\r\n", "invalid bulk length");
    assertProtocolError("*2\r\n$3\r\nGET\r\n$-1\r\n", "invalid bulk length");
  }

  @Test
  void oversizedBulk() throws IOException {
    // Larger than proto-max-bulk-len in both (Redis: 512 MB, Cellar: 16 MB by default); refused
    // from the header alone, before any of it is sent.
    assertProtocolError("*2\r\n$3\r\nSET\r\n$9999999999\r\n", "invalid bulk length");
  }

  @Test
  void bulkWithoutDollar() throws IOException {
    assertProtocolError("*1\r\nPING\r\n", "expected '$', got 'P'");
  }

  @Test
  void unbalancedQuotes() throws IOException {
    assertProtocolError("SET k \"abc\r\n", "unbalanced quotes in request");
    assertProtocolError("SET k 'abc\r\n", "unbalanced quotes in request");
    assertProtocolError("SET k \"abc\"def\r\n", "unbalanced quotes in request");
  }

  @Test
  void headersAndLinesWithoutEnd() throws IOException {
    // Redis gives up on a line once 64 KiB have arrived without its end.
    assertProtocolError("*" + "1".repeat(70_000), "too big mbulk count string");
    assertProtocolError("*1\r\n$" + "1".repeat(70_000), "too big bulk count string");
    assertProtocolError("PING" + " ".repeat(70_000), "too big inline request");
  }

  @Test
  void binaryGarbage() throws IOException {
    // (No NUL bytes: Redis looks for the end of a header with strchr, so it waits for more after
    // a NUL and only gives up at the 64 KiB limit.)
    assertProtocolError("*\u00ff\u0001\r\n", "invalid multibulk length");
    assertProtocolError("*1\r\n\u0001\u0002\r\n", "expected '$', got '\u0001'");
    assertProtocolError("*2\r\n$3\r\nGET\r\n:1\r\n", "expected '$', got ':'");
  }

  @Test
  void nothingPipelinedAfterQuitRuns() throws IOException {
    // Requests are parsed ahead of execution in runs; QUIT must still end the run where it stands.
    try (RawClient d = server.connect()) {
      d.sendRaw(
          RawClient.command("SET", "q-before", "1")
              + RawClient.command("QUIT")
              + RawClient.command("SET", "q-after", "1"));
      assertEquals(OK, d.readReply());
      assertEquals(OK, d.readReply());
      assertTrue(d.closedByServer(), "QUIT closes the connection");
    }
    assertEquals(bulk("1"), c.call("GET", "q-before"));
    assertEquals(NIL, c.call("GET", "q-after"), "nothing after QUIT runs");
  }

  @Test
  void repliesBeforeTheViolationAreSentFirst() throws IOException {
    c.sendRaw(
        RawClient.command("SET", "before", "1")
            + "PING\r\n*abc\r\n"
            + RawClient.command("SET", "after", "1"));
    assertEquals(OK, c.readReply());
    assertEquals(PONG, c.readReply());
    assertEquals(error("ERR Protocol error: invalid multibulk length"), c.readReply());
    assertTrue(c.closedByServer(), "the connection must be closed after a protocol error");
    try (RawClient d = server.connect()) {
      assertEquals(bulk("1"), d.call("GET", "before"));
      assertEquals(NIL, d.call("GET", "after"), "nothing after the violation runs");
    }
  }

  @Test
  void aProtocolErrorClosesOnlyItsOwnConnection() throws IOException {
    try (RawClient bystander = server.connect()) {
      assertEquals(PONG, bystander.call("PING"));
      assertProtocolError("*x\r\n", "invalid multibulk length");
      assertEquals(PONG, bystander.call("PING"));
    }
  }

  /**
   * Sends {@code bytes} on a new connection and expects exactly the protocol error {@code message},
   * then the server closing that connection.
   */
  private void assertProtocolError(String bytes, String message) throws IOException {
    try (RawClient bad = server.connect()) {
      bad.sendRaw(bytes);
      assertEquals(
          error("ERR Protocol error: " + message),
          bad.readReply(),
          () -> "for " + printable(bytes));
      assertTrue(
          bad.closedByServer(), () -> "still open after a protocol error for " + printable(bytes));
    }
    assertEquals(PONG, c.call("PING"), "the server goes on");
  }

  private static String printable(String bytes) {
    String head = bytes.length() > 60 ? bytes.substring(0, 60) + "..." : bytes;
    return head.replace("\r", "\\r").replace("\n", "\\n").replace("\0", "\\0");
  }
}
