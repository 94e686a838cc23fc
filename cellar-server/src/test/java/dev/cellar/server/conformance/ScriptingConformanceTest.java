package dev.cellar.server.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * EVAL and its family, SCRIPT, and the Lua environment: reply conversions both ways, the redis and
 * cjson libraries, errors raised by scripts and by the commands they call (with Redis 7's texts and
 * line numbers), read-only scripts, the sandbox, and SCRIPT KILL of a runaway script. Where the
 * text comes from the Lua interpreter itself (compile errors, the VM's own runtime errors), LuaJ's
 * words differ from Lua 5.1's, and only the part Redis adds is compared.
 */
class ScriptingConformanceTest extends AbstractConformanceTest {
  @AfterEach
  void flushScripts() throws IOException {
    try (RawClient admin = server.connect()) {
      admin.call("SCRIPT", "FLUSH");
    }
  }

  /** EVAL of {@code script} with numkeys and the rest as given, or numkeys 0 if nothing is. */
  private String eval(String script, String... keysAndArgs) throws IOException {
    if (keysAndArgs.length == 0) {
      keysAndArgs = new String[] {"0"};
    }
    String[] command = new String[2 + keysAndArgs.length];
    command[0] = "EVAL";
    command[1] = script;
    System.arraycopy(keysAndArgs, 0, command, 2, keysAndArgs.length);
    return c.call(command);
  }

  @Test
  void repliesConvertBothWays() throws IOException {
    assertEquals(integer(3), eval("return 3.99"));
    assertEquals(integer(-3), eval("return -3.99"));
    assertEquals(bulk("x"), eval("return 'x'"));
    assertEquals(integer(1), eval("return true"));
    assertEquals(NIL, eval("return false"));
    assertEquals(NIL, eval("return nil"));
    assertEquals("*4\r\n:1\r\n:2\r\n:3\r\n$1\r\na\r\n", eval("return {1, 2, 3.7, 'a', nil, 'b'}"));
    assertEquals("*3\r\n:1\r\n*2\r\n:2\r\n*1\r\n:3\r\n:1\r\n", eval("return {1, {2, {3}}, true}"));
    assertEquals(simple("FINE"), eval("return redis.status_reply('FINE')"));
    assertEquals(simple("X y"), eval("return {ok='X y'}"));
    assertEquals(error("E1 hello"), eval("return redis.error_reply('E1 hello')"));
    assertEquals(error("X y"), eval("return {err='X y'}"));
    c.call("SET", "s", "str");
    assertEquals(simple("OK"), eval("return redis.call('set', 'q', '1')"));
    assertEquals(NIL, eval("return redis.call('get', 'nokey')"));
    assertEquals(bulk("boolean"), eval("return type(redis.call('get', 'nokey'))"));
    assertEquals(bulk("1"), eval("return redis.call('get', KEYS[1])", "1", "q"));
    assertEquals(bulk("ab"), eval("return ARGV[1] .. ARGV[2]", "0", "a", "b"));
    assertEquals("*2\r\n$1\r\n1\r\n$-1\r\n", eval("return redis.call('mget', 'q', 'nokey')"));
    assertEquals(bulk("OK"), eval("return redis.call('set', 'q', '2')['ok']"));
    assertEquals(integer(5), eval("return redis.call('incrby', 'n', 5)"));
  }

  /**
   * {@code redis.setresp(3)}: the script's commands answer in RESP3, read as Redis's tables ({@code
   * map}, {@code set}, {@code double}, nil, booleans); what it returns is written in the client's
   * protocol (a map flattened for a RESP2 client), and its booleans become RESP3 booleans.
   */
  @Test
  void scriptsCanReadAndReturnResp3() throws IOException {
    c.call("DEL", "h", "s", "z");
    c.call("HSET", "h", "field", "value");
    c.call("SADD", "s", "m");
    c.call("ZADD", "z", "1.5", "a");
    String hgetall = "redis.setresp(3); return redis.call('hgetall', KEYS[1])";
    assertEquals(array("field", "value"), eval(hgetall, "1", "h"));
    assertEquals(
        bulk("value"), eval("redis.setresp(3); return redis.call('hgetall', 'h').map.field"));
    assertEquals(
        bulk("true"), eval("redis.setresp(3); return tostring(redis.call('smembers', 's').set.m)"));
    assertEquals(
        bulk("1.5"),
        eval("redis.setresp(3); return tostring(redis.call('zscore', 'z', 'a').double)"));
    assertEquals(
        bulk("nil"), eval("redis.setresp(3); return tostring(redis.call('get', 'nokey'))"));
    assertEquals(integer(1), eval("redis.setresp(3); return true"));
    assertEquals(integer(0), eval("redis.setresp(3); return false"));
    assertEquals(NIL, eval("redis.setresp(2); return false"));
    assertEquals(bulk("3.25"), eval("return {double=3.25}"));
    assertEquals(array("a", "b"), eval("return {map={a='b'}}"));
    try {
      assertTrue(c.call("HELLO", "3").startsWith("%"));
      assertEquals("%1\r\n$5\r\nfield\r\n$5\r\nvalue\r\n", eval(hgetall, "1", "h"));
      // Read in RESP2, the hash is an array, and comes back as one.
      assertEquals(
          array("field", "value"),
          eval("redis.setresp(2); return redis.call('hgetall', KEYS[1])", "1", "h"));
      assertEquals("#t\r\n", eval("redis.setresp(3); return true"));
      assertEquals("#f\r\n", eval("redis.setresp(3); return false"));
      assertEquals(",3.25\r\n", eval("return {double=3.25}"));
      assertEquals("~1\r\n$1\r\nm\r\n", eval("return {set={m=true}}"));
      assertEquals("(12345678901234567890\r\n", eval("return {big_number='12345678901234567890'}"));
      assertEquals("_\r\n", eval("return nil"));
    } finally {
      c.call("HELLO", "2");
    }
  }

  /**
   * A number given to {@code redis.call} is passed whole, as Redis passes it: an integer as one,
   * else digits enough to read back the same double (Redis 7.0 prints 17 digits where 7.2 prints
   * the fewest, so the cases here are those where both agree; ScoresTest checks 7.2's layout).
   */
  @Test
  void numbersPassedToCommandsKeepTheirDigits() throws IOException {
    String script =
        "redis.call('set', KEYS[1], tonumber(ARGV[1]) * 1); return redis.call('get', KEYS[1])";
    String[][] cases = {
      {"3.14159265358979", "3.14159265358979"},
      {"0.30000000000000004", "0.30000000000000004"},
      {"1e15", "1000000000000000"},
      {"123456789012345", "123456789012345"},
      {"42", "42"},
      {"-0.5", "-0.5"},
      {"1023.2", "1023.2"}
    };
    for (String[] number : cases) {
      assertEquals(bulk(number[1]), eval(script, "1", "num", number[0]), number[0]);
    }
  }

  /**
   * A number made text inside a script ({@code tostring}, {@code ..}, {@code %s}) is Lua 5.1's
   * {@code "%.14g"}, as in Redis: LuaJ alone kept a float's seven digits (cellar-luaj).
   */
  @Test
  void numbersBecomeTextAsLua51WritesThem() throws IOException {
    String script = "return tostring(tonumber(ARGV[1]))";
    String[][] cases = {
      {"1732712345.5", "1732712345.5"},
      {"0.3333333333333333", "0.33333333333333"},
      {"0.1", "0.1"},
      {"3.0", "3"},
      {"1e20", "1e+20"},
      {"9007199254740992", "9.007199254741e+15"},
      {"123456789012345", "1.2345678901234e+14"},
      {"99999999999999.5", "1e+14"},
      {"-1.5e-7", "-1.5e-07"},
      {"0.0001", "0.0001"},
      {"5e-324", "4.9406564584125e-324"}
    };
    for (String[] number : cases) {
      assertEquals(bulk(number[1]), eval(script, "0", number[0]), number[0]);
    }
    assertEquals(bulk("ts:1732712345.25"), eval("return 'ts:' .. (1732712345.25)"));
    assertEquals(bulk("0.14285714285714"), eval("return string.format('%s', 1/7)"));
    assertEquals(bulk("-nan nan"), eval("return tostring(0/0) .. ' ' .. tostring(-(0/0))"));
    assertEquals(bulk("inf -inf"), eval("return tostring(1/0) .. ' ' .. tostring(-1/0)"));
  }

  /** LuaBitOp's {@code bit}, as Redis gives it: signed 32-bit results, its {@code tohex}. */
  @Test
  void theBitLibraryIsLuaBitOps() throws IOException {
    String[][] cases = {
      {"return bit.tobit(0xffffffff)", ":-1\r\n"},
      {"return bit.tobit(2^32 + 5)", ":5\r\n"},
      {"return bit.tobit(2.5)", ":2\r\n"},
      {"return bit.bnot(0)", ":-1\r\n"},
      {"return bit.bor(1, 2, 4, 8, 16, 32, 64, 128)", ":255\r\n"},
      {"return bit.band(-1, 0xff, '15')", ":15\r\n"},
      {"return bit.bxor(1, 2)", ":3\r\n"},
      {"return bit.lshift(1, 31)", ":-2147483648\r\n"},
      {"return bit.lshift(1, 33)", ":2\r\n"},
      {"return bit.rshift(-1, 28)", ":15\r\n"},
      {"return bit.arshift(-256, 4)", ":-16\r\n"},
      {"return bit.rol(0x12345678, 12)", ":1164411171\r\n"},
      {"return bit.ror(0x12345678, 12)", ":1736516421\r\n"},
      {"return bit.bswap(0x12345678)", ":2018915346\r\n"},
      {"return bit.tohex(65535, -2147483648)", bulk("0000FFFF")},
      {"return bit.tohex(-1, 3)", bulk("fff")},
      {"return bit.tohex(255)", bulk("000000ff")},
      {"return bit.tohex(255, -4)", bulk("00FF")}
    };
    for (String[] script : cases) {
      assertEquals(script[1], eval(script[0]), script[0]);
    }
  }

  /** Redis's "Scripts can't run XREAD and XREADGROUP with BLOCK option". */
  @Test
  void streamReadsInScriptsMayNotBlock() throws IOException {
    c.call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
    assertEquals(
        error("ERR xread command is not allowed with BLOCK option from scripts"),
        eval("return redis.pcall('xread','BLOCK',0,'STREAMS','s','$')", "1", "s"));
    assertEquals(
        error("ERR xreadgroup command is not allowed with BLOCK option from scripts"),
        eval(
            "return redis.pcall('xreadgroup','group','g','c','BLOCK',0,'STREAMS','s','>')",
            "1",
            "s"));
    assertEquals(NIL, eval("return redis.pcall('xread','STREAMS','s','$')", "1", "s"));
  }

  @Test
  void theLibrariesRedisGivesScripts() throws IOException {
    assertEquals(
        bulk("da39a3ee5e6b4b0d3255bfef95601890afd80709"), eval("return redis.sha1hex('')"));
    assertEquals(bulk("[1,2,{\"a\":1}]"), eval("return cjson.encode({1, 2, {a=1}})"));
    // cmsgpack: the bytes lua-cmsgpack packs, and what it unpacks them to.
    assertEquals(
        bulk("93 01 cd 01 2c a1 78"),
        eval(
            "local s = cmsgpack.pack({1, 300, 'x'}) local out = {} for i = 1, #s do"
                + " out[#out + 1] = string.format('%02x', s:byte(i)) end"
                + " return table.concat(out, ' ')"));
    assertEquals(
        "*3\r\n:1\r\n:-5\r\n$2\r\nhi\r\n",
        eval("return {cmsgpack.unpack(cmsgpack.pack(1, -5, 'hi'))}"));
    assertEquals(
        bulk("7"),
        eval("local t = cmsgpack.unpack(cmsgpack.pack({a=7, b={1,2}})) return tostring(t.a)"));
    assertEquals(bulk("2.5"), eval("return tostring(cmsgpack.unpack(cmsgpack.pack(2.5)))"));
    assertEquals(bulk("{}"), eval("return cjson.encode({})"));
    assertEquals(bulk("1.5"), eval("return cjson.encode(1.5)"));
    assertEquals(bulk("\"a\\\"b\""), eval("return cjson.encode('a\"b')"));
    assertEquals(bulk("[1,null,3]"), eval("return cjson.encode({1, nil, 3})"));
    assertEquals(integer(3), eval("return cjson.decode('[1,2,{\"a\":3}]')[3].a"));
    assertEquals(integer(1), eval("return cjson.decode('null') == cjson.null"));
    assertEquals(integer(2), eval("return bit.band(6, 3)"));
    assertEquals(integer(1), eval("return unpack({1, 2})"));
    assertEquals(integer(12), eval("return tonumber('12')"));
    assertEquals(bulk("5"), eval("return string.format('%d', 5)"));
  }

  /**
   * lua-cmsgpack's nesting bound (a table that refers to itself packs sixteen tables deep, byte for
   * byte as Redis packs it) and its partial unpacking ({@code unpack_limit}, {@code unpack_one}).
   */
  @Test
  void cmsgpackAsLuaCmsgpackPacksAndUnpacks() throws IOException {
    assertEquals(
        bulk("547a759e2cb806147bcea7abe667424cc7bf9f06"),
        eval(
            "local a = {x=nil,y=5} local b = {x=a} a['x'] = b"
                + " return redis.sha1hex(cmsgpack.pack(a))"));
    assertEquals(
        "*5\r\n:3\r\n$2\r\naa\r\n:-1\r\n:1\r\n:2\r\n",
        eval(
            "local e = cmsgpack.pack('aa', 1, {1,2})"
                + " local o, v = cmsgpack.unpack_limit(e, 1, 0)"
                + " local o2, v2, v3 = cmsgpack.unpack_limit(e, 2, o)"
                + " return {o, v, o2, v2, #v3}"));
    assertEquals(
        "*2\r\n:3\r\n$2\r\naa\r\n",
        eval("return {cmsgpack.unpack_one(cmsgpack.pack('aa', 1), 0)}"));
  }

  /** lua-cjson's settings, each set, used and put back to its default in the same script. */
  @Test
  void cjsonSettingsAsLuaCjsonHasThem() throws IOException {
    assertEquals(integer(1000), eval("return cjson.encode_max_depth()"));
    assertEquals(integer(1000), eval("return cjson.decode_max_depth()"));
    assertEquals(integer(14), eval("return cjson.encode_number_precision()"));
    assertEquals(integer(1), eval("return cjson.encode_keep_buffer()"));
    assertEquals(integer(1), eval("return cjson.decode_invalid_numbers()"));
    assertEquals("$-1\r\n", eval("return cjson.encode_invalid_numbers()"), "false");
    assertEquals("*3\r\n$-1\r\n:2\r\n:10\r\n", eval("return {cjson.encode_sparse_array()}"));
    assertEquals(
        bulk("[nan,inf,-inf]"),
        eval(
            "cjson.encode_invalid_numbers(true) local r = cjson.encode({0/0, 1/0, -1/0})"
                + " cjson.encode_invalid_numbers(false) return r"));
    assertEquals(
        bulk("[null]"),
        eval(
            "cjson.encode_invalid_numbers('null') local r = cjson.encode({0/0})"
                + " cjson.encode_invalid_numbers(false) return r"));
    assertEquals(
        bulk("Cannot serialise, excessive nesting (2)"),
        eval(
            "cjson.encode_max_depth(1) local ok, e = pcall(cjson.encode, {{1}})"
                + " cjson.encode_max_depth(1000) return e"));
    assertEquals(
        bulk("Found too many nested data structures (2) at character 6"),
        eval(
            "cjson.decode_max_depth(1) local ok, e = pcall(cjson.decode, '{\"a\":{\"b\":1}}')"
                + " cjson.decode_max_depth(1000) return e"));
    assertEquals(
        bulk("[3.14]"),
        eval(
            "cjson.encode_number_precision(3) local r = cjson.encode({3.14159})"
                + " cjson.encode_number_precision(14) return r"));
    assertEquals(
        bulk("{\"1\":1,\"100\":2}"),
        eval(
            "cjson.encode_sparse_array(true) local r = cjson.encode({[1]=1,[100]=2})"
                + " cjson.encode_sparse_array(false) return r"));
    assertEquals(bulk("[1,null,2]"), eval("return cjson.encode({[1]=1,[3]=2})"));
    String sparse = eval("return cjson.encode({[1]=1,[100]=2})");
    assertTrue(
        sparse.startsWith("-ERR ")
            && sparse.contains("Cannot serialise table: excessively sparse array"),
        sparse);
    String zero = eval("return cjson.encode_max_depth(0)");
    assertTrue(
        zero.contains(
            "bad argument #1 to 'encode_max_depth' (expected integer between 1 and 2147483647)"),
        zero);
  }

  @Test
  void errorsCarryRedisTextsAndLines() throws IOException {
    c.call("SET", "s", "str");
    String incr = "return redis.call('incr', 's')";
    assertEquals(
        error(
            "ERR value is not an integer or out of range script: "
                + sha1Hex(incr)
                + ", on @user_script:1."),
        eval(incr));
    String third = "local a = 1\n\nreturn redis.call('incr', 's')";
    assertEquals(
        error(
            "ERR value is not an integer or out of range script: "
                + sha1Hex(third)
                + ", on @user_script:3."),
        eval(third));
    assertEquals(
        error("ERR value is not an integer or out of range"),
        eval("return redis.pcall('incr', 's')"));
    assertEquals(
        error(
            "ERR user_script:1: boom script: " + sha1Hex("error('boom')") + ", on @user_script:1."),
        eval("error('boom')"));
    String custom = "error({err='MYERR custom'})";
    assertEquals(
        error("MYERR custom script: " + sha1Hex(custom) + ", on @user_script:1."), eval(custom));
    String[][] refused = {
      {"return redis.call('nosuch')", "ERR Unknown Redis command called from script"},
      {
        "return redis.call('eval', 'return 1', 0)",
        "ERR This Redis command is not allowed from script"
      },
      {"return redis.call()", "ERR Please specify at least one argument for this redis lib call"},
      {"return redis.call('get')", "ERR Wrong number of args calling Redis command from script"},
      {
        "return redis.call('set', 'k', {})",
        "ERR Lua redis lib command arguments must be strings or integers"
      },
    };
    for (String[] r : refused) {
      assertEquals(
          error(r[1] + " script: " + sha1Hex(r[0]) + ", on @user_script:1."), eval(r[0]), r[0]);
    }
    assertTrue(
        eval("return 'a' ..")
            .startsWith("-ERR Error compiling script (new function): user_script:1: "));
    assertTrue(eval("local t = {}; t.x.y = 1").startsWith("-ERR user_script:1: "));
    // The interpreter's type errors in Lua 5.1's words (LuaJ says "attempt to call nil").
    String binary = "return loadstring(string.dump(function() return 1 end))()";
    String call = eval(binary);
    assertTrue(call.startsWith("-ERR user_script:1: attempt to call a nil value script: "), call);
    String arithmetic = eval("local x; return x + 1");
    // Lua 5.1 names the local ("on local 'x' (a nil value)"); LuaJ cannot, and says "on a nil
    // value".
    assertTrue(
        arithmetic.startsWith("-ERR user_script:1: attempt to perform arithmetic on")
            && arithmetic.contains("a nil value"),
        arithmetic);
  }

  @Test
  void theSandboxHasNoGlobalsToMakeAndNoSystem() throws IOException {
    String global = "x = 1";
    assertEquals(
        error(
            "ERR user_script:1: Attempt to modify a readonly table script: "
                + sha1Hex(global)
                + ", on @user_script:1."),
        eval(global));
    for (String name : new String[] {"os", "io", "y", "dofile", "loadfile", "require"}) {
      String script = "return " + name;
      assertEquals(
          error(
              "ERR user_script:1: Script attempted to access nonexistent global variable '"
                  + name
                  + "' script: "
                  + sha1Hex(script)
                  + ", on @user_script:1."),
          eval(script),
          name);
    }
  }

  /**
   * Redis 7's read-only tables: no path changes the globals, their metatable or a library, in a
   * script or a function, and a refused attempt leaves the sandbox whole for the next script.
   */
  @Test
  void theGlobalsAndTheLibrariesAreReadOnly() throws IOException {
    String[] attempts = {
      "setmetatable(_G, {})",
      "local g = getmetatable(_G) g.__index = {}",
      "redis = function() return 1 end",
      "_G = {}",
      "redis.call = function() return 1 end",
      "cjson.encode = function() return 1 end",
      "cmsgpack.pack = function() return 1 end",
      "bit.lshift = function() return 1 end",
      "string.upper = function() return 1 end",
      "getmetatable('').__index.upper = function() return 1 end",
      "table.sort = nil",
      "math.floor = nil",
    };
    c.call(
        "FUNCTION",
        "LOAD",
        "REPLACE",
        "#!lua name=tricks\nredis.register_function('trick', function(KEYS, ARGV)\n"
            + "  return loadstring(ARGV[1])()\nend)");
    for (String attempt : attempts) {
      // Redis gives no line for an error a C function raises (setmetatable), LuaJ does: the text
      // is compared, not the position.
      String viaEval = eval(attempt);
      assertTrue(
          viaEval.startsWith("-ERR ")
              && viaEval.contains("Attempt to modify a readonly table script: " + sha1Hex(attempt)),
          attempt + ": " + viaEval);
      String viaFunction = c.call("FCALL", "trick", "0", attempt);
      assertTrue(
          viaFunction.startsWith("-ERR ")
              && viaFunction.contains("Attempt to modify a readonly table"),
          attempt + ": " + viaFunction);
    }
    assertEquals(bulk("ABC"), eval("return string.upper('abc') .. ''"));
    assertEquals(bulk("ABC"), eval("return ('abc'):upper()"));
    assertEquals(OK, eval("return redis.call('set', 'k', 'v')"));
    assertEquals(
        error(
            "ERR user_script:1: Script attempted to access nonexistent global variable 'nope'"
                + " script: "
                + sha1Hex("return nope")
                + ", on @user_script:1."),
        eval("return nope"),
        "the globals' protection is still there");
    assertEquals(integer(1), eval("return loadstring('return 1')()"));
    assertEquals(
        "*-1\r\n".equals(eval("return loadstring(string.dump(function() return 1 end))"))
            ? "*-1\r\n"
            : "$-1\r\n",
        eval("return loadstring(string.dump(function() return 1 end))"),
        "a binary chunk is not loaded");
  }

  @Test
  void evalshaScriptAndReadOnlyScripts() throws IOException {
    String body = "return 1";
    assertEquals(bulk(sha1Hex(body)), c.call("SCRIPT", "LOAD", body));
    assertEquals(integer(1), c.call("EVALSHA", sha1Hex(body), "0"));
    assertEquals(integer(1), c.call("EVALSHA", sha1Hex(body).toUpperCase(), "0"));
    assertEquals("*2\r\n:1\r\n:0\r\n", c.call("SCRIPT", "EXISTS", sha1Hex(body), "abc"));
    assertEquals(
        error("NOSCRIPT No matching script. Please use EVAL."),
        c.call("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"));
    assertEquals(OK, c.call("SCRIPT", "FLUSH"));
    assertEquals("*1\r\n:0\r\n", c.call("SCRIPT", "EXISTS", sha1Hex(body)));
    eval("return 2");
    assertEquals("*1\r\n:1\r\n", c.call("SCRIPT", "EXISTS", sha1Hex("return 2")), "EVAL caches");
    assertEquals(error("ERR Number of keys can't be negative"), eval("return 1", "-1"));
    assertEquals(
        error("ERR Number of keys can't be greater than number of args"),
        eval("return 1", "3", "a"));
    assertEquals(NOT_INTEGER, eval("return 1", "x"));
    assertEquals(error("NOTBUSY No scripts in execution right now."), c.call("SCRIPT", "KILL"));
    String write = "return redis.call('set', 'a', 'b')";
    assertEquals(
        error(
            "ERR Write commands are not allowed from read-only scripts. script: "
                + sha1Hex(write)
                + ", on @user_script:1."),
        c.call("EVAL_RO", write, "1", "a"));
    c.call("SET", "a", "v");
    assertEquals(bulk("v"), c.call("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "a"));
    assertEquals(arity("eval"), c.call("EVAL", "return 1"));
  }

  @Test
  void aFailingScriptKeepsWhatItWroteAsRedisDoes() throws IOException {
    eval("redis.call('set', KEYS[1], 'partial'); error('fail after write')", "1", "k");
    assertEquals(bulk("partial"), c.call("GET", "k"));
  }

  @Test
  void scriptsRunInsideTransactions() throws IOException {
    assertEquals(OK, c.call("MULTI"));
    assertEquals(simple("QUEUED"), c.call("SET", "m", "1"));
    assertEquals(simple("QUEUED"), c.call("EVAL", "return redis.call('incr', KEYS[1])", "1", "m"));
    assertEquals("*2\r\n+OK\r\n:2\r\n", c.call("EXEC"));
  }

  /**
   * Once a script has run past {@code busy-reply-threshold}, other clients' commands are answered
   * BUSY but those Redis lets through (the kills, FUNCTION STATS, MULTI, DISCARD...); SCRIPT KILL
   * does not kill a function, FUNCTION KILL does.
   */
  @Test
  void aScriptPastTheBusyThresholdIsAnsweredAsRedisAnswers() throws Exception {
    String busy =
        error(
            "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN"
                + " NOSAVE.");
    c.call("CONFIG", "SET", "busy-reply-threshold", "100");
    c.call(
        "FUNCTION",
        "LOAD",
        "REPLACE",
        "#!lua name=spinning\nredis.register_function('spin', function() while true do end end)");
    // The function runs until the test kills it, after probes that may each wait 10 s.
    c.readTimeout(120_000);
    java.util.concurrent.CompletableFuture<String> reply = callAsync(c, "FCALL", "spin", "0");
    // A connection may share the function's event loop and wait with it (docs/scripting.md):
    // such a one is not answered within its timeout, and another is made.
    RawClient probe = null;
    for (int i = 0; i < 100 && probe == null; i++) {
      RawClient candidate = server.connect();
      try {
        if (!candidate.call("FUNCTION", "STATS").startsWith("*4\r\n$14\r\nrunning_script\r\n$-1")
            || candidate.call("PING").startsWith("-BUSY")) {
          probe = candidate;
        } else {
          candidate.close();
          Thread.sleep(20);
        }
      } catch (java.io.IOException onTheFunctionsLoop) {
        candidate.close();
      }
    }
    assertNotNull(probe, "no connection was answered while the function ran");
    try (RawClient other = probe) {
      String ping = other.call("PING");
      for (int i = 0; i < 200 && !ping.equals(busy); i++) {
        Thread.sleep(50); // PONG until the function has run past the threshold
        ping = other.call("PING");
      }
      assertEquals(busy, ping);
      assertEquals(busy, other.call("GET", "k"));
      assertEquals(busy, other.call("SCRIPT", "KILL"), "SCRIPT KILL does not kill a function");
      String stats = other.call("FUNCTION", "STATS");
      assertTrue(stats.contains("$4\r\nspin\r\n"), stats);
      assertEquals(OK, other.call("MULTI"));
      assertEquals(busy, other.call("SET", "k", "v"));
      assertEquals(OK, other.call("DISCARD"));
      assertEquals(OK, other.call("MULTI"));
      assertEquals(
          error(
              "EXECABORT Transaction discarded because of: "
                  + busy.substring(1, busy.length() - 2)),
          other.call("EXEC"),
          "a refused EXEC discards its transaction");
      assertEquals(
          error(
              "EXECABORT Transaction discarded because of: "
                  + busy.substring(1, busy.length() - 2)),
          other.call("EXEC"),
          "EXEC is refused so even with no transaction, as Redis refuses it");
      assertEquals(OK, other.call("FUNCTION", "KILL"));
      assertEquals(
          error("ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2."),
          reply.get(10, java.util.concurrent.TimeUnit.SECONDS));
      assertEquals(PONG, other.call("PING"));
      assertEquals(
          error("NOTBUSY No scripts in execution right now."), other.call("FUNCTION", "KILL"));
    } finally {
      if (!reply.isDone()) { // a failed assertion must not leave the function running
        try (RawClient killer = server.connect()) {
          killer.call("FUNCTION", "KILL");
        }
        reply.get(10, java.util.concurrent.TimeUnit.SECONDS);
      }
      c.call("CONFIG", "SET", "busy-reply-threshold", "5000");
    }
  }

  @Test
  void scriptKillStopsARunawayScript() throws Exception {
    if (TargetServer.targetIsRedis()) {
      c.call("CONFIG", "SET", "busy-reply-threshold", "100");
    }
    // A client on the script's own event loop waits for the script, as every client of Redis does,
    // and so does a new connection when the loop that accepts them is the script's
    // (docs/scripting.md): the clients that kill it are connected first, over every loop.
    List<java.net.Socket> killers = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      java.net.Socket s = new java.net.Socket("127.0.0.1", server.port());
      s.setSoTimeout(300);
      killers.add(s);
    }
    c.readTimeout(120_000); // the script runs until the test kills it
    java.util.concurrent.CompletableFuture<String> reply =
        callAsync(c, "EVAL", "while true do end", "0");
    try {
      String killed = null;
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (killed == null && System.nanoTime() < deadline) {
        Thread.sleep(100);
        for (java.net.Socket s : killers) {
          if (s.isClosed()) {
            continue;
          }
          try {
            s.getOutputStream().write(RawClient.encode("SCRIPT", "KILL"));
            byte[] line = new byte[64];
            int n = s.getInputStream().read(line);
            String answer =
                n > 0 ? new String(line, 0, n, java.nio.charset.StandardCharsets.US_ASCII) : "";
            if (answer.equals(OK)) {
              killed = answer;
              break;
            }
            // NOTBUSY: the script has not started yet (a cold interpreter); asked again
          } catch (java.net.SocketTimeoutException onTheScriptsLoop) {
            s.close(); // its answer may come later: not asked again
          }
        }
      }
      assertEquals(OK, killed);
      assertEquals(
          error(
              "ERR Script killed by user with SCRIPT KILL... script: "
                  + sha1Hex("while true do end")
                  + ", on @user_script:1."),
          reply.get(10, java.util.concurrent.TimeUnit.SECONDS));
      try (RawClient fresh = server.connect()) {
        assertEquals(PONG, fresh.call("PING"));
      }
    } finally {
      for (java.net.Socket s : killers) {
        s.close();
      }
      if (TargetServer.targetIsRedis()) {
        c.call("CONFIG", "SET", "busy-reply-threshold", "5000");
      }
    }
  }

  private static java.util.concurrent.CompletableFuture<String> callAsync(
      RawClient client, String... command) {
    // A thread each: the common pool may have one thread on a small machine, and the calls block.
    return java.util.concurrent.CompletableFuture.supplyAsync(
        () -> {
          try {
            return client.call(command);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        },
        task -> Thread.ofPlatform().daemon().start(task));
  }

  private static final String PONG = "+PONG\r\n";
}
