package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;

/**
 * Scripting: EVAL EVALSHA EVAL_RO EVALSHA_RO and SCRIPT (LOAD EXISTS FLUSH KILL HELP), on LuaJ
 * ({@link LuaRuntime}), with Redis 7's replies and errors (docs/scripting.md).
 *
 * <p>A script is atomic as an EXEC is ({@link AtomicRun}): it holds the key locks of the keys it
 * declares in KEYS, writes into a view nobody else sees, and its writes become visible (and
 * durable, under {@code appendfsync always} before the reply) as one atomic unit of the log when it
 * ends. As in Redis, a script that fails keeps what it wrote before the error (scripts are atomic,
 * not rolled back); a killed script applies nothing, which Redis cannot offer once a script has
 * written (its {@code SCRIPT KILL} then answers UNKILLABLE, and only SHUTDOWN NOSAVE stops it).
 */
final class ScriptCommands {
  private ScriptCommands() {}

  static void register(CommandTable t) {
    t.add(
            "eval",
            -3,
            "noscript stale skip_monitor may_replicate no_mandatory_keys movablekeys",
            0,
            0,
            0,
            "scripting",
            "Executes a server-side Lua script.",
            (s, r, o) -> eval(s, r, o, false, false))
        .add(
            "evalsha",
            -3,
            "noscript stale skip_monitor may_replicate no_mandatory_keys movablekeys",
            0,
            0,
            0,
            "scripting",
            "Executes a server-side Lua script by SHA1 digest.",
            (s, r, o) -> eval(s, r, o, true, false))
        .add(
            "eval_ro",
            -3,
            "readonly noscript stale skip_monitor no_mandatory_keys movablekeys",
            0,
            0,
            0,
            "scripting",
            "Executes a read-only server-side Lua script.",
            (s, r, o) -> eval(s, r, o, false, true))
        .add(
            "evalsha_ro",
            -3,
            "readonly noscript stale skip_monitor no_mandatory_keys movablekeys",
            0,
            0,
            0,
            "scripting",
            "Executes a read-only server-side Lua script by SHA1 digest.",
            (s, r, o) -> eval(s, r, o, true, true))
        .add(
            "script",
            -2,
            "noscript",
            0,
            0,
            0,
            "scripting",
            "A container for Lua scripts management commands.",
            ScriptCommands::script);
  }

  /** KEYS and ARGV of a call whose numkeys is at {@code at}: keys first, then arguments. */
  static byte[][][] keysAndArgs(Request r, int at) {
    if (!r.isLong(at)) {
      throw CommandError.NOT_INTEGER;
    }
    long numkeys = r.longValue(at);
    if (numkeys < 0) {
      throw new CommandError("ERR Number of keys can't be negative");
    }
    if (numkeys > r.argc() - at - 1) {
      throw new CommandError("ERR Number of keys can't be greater than number of args");
    }
    byte[][] keys = new byte[(int) numkeys][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = r.bytes(at + 1 + i);
    }
    byte[][] args = new byte[r.argc() - at - 1 - keys.length][];
    for (int i = 0; i < args.length; i++) {
      args[i] = r.bytes(at + 1 + keys.length + i);
    }
    return new byte[][][] {keys, args};
  }

  static void eval(Session s, Request r, ReplyWriter out, boolean bySha, boolean readOnly) {
    byte[][][] ka = keysAndArgs(r, 2);
    Scripts scripts = s.server().scripts();
    Scripts.Script script;
    if (bySha) {
      script = scripts.find(r.string(1));
      if (script == null) {
        throw new CommandError("NOSCRIPT No matching script. Please use EVAL.");
      }
    } else {
      script = scripts.forEval(r.bytes(1));
    }
    Scripts.Run run = new Scripts.Run(script.sha(), readOnly, r);
    if (Scripts.outOfMemory(s.server())) {
      run.denyOom(); // its commands that grow memory are refused until it writes (as Redis)
    }
    runAtomically(
        s, out, ka[0], run, runtime -> runtime.run(run, script.prototype(), ka[0], ka[1], out));
  }

  /** What a script or function does with its thread's runtime; returns whether it ended well. */
  @FunctionalInterface
  interface Call {
    boolean run(LuaRuntime runtime);
  }

  /**
   * Runs {@code call} as one atomic whole under the locks of {@code keys}; any other key it touches
   * is only tried ({@link KeyLocks}), so a script cannot deadlock with a client.
   */
  static void runAtomically(Session s, ReplyWriter out, byte[][] keys, Scripts.Run run, Call call) {
    ServerContext server = s.server();
    KeyLocks locks = server.locks();
    int[] stripes = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      stripes[i] = KeyLocks.stripe(keys[i], 0, keys[i].length);
    }
    int held = locks.lockAll(stripes, stripes.length);
    server.scripts().started(run);
    locks.guard();
    try {
      AtomicRun.run(
          s,
          out,
          "ERR Error running script, nothing of it was written: ",
          () -> call.run(server.scripts().runtime()));
    } finally {
      locks.unguard();
      server.scripts().finished(run);
      locks.unlockAll(stripes, held);
    }
  }

  static void script(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(java.util.Locale.ROOT);
    s.subcommand("script", sub);
    Scripts scripts = s.server().scripts();
    switch (sub) {
      case "load" -> {
        ServerCommands.requireArity(r, "script", sub, 3);
        out.bulk(scripts.load(r.bytes(2)));
      }
      case "exists" -> {
        if (r.argc() < 3) {
          throw CommandError.arity("script|exists");
        }
        out.array(r.argc() - 2);
        for (int i = 2; i < r.argc(); i++) {
          out.integer(scripts.find(r.string(i)) != null ? 1 : 0);
        }
      }
      case "flush" -> {
        if (r.argc() > 3 || (r.argc() == 3 && !r.is(2, "async") && !r.is(2, "sync"))) {
          throw new CommandError("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
        }
        scripts.flush();
        out.ok();
      }
      case "kill" -> {
        ServerCommands.requireArity(r, "script", sub, 2);
        scripts.kill(false);
        out.ok();
      }
      case "help" -> {
        out.simpleLines(
            new String[] {
              "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
              "DEBUG (YES|SYNC|NO)",
              "    Set the debug mode for subsequent scripts executed.",
              "EXISTS <sha1> [<sha1> ...]",
              "    Return information about the existence of the scripts in the script cache.",
              "FLUSH [ASYNC|SYNC]",
              "    Flush the Lua scripts cache. Very dangerous on replicas.",
              "    When called without the optional mode argument, the behavior is determined by the",
              "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
              "    * ASYNC: Asynchronously flush the scripts cache.",
              "    * SYNC: Synchronously flush the scripts cache.",
              "KILL",
              "    Kill the currently executing Lua script.",
              "LOAD <script>",
              "    Load a script into the scripts cache without executing it.",
              "HELP",
              "    Print this help."
            });
      }
      default ->
          throw new CommandError("ERR unknown subcommand '" + r.string(1) + "'. Try SCRIPT HELP.");
    }
  }
}
