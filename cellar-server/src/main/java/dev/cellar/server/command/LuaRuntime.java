package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.DebugLib;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.jse.JseBaseLib;
import org.luaj.vm2.lib.jse.JseMathLib;

/**
 * One thread's Lua interpreter for scripts (LuaJ: a Lua in pure Java; its values and interpreter
 * are not thread-safe, so each event loop has its own, while compiled scripts are shared).
 *
 * <h2>What a script sees</h2>
 *
 * Redis's sandbox: the base, string, table and math libraries, {@code bit} (LuaBitOp's, {@link
 * LuaBit}), {@code cjson}, {@code redis} ({@code call}, {@code pcall}, {@code error_reply}, {@code
 * status_reply}, {@code sha1hex}, {@code log}, {@code setresp}, {@code set_repl}, {@code
 * replicate_commands}), {@code KEYS} and {@code ARGV}. No file, OS, package, coroutine or debug
 * access; {@code dofile} and {@code loadfile} are gone. Globals are read-only: creating one fails
 * ("Attempt to modify a readonly table") and reading one that does not exist fails too, as in Redis
 * 7; the library tables and the globals' metatable refuse every change ({@link LuaReadOnly}).
 *
 * <h2>Killing a script</h2>
 *
 * The interpreter calls its debug library on every instruction; ours counts them and, every 1024,
 * checks whether the running script was killed ({@code SCRIPT KILL}), and then throws an {@link
 * Error} the script's {@code pcall} cannot catch. A killed script's writes are never applied: it
 * runs over a transaction view that is only committed when the script ends normally.
 */
final class LuaRuntime {
  static final String CHUNK = "@user_script";

  private final LuaReadOnly.Sandbox globals = new LuaReadOnly.Sandbox();
  private final KillSwitch kill = new KillSwitch();
  private final ServerContext server;
  private final Session scriptSession;
  private final ReplyWriter scratch = new ReplyWriter(256);
  private final Request request = new Request();
  private final LuaFunctions functions;

  /** The script line of the last {@code redis.call} that raised an error reply. */
  private String raisedAt;

  /** The script running on this thread, or null. */
  private Scripts.Run run;

  /**
   * The protocol of the running script's commands' replies and of its booleans ({@code
   * redis.setresp}); 2 as each script starts, as in Redis.
   */
  private int resp = 2;

  LuaRuntime(ServerContext server) {
    this.server = server;
    // The errors of the commands a script calls are counted, as Redis counts them.
    scratch.countErrors(server.stats().errors);
    this.scriptSession = new Session(-1, "lua", "", scratch, server);
    scriptSession.authenticated(true);
    scriptSession.script(true);
    globals.load(new JseBaseLib());
    globals.load(new PackageLib()); // the libraries register themselves in it; removed below
    globals.load(new TableLib());
    globals.load(new StringLib());
    globals.load(new JseMathLib());
    globals.load(kill);
    LoadState.install(globals);
    LuaC.install(globals);
    for (String gone :
        new String[] {"dofile", "loadfile", "print", "debug", "require", "package", "module"}) {
      globals.set(gone, LuaValue.NIL);
    }
    globals.set("unpack", globals.get("table").get("unpack")); // Lua 5.1's name, as Redis has
    globals.set("bit", LuaBit.library()); // LuaBitOp's, as Redis has it (not Lua 5.2's bit32)
    globals.set("cjson", LuaJson.library());
    globals.set("cmsgpack", LuaMsgpack.library());
    globals.set("redis", redisLibrary());
    textOnlyLoading(globals);
    for (String library :
        new String[] {"string", "table", "math", "bit", "cjson", "cmsgpack", "redis"}) {
      globals.set(library, LuaReadOnly.copyOf((LuaTable) globals.get(library)));
    }
    LuaReadOnly.sealStrings((LuaTable) globals.get("string"));
    readOnly(globals);
    functions = new LuaFunctions(globals, this::runLibraryCode);
  }

  /** This thread's function libraries. */
  LuaFunctions functions() {
    return functions;
  }

  /**
   * {@code load} and Lua 5.1's {@code loadstring} compile source text only: a binary chunk (from
   * {@code string.dump}) is refused, as Redis refuses it, since bytecode is not checked as source
   * is. {@code loadstring} returns nil and the message on failure, as in Lua 5.1.
   */
  private static void textOnlyLoading(Globals globals) {
    LuaValue load = globals.get("load");
    globals.set("load", textOnly(load, false)); // Lua 5.1's: from a function only
    globals.set("loadstring", textOnly(load, true));
  }

  private static VarArgFunction textOnly(LuaValue load, boolean loadsText) {
    return new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        if (!args.arg1().isfunction() && !loadsText) {
          throw new LuaError(
              "bad argument #1 to 'load' (function expected, got " + args.arg1().typename() + ")");
        }
        return load.invoke(
            LuaValue.varargsOf(new LuaValue[] {args.arg1(), args.arg(2), LuaValue.valueOf("t")}));
      }
    };
  }

  /** Puts a metatable on the globals that refuses new globals and reads of missing ones. */
  private static void readOnly(LuaReadOnly.Sandbox globals) {
    LuaReadOnly.Table meta = new LuaReadOnly.Table();
    meta.set(
        "__newindex",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            throw new LuaError("Attempt to modify a readonly table");
          }
        });
    meta.set(
        "__index",
        new TwoArgFunction() {
          @Override
          public LuaValue call(LuaValue table, LuaValue name) {
            throw new LuaError(
                "Script attempted to access nonexistent global variable '"
                    + name.tojstring()
                    + "'");
          }
        });
    meta.seal();
    globals.setmetatable(meta);
    globals.seal();
  }

  /** Compiles a script body, as Redis wraps it: a chunk named {@code user_script}. */
  static Prototype compile(Globals compiler, byte[] body) {
    try {
      return compiler.compilePrototype(new ByteArrayInputStream(body), CHUNK);
    } catch (LuaError | IOException e) {
      throw new CommandError(
          "ERR Error compiling script (new function): " + LuaReplies.errorText(e.getMessage()));
    }
  }

  Globals globals() {
    return globals;
  }

  /**
   * Runs {@code script} with {@code keys} and {@code args} as {@code KEYS} and {@code ARGV}, and
   * writes its result (or its error) to {@code out}; returns whether its writes are to be applied:
   * false only when it was killed.
   */
  boolean run(
      Scripts.Run current, Prototype script, byte[][] keys, byte[][] args, ReplyWriter out) {
    globals.setInternal("KEYS", table(keys));
    globals.setInternal("ARGV", table(args));
    return call(current, new LuaClosure(script, globals), LuaValue.NONE, out);
  }

  /** Calls {@code function} with {@code arguments} as the running script {@code current}. */
  boolean call(Scripts.Run current, LuaValue function, Varargs arguments, ReplyWriter out) {
    Scripts.Run outer = run;
    int outerResp = resp;
    run = current;
    resp = 2;
    raisedAt = null;
    try {
      LuaValue result = function.invoke(arguments).arg1();
      LuaReplies.write(result, out, resp);
      return true;
    } catch (ScriptKilled killed) {
      String line = kill.line() == null ? "?" : kill.line(); // where it was stopped
      out.error(
          "ERR Script killed by user with SCRIPT KILL... script: "
              + current.name()
              + ", on @"
              + current.chunk()
              + ":"
              + line
              + ".");
      return false;
    } catch (LuaError e) {
      // As in Redis, a script that fails keeps what it wrote before: scripts are atomic, not
      // rolled back. Only a killed one (above) writes nothing.
      LuaValue object = e.getMessageObject();
      LuaReplies.error(out, object == null ? LuaValue.NIL : object, errorReply(e, current));
      return true;
    } catch (StackOverflowError e) {
      out.error("ERR Error running script " + current.name() + ": stack overflow");
      return true;
    } finally {
      run = outer;
      resp = outerResp;
    }
  }

  static LuaTable table(byte[][] values) {
    LuaTable t = new LuaTable(values.length, 0);
    for (int i = 0; i < values.length; i++) {
      t.rawset(i + 1, LuaString.valueOf(values[i]));
    }
    return t;
  }

  /**
   * Redis 7's text for a script's uncaught error: an error reply raised by {@code redis.call} or a
   * table with {@code err} keeps its text; a string gets {@code ERR} and its position. Both end
   * with the script and the line.
   */
  private String errorReply(LuaError e, Scripts.Run current) {
    String name = current.name();
    String chunk = current.chunk();
    String message = e.getMessage() == null ? "" : e.getMessage();
    int traceback = message.indexOf("stack traceback:");
    String head = (traceback >= 0 ? message.substring(0, traceback) : message).strip();
    String line = "?";
    java.util.regex.Matcher at = POSITION.matcher(head);
    boolean positioned = at.lookingAt();
    if (positioned) {
      line = at.group(1);
      head = head.substring(at.end()).strip();
    } else if (traceback >= 0) {
      java.util.regex.Matcher inTrace = TRACE_LINE.matcher(message.substring(traceback));
      if (inTrace.find()) {
        line = inTrace.group(1);
      }
    }
    if (line.equals("?") && raisedAt != null) {
      line = raisedAt; // an error reply redis.call raised: the line of that call
    } else if (line.equals("?") && kill.line() != null) {
      line = kill.line(); // a Java function's error after a tail call: the line that called it
    }
    LuaValue object = e.getMessageObject();
    String text;
    if (object != null && object.istable() && object.rawget(LuaReplies.ERR_FIELD).isstring()) {
      text = object.rawget(LuaReplies.ERR_FIELD).tojstring();
    } else {
      String words = LuaErrorWords.of(head);
      // A type error of the VM carries its position in Lua 5.1 even where LuaJ's has none.
      boolean typeError = !words.equals(head) && !line.equals("?");
      text = "ERR " + (positioned || typeError ? chunk + ":" + line + ": " : "") + words;
    }
    return LuaReplies.errorText(text + " script: " + name + ", on @" + chunk + ":" + line + ".");
  }

  /** LuaJ's position of an error, before its text: {@code @user_script:3 }. */
  private static final java.util.regex.Pattern POSITION =
      java.util.regex.Pattern.compile("@?user_(?:script|function):(\\d+):? ");

  /** A line of the script in LuaJ's traceback. */
  private static final java.util.regex.Pattern TRACE_LINE =
      java.util.regex.Pattern.compile("user_(?:script|function):(\\d+):");

  // ---------------------------------------------------------------- the redis library

  private LuaTable redisLibrary() {
    LuaTable redis = new LuaTable();
    redis.set("call", new RedisCall(true));
    redis.set("pcall", new RedisCall(false));
    redis.set(
        "error_reply",
        new OneArgFunction() {
          @Override
          public LuaValue call(LuaValue message) {
            String text = message.checkjstring();
            if (text.startsWith("-")) {
              text = text.substring(1);
            }
            LuaTable t = new LuaTable();
            t.rawset(LuaReplies.ERR_FIELD, LuaValue.valueOf(text));
            return t;
          }
        });
    redis.set(
        "status_reply",
        new OneArgFunction() {
          @Override
          public LuaValue call(LuaValue message) {
            LuaTable t = new LuaTable();
            t.rawset(LuaReplies.OK_FIELD, message.checkstring());
            return t;
          }
        });
    versionConstants(redis);
    redis.set(
        "sha1hex",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            if (args.narg() != 1) {
              throw new LuaError("wrong number of arguments");
            }
            // Redis hashes what lua_tolstring gives: a string or a number's text, else nothing
            LuaValue text = args.arg1();
            byte[] bytes = text.isstring() ? LuaReplies.bytes(text.checkstring()) : new byte[0];
            return LuaValue.valueOf(sha1hex(bytes));
          }
        });
    redis.set(
        "log",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            if (args.narg() < 2) {
              throw new LuaError("redis.log() requires two arguments or more.");
            }
            return LuaValue.NONE;
          }
        });
    redis.set(
        "setresp",
        new OneArgFunction() {
          @Override
          public LuaValue call(LuaValue version) {
            int v = version.checkint();
            if (v != 2 && v != 3) {
              throw new LuaError("RESP version must be 2 or 3.");
            }
            resp = v;
            return LuaValue.NONE;
          }
        });
    VarArgFunction nothing =
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            return LuaValue.TRUE;
          }
        };
    redis.set("replicate_commands", nothing);
    redis.set("set_repl", nothing);
    redis.set("LOG_DEBUG", 0);
    redis.set("LOG_VERBOSE", 1);
    redis.set("LOG_NOTICE", 2);
    redis.set("LOG_WARNING", 3);
    redis.set("REPL_NONE", 0);
    redis.set("REPL_AOF", 1);
    redis.set("REPL_SLAVE", 2);
    redis.set("REPL_REPLICA", 2);
    redis.set("REPL_ALL", 3);
    return redis;
  }

  static String sha1hex(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-1", e);
    }
  }

  /** {@code redis.call} (raises errors) and {@code redis.pcall} (returns them as tables). */
  private final class RedisCall extends VarArgFunction {
    private final boolean raise;

    RedisCall(boolean raise) {
      this.raise = raise;
    }

    @Override
    public Varargs invoke(Varargs args) {
      LuaValue reply = execute(args);
      if (raise && reply.istable() && reply.rawget(LuaReplies.ERR_FIELD).isstring()) {
        raisedAt = kill.line();
        throw new LuaError(reply);
      }
      return reply;
    }

    private LuaValue execute(Varargs args) {
      int n = args.narg();
      if (n == 0) {
        return fail("Please specify at least one argument for this redis lib call");
      }
      byte[][] argv = new byte[n][];
      for (int i = 0; i < n; i++) {
        LuaValue a = args.arg(i + 1);
        if (a.type() == LuaValue.TSTRING) {
          argv[i] = LuaReplies.bytes(a.checkstring());
        } else if (a.type() == LuaValue.TNUMBER) {
          // Redis's text of the number (Scores.lua), not LuaJ's (a float's digits):
          // 3.14159265358979
          // is stored whole, as Redis stores it, not as "3.1415927".
          argv[i] = Scores.lua(a.todouble()).getBytes(StandardCharsets.US_ASCII);
        } else {
          return fail("Lua redis lib command arguments must be strings or integers");
        }
      }
      kill.check();
      request.set(argv);
      CommandSpec spec = server.commands().find(request);
      // Refusals of the command itself are counted here, as Redis's scriptCall counts them.
      if (spec == null) {
        return refuse(null, "Unknown Redis command called from script");
      }
      if (spec.has("noscript")) {
        return refuse(spec, "This Redis command is not allowed from script");
      }
      if (!spec.arityAccepts(n)) {
        return refuse(spec, "Wrong number of args calling Redis command from script");
      }
      if (run != null && run.readOnly() && spec.isWrite()) {
        return refuse(spec, "Write commands are not allowed from read-only scripts.");
      }
      if (run != null && run.deniesOom() && spec.isDenyOom()) {
        return refuse(spec, null);
      }
      scratch.reset();
      scratch.protocol(resp);
      Dispatcher.runQueued(scriptSession, spec, request, scratch);
      if (run != null && spec.isWrite()) {
        run.wrote();
      }

      return LuaReplies.parse(scratch.buffer(), scratch.size());
    }

    /** A refusal of the command ({@code message} null: Redis's OOM error), counted. */
    private LuaValue refuse(CommandSpec spec, String message) {
      String text = message == null ? Dispatcher.OOM : "ERR " + message;
      server.stats().errors.count(text);
      if (spec != null) {
        server.stats().of(spec.name()).rejected.increment();
      }
      LuaTable t = errorTable(text);
      t.rawset(LuaReplies.COUNTED_FIELD, LuaValue.TRUE);
      return t;
    }

    private LuaValue fail(String message) {
      return errorTable("ERR " + message);
    }

    private static LuaTable errorTable(String text) {
      LuaTable t = new LuaTable();
      t.rawset(LuaReplies.ERR_FIELD, LuaValue.valueOf(text));
      return t;
    }
  }

  // ---------------------------------------------------------------- killing

  /** Thrown into a killed script; an {@link Error} so that its {@code pcall} cannot catch it. */
  /**
   * A library's code ran past {@link #LOAD_TIMEOUT_NANOS} while {@code FUNCTION LOAD} ran it: an
   * {@link Error}, so that its own {@code pcall} cannot catch it.
   */
  static final class LoadTimedOut extends Error {
    LoadTimedOut() {
      super("FUNCTION LOAD timeout", null, false, false);
    }
  }

  /** How long a library's code may run when it is loaded: Redis's 500 ms. */
  static final long LOAD_TIMEOUT_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(500);

  /** When the library being loaded must have ended ({@link System#nanoTime()}); 0 outside. */
  private long loadDeadline;

  /** Runs a library's code as {@code FUNCTION LOAD} does, stopped after Redis's 500 ms. */
  /** {@code redis.REDIS_VERSION} and {@code REDIS_VERSION_NUM}, of scripts and of library loads. */
  static void versionConstants(LuaTable redis) {
    redis.set("REDIS_VERSION", ConnectionCommands.REDIS_COMPAT_VERSION);
    redis.set("REDIS_VERSION_NUM", ConnectionCommands.REDIS_COMPAT_VERSION_NUM);
  }

  void runLibraryCode(Runnable code) {
    loadDeadline = System.nanoTime() + LOAD_TIMEOUT_NANOS;
    try {
      code.run();
    } finally {
      loadDeadline = 0;
    }
  }

  static final class ScriptKilled extends Error {
    ScriptKilled() {
      super("script killed", null, false, false);
    }
  }

  /** The debug library, kept for its bookkeeping (error positions), counting instructions. */
  private final class KillSwitch extends DebugLib {
    private int count;

    /** The functions being run, innermost last (null for a Java function), and where. */
    private final java.util.ArrayDeque<Object> functions = new java.util.ArrayDeque<>();

    private Prototype lastFunction;
    private int lastPc;

    @Override
    public void onCall(org.luaj.vm2.LuaFunction f) {
      super.onCall(f);
      functions.push(Boolean.FALSE);
    }

    @Override
    public void onCall(LuaClosure c, Varargs varargs, LuaValue[] stack) {
      super.onCall(c, varargs, stack);
      functions.push(c.p);
    }

    @Override
    public void onReturn() {
      super.onReturn();
      functions.poll();
    }

    @Override
    public void onInstruction(int pc, Varargs v, int top) {
      super.onInstruction(pc, v, top);
      if (functions.peek() instanceof Prototype p) {
        lastFunction = p;
        lastPc = pc;
      }
      if ((++count & 1023) == 0) {
        check();
      }
    }

    /**
     * The script line of the last instruction run: where a Java function (redis.call) was called
     * from, even by a tail call, which leaves no frame of the caller to find it in.
     */
    String line() {
      Prototype p = lastFunction;
      if (p == null || p.lineinfo == null || lastPc < 0 || lastPc >= p.lineinfo.length) {
        return null;
      }
      return Integer.toString(p.lineinfo[lastPc]);
    }

    void check() {
      Scripts.Run current = run;
      if (current != null && current.killed()) {
        throw new ScriptKilled();
      }
      long deadline = loadDeadline;
      if (deadline != 0 && System.nanoTime() - deadline > 0) {
        throw new LoadTimedOut();
      }
    }
  }
}
