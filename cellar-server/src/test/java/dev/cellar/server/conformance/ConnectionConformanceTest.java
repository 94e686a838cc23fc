package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Connection commands and what every command shares: unknown commands, wrong arity, AUTH and
 * NOAUTH, HELLO and RESP3, CLIENT, SELECT, QUIT. After each error the same connection must go on
 * answering, which most tests check with a PING.
 */
class ConnectionConformanceTest extends AbstractConformanceTest {
  private static final String PONG = "+PONG\r\n";

  /**
   * {@code CLIENT REPLY}: OFF silences this client's answers, itself included, until ON; SKIP
   * silences itself and the next command. The commands still run. Pub/sub confirmations and
   * messages still arrive (Redis pushes them).
   */
  @Test
  void clientReplySilencesAnswersNotCommands() throws Exception {
    try (RawClient quiet = server.connect()) {
      quiet.send("CLIENT", "REPLY", "OFF");
      quiet.send("SET", "r1", "a");
      quiet.send("CLIENT", "REPLY", "ON");
      assertEquals(OK, quiet.readReply());
      quiet.send("CLIENT", "REPLY", "SKIP");
      quiet.send("SET", "r2", "b");
      quiet.send("GET", "r2");
      assertEquals(bulk("b"), quiet.readReply());
      // ON right after SKIP is answered, though it is the command SKIP silences.
      quiet.send("CLIENT", "REPLY", "SKIP");
      quiet.send("CLIENT", "REPLY", "ON");
      assertEquals(OK, quiet.readReply());
      quiet.send("PING");
      assertEquals(PONG, quiet.readReply());
      assertEquals(bulk("a"), c.call("GET", "r1"));
      quiet.send("CLIENT", "REPLY", "OFF");
      quiet.send("SUBSCRIBE", "ch");
      assertEquals(
          "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n",
          quiet.readReply(),
          "a confirmation is pushed even so");
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!c.call("PUBLISH", "ch", "hello").equals(integer(1))) {
        assertTrue(System.nanoTime() < deadline, "the subscription never took");
        Thread.sleep(10);
      }
      assertEquals(array("message", "ch", "hello"), quiet.readReply());
    }
    assertEquals(error("ERR syntax error"), c.call("CLIENT", "REPLY", "MAYBE"));
  }

  @Test
  void pingAndEcho() throws IOException {
    assertEquals(PONG, c.call("PING"));
    assertEquals(PONG, c.call("pInG"));
    assertEquals(bulk("hello world"), c.call("PING", "hello world"));
    assertEquals(arity("ping"), c.call("PING", "a", "b"));
    assertEquals(bulk("a\r\n\0b"), c.call("ECHO", "a\r\n\0b"));
    assertEquals(arity("echo"), c.call("ECHO"));
    assertEquals(PONG, c.call("PING"));
  }

  @Test
  void unknownCommandsQuoteTheirFirstArgumentsAndTheConnectionGoesOn() throws IOException {
    assertEquals(
        error("ERR unknown command 'FOO', with args beginning with: 'a' 'b c' "),
        c.call("FOO", "a", "b c"));
    assertEquals(
        error("ERR unknown command 'nosuch', with args beginning with: "), c.call("nosuch"));
    String longArg = "x".repeat(200);
    assertEquals(
        error("ERR unknown command 'FOO', with args beginning with: '" + "x".repeat(128) + "' "),
        c.call("FOO", longArg, "second"));
    assertEquals(
        error("ERR unknown command '" + "y".repeat(128) + "', with args beginning with: "),
        c.call("y".repeat(300)));
    // An error reply is one line: line breaks in the echoed arguments become spaces.
    assertEquals(
        error("ERR unknown command 'FOO', with args beginning with: 'a  b' "),
        c.call("FOO", "a\r\nb"));
    assertEquals(PONG, c.call("PING"));
    c.call("SET", "k", "v");
    assertEquals(bulk("v"), c.call("GET", "k"));
  }

  @Test
  void wrongArityForEachFamilyAndTheConnectionGoesOn() throws IOException {
    String[][] calls = {
      {"get"},
      {"set", "k"},
      {"getex"},
      {"mget"},
      {"mset"},
      {"incrbyfloat", "k"},
      {"del"},
      {"exists"},
      {"expire", "k"},
      {"ttl"},
      {"rename", "a"},
      {"keys"},
      {"scan"},
      {"randomkey", "x"},
      {"type"},
      {"persist", "a", "b"},
      {"echo"},
      {"select"},
      {"client"},
      {"dbsize", "x"},
      {"time", "x"},
      {"config"},
      {"save", "x"},
      {"auth"},
    };
    for (String[] call : calls) {
      String[] upper = call.clone();
      upper[0] = call[0].toUpperCase(java.util.Locale.ROOT);
      assertEquals(arity(call[0]), c.call(upper), String.join(" ", upper));
    }
    assertEquals(PONG, c.call("PING"));
  }

  @Test
  void subcommandsReportTheirArityAsContainerPipeSubcommand() throws IOException {
    // Redis 7 checks subcommand arity in the command table, naming 'container|subcommand'.
    assertEquals(arity("client|id"), c.call("CLIENT", "ID", "x"));
    assertEquals(arity("client|getname"), c.call("CLIENT", "GETNAME", "x"));
    assertEquals(arity("client|setname"), c.call("CLIENT", "SETNAME"));
    assertEquals(arity("client|info"), c.call("CLIENT", "INFO", "x"));
    assertEquals(arity("config|get"), c.call("CONFIG", "GET"));
    assertEquals(arity("config|set"), c.call("CONFIG", "SET", "maxmemory"));
    assertEquals(arity("config|resetstat"), c.call("CONFIG", "RESETSTAT", "x"));
    assertEquals(arity("command|count"), c.call("COMMAND", "COUNT", "x"));
    assertEquals(arity("command|getkeys"), c.call("COMMAND", "GETKEYS", "GET"));
    assertEquals(error("ERR unknown subcommand 'FOO'. Try CLIENT HELP."), c.call("CLIENT", "FOO"));
    assertEquals(error("ERR unknown subcommand 'foo'. Try CONFIG HELP."), c.call("CONFIG", "foo"));
    assertEquals(
        error("ERR unknown subcommand 'foo'. Try COMMAND HELP."), c.call("COMMAND", "foo"));
    assertEquals(PONG, c.call("PING"));
  }

  // ------------------------------------------------------------------ HELLO and RESP3

  @Test
  void helloRepliesWithTheServerDescription() throws IOException {
    List<?> hello = assertInstanceOf(List.class, c.callParsed("HELLO"));
    assertEquals(
        List.of("server", "version", "proto", "id", "mode", "role", "modules"),
        List.of(
            hello.get(0),
            hello.get(2),
            hello.get(4),
            hello.get(6),
            hello.get(8),
            hello.get(10),
            hello.get(12)));
    assertEquals("redis", hello.get(1));
    assertEquals(2L, hello.get(5));
    assertEquals(c.callParsed("CLIENT", "ID"), hello.get(7));
    assertEquals("standalone", hello.get(9));
    assertEquals("master", hello.get(11));
    assertEquals(List.of(), hello.get(13));
    // The version differs legitimately (Cellar announces the Redis version it follows, 7.2.0).
  }

  @Test
  void hello3SwitchesToResp3AndHello2Back() throws IOException {
    c.call("SET", "k", "v");
    String hello = c.call("HELLO", "3");
    assertTrue(hello.startsWith("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n"), hello);
    assertTrue(hello.contains("$5\r\nproto\r\n:3\r\n"), hello);
    assertEquals("_\r\n", c.call("GET", "missing"));
    assertEquals("*2\r\n$1\r\nv\r\n_\r\n", c.call("MGET", "k", "missing"));
    assertEquals("%1\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n", c.call("CONFIG", "GET", "maxmemory"));
    assertEquals("*1\r\n_\r\n", c.call("COMMAND", "INFO", "nosuch"));
    assertEquals(
        bulk("1.5"),
        c.call("INCRBYFLOAT", "f", "1.5"),
        "INCRBYFLOAT answers a bulk string, not a double");
    assertEquals(error("ERR unknown command 'FOO', with args beginning with: "), c.call("FOO"));
    List<?> back = assertInstanceOf(List.class, c.callParsed("HELLO", "2"));
    assertEquals(2L, back.get(5));
    assertEquals(NIL, c.call("GET", "missing"));
    assertEquals("*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n", c.call("CONFIG", "GET", "maxmemory"));
  }

  @Test
  void helloErrors() throws IOException {
    assertEquals(error("NOPROTO unsupported protocol version"), c.call("HELLO", "4"));
    assertEquals(error("NOPROTO unsupported protocol version"), c.call("HELLO", "1"));
    assertEquals(
        error("ERR Protocol version is not an integer or out of range"), c.call("HELLO", "three"));
    assertEquals(error("ERR Syntax error in HELLO option 'foo'"), c.call("HELLO", "3", "foo"));
    assertEquals(
        error("ERR Syntax error in HELLO option 'AUTH'"), c.call("HELLO", "3", "AUTH", "default"));
    assertEquals(
        error("ERR Client names cannot contain spaces, newlines or special characters."),
        c.call("HELLO", "3", "SETNAME", "a b"));
    assertEquals(
        error("WRONGPASS invalid username-password pair or user is disabled."),
        c.call("HELLO", "3", "AUTH", "nobody", "x"));
    assertEquals(NIL, c.call("GET", "missing"), "a failed HELLO leaves the protocol as it was");
    assertEquals(PONG, c.call("PING"));
  }

  @Test
  void helloSetname() throws IOException {
    c.callParsed("HELLO", "2", "SETNAME", "worker-1");
    assertEquals(bulk("worker-1"), c.call("CLIENT", "GETNAME"));
  }

  // ------------------------------------------------------------------ AUTH

  @Test
  void authWithoutAPasswordConfigured() throws IOException {
    assertEquals(
        error(
            "ERR AUTH <password> called without any password configured for the default user. Are you sure your"
                + " configuration is correct?"),
        c.call("AUTH", "secret"));
    assertEquals(
        OK,
        c.call("AUTH", "default", "anything"),
        "the default user has no password: any is accepted");
    assertEquals(
        error("WRONGPASS invalid username-password pair or user is disabled."),
        c.call("AUTH", "nobody", "x"));
    assertEquals(SYNTAX, c.call("AUTH", "a", "b", "c"));
    assertEquals(PONG, c.call("PING"));
  }

  @Test
  void requirepassGuardsNewConnections() throws IOException {
    // Redis 7.2 added "<proto>" to this message; 7.0 (the reference installed here) lacks it.
    String helloFirst =
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO"
            + (server.isRedis() && version().startsWith("7.0") ? "" : " <proto>")
            + " AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time";
    assertEquals(OK, c.call("CONFIG", "SET", "requirepass", "s3cret"));
    try {
      try (RawClient d = server.connect()) {
        assertEquals(error("NOAUTH Authentication required."), d.call("GET", "k"));
        assertEquals(error("NOAUTH Authentication required."), d.call("PING"));
        assertEquals(error(helloFirst), d.call("HELLO", "3"));
        assertEquals(
            error("WRONGPASS invalid username-password pair or user is disabled."),
            d.call("AUTH", "wrong"));
        assertEquals(
            error("WRONGPASS invalid username-password pair or user is disabled."),
            d.call("AUTH", "default", "wrong"));
        assertEquals(error("NOAUTH Authentication required."), d.call("SET", "k", "v"));
        assertEquals(OK, d.call("AUTH", "s3cret"));
        assertEquals(OK, d.call("SET", "k", "v"));
      }
      try (RawClient e = server.connect()) {
        String hello = e.call("HELLO", "3", "AUTH", "default", "s3cret");
        assertTrue(hello.startsWith("%7\r\n"), hello);
        assertEquals(bulk("v"), e.call("GET", "k"));
      }
      assertEquals(
          bulk("v"),
          c.call("GET", "k"),
          "a connection made before the password was set stays authenticated");
    } finally {
      assertEquals(OK, c.call("CONFIG", "SET", "requirepass", ""));
    }
    try (RawClient f = server.connect()) {
      assertEquals(PONG, f.call("PING"));
    }
  }

  // ------------------------------------------------------------------ CLIENT

  @Test
  void clientNamesAndIds() throws IOException {
    assertEquals(NIL, c.call("CLIENT", "GETNAME"));
    assertEquals(OK, c.call("CLIENT", "SETNAME", "conn-1"));
    assertEquals(bulk("conn-1"), c.call("client", "getname"));
    assertEquals(
        error("ERR Client names cannot contain spaces, newlines or special characters."),
        c.call("CLIENT", "SETNAME", "a b"));
    assertEquals(
        error("ERR Client names cannot contain spaces, newlines or special characters."),
        c.call("CLIENT", "SETNAME", "a\nb"));
    assertEquals(bulk("conn-1"), c.call("CLIENT", "GETNAME"));
    long id = (Long) c.callParsed("CLIENT", "ID");
    try (RawClient other = server.connect()) {
      assertTrue((Long) other.callParsed("CLIENT", "ID") > id, "ids increase");
    }
    String info = (String) c.callParsed("CLIENT", "INFO");
    assertTrue(info.startsWith("id=" + id + " addr=127.0.0.1:"), info);
    assertTrue(info.contains(" name=conn-1 "), info);
    assertTrue(info.endsWith("\n"), info);
    String list = (String) c.callParsed("CLIENT", "LIST");
    assertTrue(list.contains("id=" + id + " "), list);
    String mine = (String) c.callParsed("CLIENT", "LIST", "ID", Long.toString(id));
    assertEquals(1, mine.lines().count(), mine);
    assertTrue(mine.startsWith("id=" + id + " "), mine);
    assertEquals(EMPTY_BULK, c.call("CLIENT", "LIST", "ID", "999999999"));
    assertTrue(
        ((String) c.callParsed("CLIENT", "LIST", "TYPE", "normal")).contains("id=" + id + " "));
    assertEquals(error("ERR Invalid client ID"), c.call("CLIENT", "LIST", "ID", "abc"));
    assertEquals(
        error("ERR Unknown client type 'nobody'"), c.call("CLIENT", "LIST", "TYPE", "nobody"));
    assertEquals(SYNTAX, c.call("CLIENT", "LIST", "x"));
  }

  @Test
  void clientSetinfoFromRedis72() throws IOException {
    assumeFalse(
        server.isRedis() && version().startsWith("7.0"), "CLIENT SETINFO is new in Redis 7.2");
    assertEquals(OK, c.call("CLIENT", "SETINFO", "LIB-NAME", "my-lib"));
    assertEquals(OK, c.call("CLIENT", "SETINFO", "lib-ver", "1.2.3"));
    assertEquals(error("ERR Unrecognized option 'foo'"), c.call("CLIENT", "SETINFO", "foo", "x"));
    assertEquals(
        error("ERR LIB-NAME cannot contain spaces, newlines or special characters."),
        c.call("CLIENT", "SETINFO", "LIB-NAME", "my lib"));
    assertEquals(arity("client|setinfo"), c.call("CLIENT", "SETINFO", "lib-name"));
  }

  private String version() throws IOException {
    String info = (String) c.callParsed("INFO", "server");
    return info.lines()
        .filter(l -> l.startsWith("redis_version:"))
        .findFirst()
        .orElseThrow()
        .substring("redis_version:".length());
  }

  // ------------------------------------------------------------------ SELECT QUIT

  @Test
  void select() throws IOException {
    assertEquals(OK, c.call("SELECT", "0"));
    assertEquals(NOT_INTEGER, c.call("SELECT", "zero"));
    assertEquals(error("ERR DB index is out of range"), c.call("SELECT", "-1"));
    assertEquals(error("ERR DB index is out of range"), c.call("SELECT", "16"));
    assertEquals(OK, c.call("SELECT", "15"));
  }

  @Test
  void quitRepliesOkClosesAndRunsNothingAfterIt() throws IOException {
    c.sendRaw(RawClient.command("QUIT") + RawClient.command("SET", "after-quit", "1"));
    assertEquals(OK, c.readReply());
    assertTrue(c.closedByServer(), "QUIT must close the connection");
    try (RawClient d = server.connect()) {
      assertEquals(NIL, d.call("GET", "after-quit"));
    }
  }
}
