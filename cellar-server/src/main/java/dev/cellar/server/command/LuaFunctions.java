package dev.cellar.server.command;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * Function libraries in one thread's interpreter: running a library's code to learn what it
 * registers ({@code redis.register_function}, in both of Redis's forms), and this thread's
 * callbacks of every library, loaded again whenever the libraries changed.
 *
 * <p>While a library's code runs, its only global is {@code redis}, a table of its own holding only
 * {@code register_function}, {@code log} and the constants, as in Redis: loading a library cannot
 * call commands, nor use {@code math}, {@code string} or any other library (Redis answers that the
 * script "attempted to access nonexistent global variable"). The library's code runs with an
 * environment of its own that says so while it loads and reads the interpreter's globals once it
 * has loaded, so that the functions it registered see the whole sandbox when they are called.
 */
final class LuaFunctions {
  static final String CHUNK = "@user_function";
  private static final List<String> FLAGS =
      List.of("no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys");

  private final LuaReadOnly.Sandbox globals;
  private final Map<String, LuaValue> callbacks = new HashMap<>();
  private long generation = -1;

  /** Runs a library's code under the load timeout ({@link LuaRuntime#runLibraryCode}). */
  private final java.util.function.Consumer<Runnable> underTimeout;

  /** The {@code redis} of the library being loaded; null when none is. */
  private LuaValue loadingRedis;

  /**
   * The libraries' environment: see the class comment. A {@link org.luaj.vm2.Globals} sharing the
   * interpreter's debug library and thread, because LuaJ runs its hooks (the kill switch, the load
   * timeout) only for closures whose environment is one: with a plain table, a library's endless
   * loop could not be stopped.
   */
  private final org.luaj.vm2.Globals environment = new org.luaj.vm2.Globals();

  LuaFunctions(LuaReadOnly.Sandbox globals, java.util.function.Consumer<Runnable> underTimeout) {
    this.globals = globals;
    this.underTimeout = underTimeout;
    LuaTable meta = new LuaTable();
    meta.rawset(
        "__index",
        new TwoArgFunction() {
          @Override
          public LuaValue call(LuaValue table, LuaValue key) {
            if (loadingRedis == null) {
              return globals.get(key);
            }
            if (key.isstring() && key.tojstring().equals("redis")) {
              return loadingRedis;
            }
            throw new LuaError(
                "Script attempted to access nonexistent global variable '" + key.tojstring() + "'");
          }
        });
    meta.rawset(
        "__newindex",
        new org.luaj.vm2.lib.ThreeArgFunction() {
          @Override
          public LuaValue call(LuaValue table, LuaValue key, LuaValue value) {
            globals.set(key, value); // refused: the sandbox is read-only
            return LuaValue.NONE;
          }
        });
    environment.setmetatable(meta);
  }

  /**
   * Runs {@code code} and returns the library it defines; with {@code into} not null, its callbacks
   * are put there.
   */
  FunctionLibraries.Library load(byte[] code, Map<String, LuaValue> into) {
    String name = FunctionLibraries.parseHeader(code);
    Prototype prototype;
    try {
      prototype = globals.compilePrototype(new ByteArrayInputStream(code), CHUNK);
    } catch (LuaError | IOException e) {
      throw new CommandError(
          "ERR Error compiling function: " + LuaReplies.errorText(e.getMessage()));
    }
    List<FunctionLibraries.Function> registered = new ArrayList<>();
    Map<String, LuaValue> found = new HashMap<>();
    boolean[] loaded = {false}; // a library keeping its loading redis cannot register later
    environment.debuglib = globals.debuglib;
    environment.running = globals.running;
    LuaValue outer = loadingRedis;
    loadingRedis = loadingLibrary(name, registered, found, loaded);
    try {
      // Under Redis's load timeout: code that never ends would hold its event loop, and the
      // server's stop, for good.
      underTimeout.accept(() -> new LuaClosure(prototype, environment).call());
    } catch (LuaRuntime.LoadTimedOut e) {
      throw new CommandError("ERR Error registering functions: FUNCTION LOAD timeout");
    } catch (LuaError e) {
      throw new CommandError(
          "ERR Error registering functions: " + LuaReplies.errorText(message(e)));
    } finally {
      loaded[0] = true;
      loadingRedis = outer;
    }
    if (registered.isEmpty()) {
      throw new CommandError("ERR No functions registered");
    }
    if (into != null) {
      into.putAll(found);
    }
    return new FunctionLibraries.Library(name, code.clone(), List.copyOf(registered));
  }

  private static String message(LuaError e) {
    String m = e.getMessage() == null ? "" : e.getMessage();
    int trace = m.indexOf("stack traceback:");
    m = (trace >= 0 ? m.substring(0, trace) : m).strip();
    LuaValue object = e.getMessageObject();
    if (object != null && object.istable() && object.rawget(LuaReplies.ERR_FIELD).isstring()) {
      return object.rawget(LuaReplies.ERR_FIELD).tojstring();
    }
    return "ERR " + m.replaceFirst("^@?user_function:(\\d+):? ", "user_function:$1: ");
  }

  /** The callback of function {@code name} in this thread, the libraries loaded if they changed. */
  LuaValue callback(FunctionLibraries libraries, String name) {
    long current = libraries.generation();
    if (current != generation) {
      callbacks.clear();
      for (FunctionLibraries.Library l : libraries.all()) {
        load(l.code(), callbacks);
      }
      generation = current;
    }
    return callbacks.get(name);
  }

  /** The {@code redis} table a library's code sees while it loads. */
  private LuaTable loadingLibrary(
      String library,
      List<FunctionLibraries.Function> registered,
      Map<String, LuaValue> found,
      boolean[] loaded) {
    LuaTable redis = new LuaTable();
    redis.set(
        "register_function",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            if (loaded[0]) {
              throw new LuaError(
                  "redis.register_function can only be called on FUNCTION LOAD command");
            }
            String name = null;
            LuaValue callback = LuaValue.NIL;
            String description = null;
            List<String> flags = new ArrayList<>();
            if (args.narg() < 1 || args.narg() > 2) {
              throw new LuaError("wrong number of arguments to redis.register_function");
            }
            if (args.narg() == 1) {
              LuaValue t = args.arg1();
              if (!t.istable()) {
                throw new LuaError(
                    "calling redis.register_function with a single argument is only applicable to"
                        + " Lua table (representing named arguments).");
              }
              LuaValue k = LuaValue.NIL;
              while (true) {
                Varargs next = t.next(k);
                k = next.arg1();
                if (k.isnil()) {
                  break;
                }
                if (!k.isstring()) {
                  throw new LuaError(
                      "named argument key given to redis.register_function is not a string");
                }
                String field = k.tojstring();
                LuaValue v = next.arg(2);
                switch (field.toLowerCase(java.util.Locale.ROOT)) {
                  case "function_name" -> {
                    if (!v.isstring()) {
                      throw new LuaError(
                          "function_name argument given to redis.register_function must be a"
                              + " string");
                    }
                    name = v.tojstring();
                  }
                  case "callback" -> {
                    if (!v.isfunction()) {
                      throw new LuaError(
                          "callback argument given to redis.register_function must be a function");
                    }
                    callback = v;
                  }
                  case "description" -> {
                    if (!v.isstring()) {
                      throw new LuaError(
                          "description argument given to redis.register_function must be a"
                              + " string");
                    }
                    description = v.tojstring();
                  }
                  case "flags" -> {
                    if (!v.istable()) {
                      throw new LuaError(
                          "flags argument to redis.register_function must be a table"
                              + " representing function flags");
                    }
                    for (int i = 1; !v.rawget(i).isnil(); i++) {
                      String flag = v.rawget(i).tojstring();
                      if (!FLAGS.contains(flag)) {
                        throw new LuaError("unknown flag given");
                      }
                      flags.add(flag);
                    }
                  }
                  default ->
                      throw new LuaError("unknown argument given to redis.register_function");
                }
              }
              if (name == null) {
                throw new LuaError("redis.register_function must get a function name argument");
              }
              if (callback.isnil()) {
                throw new LuaError("redis.register_function must get a callback argument");
              }
            } else {
              if (!args.arg1().isstring()) {
                throw new LuaError("first argument to redis.register_function must be a string");
              }
              if (!args.arg(2).isfunction()) {
                throw new LuaError("second argument to redis.register_function must be a function");
              }
              name = args.arg1().tojstring();
              callback = args.arg(2);
            }
            if (!FunctionLibraries.NAME.matcher(name).matches()) {
              // Redis's text, "Library" though it names a function
              throw new LuaError(
                  "Library names can only contain letters, numbers, or underscores(_) and must be"
                      + " at least one character long");
            }
            if (found.containsKey(name)) {
              throw new LuaError("Function already exists in the library");
            }
            found.put(name, callback);
            registered.add(
                new FunctionLibraries.Function(name, library, description, List.copyOf(flags)));
            return LuaValue.NONE;
          }
        });
    redis.set(
        "log",
        new VarArgFunction() {
          @Override
          public Varargs invoke(Varargs args) {
            return LuaValue.NONE;
          }
        });
    redis.set("LOG_DEBUG", 0);
    redis.set("LOG_VERBOSE", 1);
    redis.set("LOG_NOTICE", 2);
    redis.set("LOG_WARNING", 3);
    LuaRuntime.versionConstants(redis);
    LuaTable meta = new LuaTable();
    meta.set(
        "__index",
        new TwoArgFunction() {
          @Override
          public LuaValue call(LuaValue table, LuaValue key) {
            throw new LuaError(
                "Script attempted to access nonexistent global variable '" + key.tojstring() + "'");
          }
        });
    redis.setmetatable(meta);
    return LuaReadOnly.copyOf(redis);
  }
}
