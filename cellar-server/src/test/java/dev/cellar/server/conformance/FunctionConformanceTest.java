package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * FUNCTION LOAD/DELETE/FLUSH/LIST/STATS/KILL, FCALL and FCALL_RO: registering in both of Redis's
 * forms, flags and read-only calls, library metadata errors, what loading code may not do.
 */
class FunctionConformanceTest extends AbstractConformanceTest {
  @AfterEach
  void flushFunctions() throws IOException {
    try (RawClient admin = server.connect()) {
      admin.call("FUNCTION", "FLUSH");
    }
  }

  private static final String LIB =
      "#!lua name=mylib\n"
          + "redis.register_function('echo', function(keys, args) return args[1] end)\n"
          + "redis.register_function{function_name='get', callback=function(keys, args)"
          + " return redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads'}\n"
          + "redis.register_function('put', function(keys, args)"
          + " return redis.call('set', keys[1], args[1]) end)";

  @Test
  void librariesLoadAndTheirFunctionsRun() throws IOException {
    assertEquals(bulk("mylib"), c.call("FUNCTION", "LOAD", LIB));
    assertEquals(bulk("hello"), c.call("FCALL", "echo", "0", "hello"));
    assertEquals(OK, c.call("FCALL", "put", "1", "k", "v"));
    assertEquals(bulk("v"), c.call("FCALL", "get", "1", "k"));
    assertEquals(bulk("v"), c.call("FCALL_RO", "get", "1", "k"));
    assertEquals(
        error("ERR Can not execute a script with write flag using *_ro command."),
        c.call("FCALL_RO", "put", "1", "k", "w"));
    assertEquals(error("ERR Function not found"), c.call("FCALL", "nosuch", "0"));
    assertEquals(bulk("hi"), c.call("FCALL", "ECHO", "0", "hi"), "names are case-insensitive");
    assertEquals(error("ERR Function not found"), c.call("FCALL", "nosuch", "x"));
    assertEquals(error("ERR Bad number of keys provided"), c.call("FCALL", "echo", "x"));
    assertEquals(
        error("ERR Unknown option given: foo"), c.call("FUNCTION", "LOAD", "foo", "bar", LIB));
    assertEquals(
        error("ERR Number of keys can't be greater than number of args"),
        c.call("FCALL", "echo", "2", "a"));
    assertEquals(error("ERR Library 'mylib' already exists"), c.call("FUNCTION", "LOAD", LIB));
    assertEquals(bulk("mylib"), c.call("FUNCTION", "LOAD", "REPLACE", LIB));
    String other = "#!lua name=other\nredis.register_function('echo', function() return 1 end)";
    assertEquals(error("ERR Function echo already exists"), c.call("FUNCTION", "LOAD", other));
    assertEquals(OK, c.call("FUNCTION", "DELETE", "mylib"));
    assertEquals(error("ERR Function not found"), c.call("FCALL", "echo", "0", "x"));
    assertEquals(error("ERR Library not found"), c.call("FUNCTION", "DELETE", "mylib"));
  }

  @Test
  void metadataAndLoadingErrorsAreRedis() throws IOException {
    assertEquals(error("ERR Missing library metadata"), c.call("FUNCTION", "LOAD", "return 1"));
    assertEquals(error("ERR Engine 'js' not found"), c.call("FUNCTION", "LOAD", "#!js name=a\nx"));
    assertEquals(error("ERR Library name was not given"), c.call("FUNCTION", "LOAD", "#!lua\nx"));
    assertEquals(
        error("ERR Invalid metadata value given: foo=bar"),
        c.call("FUNCTION", "LOAD", "#!lua name=b foo=bar\nx"));
    assertEquals(
        error("ERR No functions registered"),
        c.call("FUNCTION", "LOAD", "#!lua name=empty\nlocal a = 1"));
    assertEquals(
        error(
            "ERR Error registering functions: ERR user_function:2: Script attempted to access"
                + " nonexistent global variable 'call'"),
        c.call("FUNCTION", "LOAD", "#!lua name=bad\nredis.call('set', 'a', 'b')"));
    assertEquals(error("NOTBUSY No scripts in execution right now."), c.call("FUNCTION", "KILL"));
    // The first line is split as Redis splits arguments: quotes are taken off.
    assertEquals(
        error("ERR Invalid metadata value, name argument was given multiple times"),
        c.call("FUNCTION", "LOAD", "#!lua name=foo name=bar\nx"));
    assertEquals(
        bulk("quoted"),
        c.call(
            "FUNCTION",
            "LOAD",
            "#!lua name=\"quoted\"\nredis.register_function('fq', function() return 1 end)"));
    assertEquals(
        error("ERR Invalid library metadata"), c.call("FUNCTION", "LOAD", "#!lua name=oneline"));
    assertEquals(
        error("ERR Engine '' not found"),
        c.call("FUNCTION", "LOAD", "#! name=test\nredis.register_function('f', function() end)"));
    assertEquals(
        error("ERR library name argument was not given"),
        c.call("FUNCTION", "LIST", "LIBRARYNAME"));
  }

  /**
   * Over maxmemory, as Redis: a function that may write is refused unless flagged allow-oom; a
   * script's commands that grow memory are refused until it has written; FUNCTION LOAD and RESTORE
   * are refused. Scripts could otherwise write past the limit.
   */
  @Test
  void overMaxmemoryScriptsAndFunctionsAreRefusedAsInRedis() throws IOException {
    String oom = "OOM command not allowed when used memory > 'maxmemory'.";
    c.call(
        "FUNCTION",
        "LOAD",
        "#!lua name=oom1\nredis.register_function{function_name='f_allow', callback=function()"
            + " return redis.call('set', 'x', '1') end, flags={'allow-oom'}}\n"
            + "redis.register_function('f_plain', function() return redis.call('set', 'x', '2')"
            + " end)\n"
            + "redis.register_function{function_name='f_ro', callback=function() return"
            + " redis.call('get', 'x') end, flags={'no-writes'}}");
    String dump = c.call("FUNCTION", "DUMP");
    c.call("XGROUP", "CREATE", "st", "g", "$", "MKSTREAM");
    assertEquals(OK, c.call("CONFIG", "SET", "maxmemory", "1"));
    try {
      // Deny-oom subcommands (their containers are not), as Redis flags them.
      assertEquals(error(oom), c.call("XGROUP", "CREATE", "st", "g2", "$"));
      assertEquals(error(oom), c.call("XGROUP", "CREATECONSUMER", "st", "g", "c"));
      assertEquals(OK, c.call("XGROUP", "SETID", "st", "g", "$"));
      assertEquals(error(oom), c.call("SET", "a", "b"));
      assertEquals(OK, c.call("FCALL", "f_allow", "1", "x"));
      assertEquals(error(oom), c.call("FCALL", "f_plain", "1", "x"));
      assertEquals(bulk("1"), c.call("FCALL", "f_ro", "1", "x"));
      assertTrue(
          c.call("EVAL", "return redis.call('set','y','1')", "1", "y").startsWith("-" + oom));
      assertEquals(error(oom), c.call("EVAL", "return redis.pcall('set','y','1')", "1", "y"));
      assertEquals(
          OK, c.call("EVAL", "redis.call('del','zz') return redis.call('set','y','1')", "1", "y"));
      assertEquals(integer(1), c.call("EVAL", "return 1", "0"));
      assertEquals(
          error(oom),
          c.call(
              "FUNCTION",
              "LOAD",
              "REPLACE",
              "#!lua name=oom2\nredis.register_function('f2', function() return 1 end)"));
      assertEquals(error(oom), c.call("FUNCTION", "RESTORE", dump, "REPLACE"));
    } finally {
      assertEquals(OK, c.call("CONFIG", "SET", "maxmemory", "0"));
    }
  }

  /**
   * A library's code sees only {@code redis} while it loads, as in Redis; the functions it
   * registers see the whole sandbox when they run.
   */
  @Test
  void loadingCodeSeesOnlyRedis() throws IOException {
    for (String global : List.of("math", "pcall", "getmetatable", "string", "tonumber")) {
      assertEquals(
          error(
              "ERR Error registering functions: ERR user_function:2: Script attempted to access"
                  + " nonexistent global variable '"
                  + global
                  + "'"),
          c.call(
              "FUNCTION",
              "LOAD",
              "#!lua name=g\nlocal x = "
                  + global
                  + "\nredis.register_function('g', function() return 1 end)"),
          global);
    }
    assertEquals(
        bulk("late"),
        c.call(
            "FUNCTION",
            "LOAD",
            "#!lua name=late\nredis.register_function('late', function()"
                + " return string.format('%d', math.floor(tonumber('7.5'))) end)"));
    assertEquals(bulk("7"), c.call("FCALL", "late", "0"));
  }

  @Test
  void versionConstantsInScriptsAndLibraries() throws IOException {
    String version = c.call("INFO", "server").replaceAll("(?s).*redis_version:([0-9.]+).*", "$1");
    String[] parts = version.split("\\.");
    long number =
        Long.parseLong(parts[0]) << 16 | Long.parseLong(parts[1]) << 8 | Long.parseLong(parts[2]);
    assertEquals(bulk(version), c.call("EVAL", "return redis.REDIS_VERSION", "0"));
    assertEquals(integer(number), c.call("EVAL", "return redis.REDIS_VERSION_NUM", "0"));
    assertEquals(
        bulk("ver"),
        c.call(
            "FUNCTION",
            "LOAD",
            "#!lua name=ver\nlocal v = redis.REDIS_VERSION_NUM\n"
                + "redis.register_function('v', function() return v end)"));
    assertEquals(integer(number), c.call("FCALL", "v", "0"));
  }

  /** redis.register_function's argument errors, with Redis's texts. */
  @Test
  void registrationErrorsAreRedis() throws IOException {
    String[][] cases = {
      {
        "redis.register_function(nil, function() return 1 end)",
        "first argument to redis.register_function must be a string"
      },
      {
        "redis.register_function('f', 1)",
        "second argument to redis.register_function must be a function"
      },
      {
        "redis.register_function('f')",
        "calling redis.register_function with a single argument is only applicable to Lua table"
            + " (representing named arguments)."
      },
      {"redis.register_function()", "wrong number of arguments to redis.register_function"},
      {
        "redis.register_function{callback=function() return 1 end}",
        "redis.register_function must get a function name argument"
      },
      {
        "redis.register_function{function_name='f'}",
        "redis.register_function must get a callback argument"
      },
      {
        "redis.register_function{function_name={}, callback=function() return 1 end}",
        "function_name argument given to redis.register_function must be a string"
      },
      {
        "redis.register_function{function_name='f', callback=1}",
        "callback argument given to redis.register_function must be a function"
      },
      {
        "redis.register_function('', function() return 1 end)",
        "Library names can only contain letters, numbers, or underscores(_) and must be at"
            + " least one character long"
      },
    };
    for (String[] bad : cases) {
      String reply = c.call("FUNCTION", "LOAD", "REPLACE", "#!lua name=bad\n" + bad[0]);
      assertTrue(
          reply.startsWith("-ERR Error registering functions: ") && reply.contains(bad[1]),
          bad[0] + ": " + reply);
    }
    assertEquals("*0\r\n", c.call("FUNCTION", "LIST"), "nothing was registered");
    c.call(
        "FUNCTION",
        "LOAD",
        "#!lua name=keeper\nlocal lib = redis\n"
            + "redis.register_function('later', function() lib.register_function('x',"
            + " function() return 1 end) end)");
    String later = c.call("FCALL", "later", "0");
    assertTrue(
        later.contains("redis.register_function can only be called on FUNCTION LOAD command"),
        later);
    assertEquals(
        error(
            "ERR unknown subcommand or wrong number of arguments for 'FLUSH'. Try FUNCTION HELP."),
        c.call("FUNCTION", "FLUSH", "SYNC", "extra"));
    assertEquals(
        error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option"),
        c.call("FUNCTION", "FLUSH", "bad"));
  }

  /**
   * A library whose code never ends is stopped after Redis's 500 ms, even through pcall: it held
   * its event loop, and the server's stop, for good.
   */
  @Test
  void loadingCodeThatNeverEndsTimesOut() throws IOException {
    String reply =
        c.call("FUNCTION", "LOAD", "#!lua name=forever\nlocal a = 1 while true do a = a + 1 end");
    assertTrue(reply.startsWith("-ERR") && reply.contains("FUNCTION LOAD timeout"), reply);
    assertEquals("+PONG\r\n", c.call("PING"));
    assertEquals("*0\r\n", c.call("FUNCTION", "LIST"), "nothing was loaded");
  }

  /** FUNCTION DUMP and RESTORE with each policy, and Redis's errors for bad payloads. */
  @Test
  void dumpAndRestore() throws IOException {
    String lib1 = "#!lua name=lib1\nredis.register_function('f1', function() return 1 end)";
    String lib2 = "#!lua name=lib2\nredis.register_function('f2', function() return 2 end)";
    c.call("FUNCTION", "LOAD", lib1);
    String payload = (String) c.callParsed("FUNCTION", "DUMP");
    assertEquals(error("ERR Library lib1 already exists"), c.call("FUNCTION", "RESTORE", payload));
    assertEquals(OK, c.call("FUNCTION", "RESTORE", payload, "REPLACE"));
    c.call("FUNCTION", "FLUSH");
    assertEquals(OK, c.call("FUNCTION", "RESTORE", payload));
    assertEquals(integer(1), c.call("FCALL", "f1", "0"));
    c.call("FUNCTION", "LOAD", lib2);
    assertEquals(OK, c.call("FUNCTION", "RESTORE", payload, "FLUSH"));
    assertEquals(error("ERR Function not found"), c.call("FCALL", "f2", "0"), "flushed");
    assertEquals(integer(1), c.call("FCALL", "f1", "0"));
    c.call("FUNCTION", "DELETE", "lib1");
    c.call("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('f1', function() end)");
    assertEquals(
        error("ERR Function f1 already exists"), c.call("FUNCTION", "RESTORE", payload, "APPEND"));
    assertEquals(
        error("ERR Function f1 already exists"), c.call("FUNCTION", "RESTORE", payload, "REPLACE"));
    assertEquals(
        error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."),
        c.call("FUNCTION", "RESTORE", payload, "BOGUS"));
    assertEquals(
        error("ERR DUMP payload version or checksum are wrong"),
        c.call("FUNCTION", "RESTORE", "bad payload"));
    c.call("SET", "k", "v");
    String stringDump = (String) c.callParsed("DUMP", "k");
    assertEquals(
        error("ERR given type is not a function"), c.call("FUNCTION", "RESTORE", stringDump));
    assertEquals(
        error(
            "ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP."),
        c.call("FUNCTION", "restore", payload, "FLUSH", "extra"));
    String list = c.call("FUNCTION", "LIST");
    assertTrue(list.contains("other") && !list.contains("lib1"), "nothing changed: " + list);
  }

  @Test
  void listShowsLibrariesFunctionsAndCode() throws IOException {
    String lib =
        "#!lua name=listed\nredis.register_function{function_name='f', callback=function()"
            + " return 1 end, flags={'no-writes'}, description='one'}";
    c.call("FUNCTION", "LOAD", lib);
    c.call("FUNCTION", "LOAD", "#!lua name=hidden\nredis.register_function('g', function() end)");
    String expected =
        "*1\r\n*6\r\n$12\r\nlibrary_name\r\n$6\r\nlisted\r\n$6\r\nengine\r\n$3\r\nLUA\r\n"
            + "$9\r\nfunctions\r\n*1\r\n*6\r\n$4\r\nname\r\n$1\r\nf\r\n$11\r\ndescription\r\n"
            + "$3\r\none\r\n$5\r\nflags\r\n*1\r\n+no-writes\r\n";
    assertEquals(expected, c.call("FUNCTION", "LIST", "LIBRARYNAME", "list*"));
    String withCode = c.call("FUNCTION", "LIST", "LIBRARYNAME", "listed", "WITHCODE");
    assertTrue(withCode.startsWith("*1\r\n*8\r\n"), withCode);
    assertTrue(
        withCode.endsWith("$12\r\nlibrary_code\r\n$" + lib.length() + "\r\n" + lib + "\r\n"));
    assertTrue(c.call("FUNCTION", "LIST").startsWith("*2\r\n"));
    assertEquals(OK, c.call("FUNCTION", "FLUSH"));
    assertEquals("*0\r\n", c.call("FUNCTION", "LIST"));
  }
}
