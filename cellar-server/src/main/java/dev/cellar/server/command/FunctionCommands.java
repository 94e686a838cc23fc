package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.List;
import java.util.Locale;
import org.luaj.vm2.LuaValue;

/**
 * Functions: FUNCTION (LOAD DELETE FLUSH LIST KILL STATS DUMP RESTORE HELP), FCALL and FCALL_RO,
 * with Redis 7's replies and errors. Libraries persist in the data directory ({@link
 * FunctionLibraries}); a call runs as atomically as a script does ({@link
 * ScriptCommands#runAtomically}).
 */
final class FunctionCommands {
  private FunctionCommands() {}

  static void register(CommandTable t) {
    t.add(
            "fcall",
            -3,
            "noscript stale skip_monitor may_replicate no_mandatory_keys movablekeys",
            0,
            0,
            0,
            "scripting",
            "Invokes a function.",
            (s, r, o) -> fcall(s, r, o, false))
        .add(
            "fcall_ro",
            -3,
            "readonly noscript stale skip_monitor no_mandatory_keys movablekeys",
            0,
            0,
            0,
            "scripting",
            "Invokes a read-only function.",
            (s, r, o) -> fcall(s, r, o, true))
        .add(
            "function",
            -2,
            "noscript",
            0,
            0,
            0,
            "scripting",
            "A container for function commands.",
            FunctionCommands::function);
  }

  static void fcall(Session s, Request r, ReplyWriter out, boolean readOnlyCall) {
    Scripts scripts = s.server().scripts();
    FunctionLibraries.Function f = scripts.libraries().function(r.string(1));
    if (f == null) {
      throw new CommandError("ERR Function not found");
    }
    if (!r.isLong(2)) {
      throw new CommandError("ERR Bad number of keys provided");
    }
    byte[][][] ka = ScriptCommands.keysAndArgs(r, 2);
    String name = f.name(); // as registered: FCALL's name is case-insensitive
    if (readOnlyCall && !f.noWrites()) {
      throw new CommandError("ERR Can not execute a script with write flag using *_ro command.");
    }
    // As Redis: a function that may write, without allow-oom, is refused while memory is over
    // maxmemory; one that runs is not stopped by it afterwards.
    if (!f.allowOom() && !f.noWrites() && Scripts.outOfMemory(s.server())) {
      throw new CommandError(Dispatcher.OOM);
    }
    Scripts.Run run = new Scripts.Run(name, readOnlyCall || f.noWrites(), "user_function", r);
    ScriptCommands.runAtomically(
        s,
        out,
        ka[0],
        run,
        runtime -> {
          LuaValue callback = runtime.functions().callback(scripts.libraries(), name);
          if (callback == null) { // deleted meanwhile
            out.error("ERR Function not found");
            return false;
          }
          return runtime.call(
              run,
              callback,
              LuaValue.varargsOf(LuaRuntime.table(ka[0]), LuaRuntime.table(ka[1])),
              out);
        });
  }

  static void function(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(Locale.ROOT);
    s.subcommand("function", sub);
    Scripts scripts = s.server().scripts();
    FunctionLibraries libraries = scripts.libraries();
    switch (sub) {
      case "load" -> {
        boolean replace = false;
        for (int i = 2; i < r.argc() - 1; i++) {
          if (!r.is(i, "replace")) {
            throw new CommandError("ERR Unknown option given: " + r.string(i));
          }
          replace = true;
        }
        byte[] code = r.bytes(r.argc() - 1);
        FunctionLibraries.Library library = scripts.runtime().functions().load(code, null);
        libraries.load(library, replace);
        out.bulk(library.name());
      }
      case "dump" -> {
        ServerCommands.requireArity(r, "function", sub, 2);
        out.bulk(FunctionDump.dump(libraries.all()));
      }
      case "restore" -> {
        if (r.argc() < 3 || r.argc() > 4) {
          throw new CommandError(
              "ERR unknown subcommand or wrong number of arguments for '"
                  + r.string(1)
                  + "'. Try FUNCTION HELP.");
        }
        String policy = r.argc() == 4 ? r.string(3).toLowerCase(java.util.Locale.ROOT) : "append";
        if (!List.of("flush", "append", "replace").contains(policy)) {
          throw new CommandError(
              "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
        }
        List<FunctionLibraries.Library> incoming = new java.util.ArrayList<>();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (byte[] code : FunctionDump.codes(r.bytes(2))) {
          FunctionLibraries.Library library = scripts.runtime().functions().load(code, null);
          if (!names.add(library.name())) {
            throw new CommandError("ERR Library " + library.name() + " already exists");
          }
          incoming.add(library);
        }
        libraries.restoreAll(incoming, policy);
        out.ok();
      }
      case "delete" -> {
        ServerCommands.requireArity(r, "function", sub, 3);
        libraries.delete(r.string(2));
        out.ok();
      }
      case "flush" -> {
        if (r.argc() > 3) {
          throw new CommandError( // the subcommand as the client wrote it, as Redis echoes it
              "ERR unknown subcommand or wrong number of arguments for '"
                  + r.string(1)
                  + "'. Try FUNCTION HELP.");
        }
        if (r.argc() == 3 && !r.is(2, "async") && !r.is(2, "sync")) {
          throw new CommandError("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        }
        libraries.flush();
        out.ok();
      }
      case "list" -> list(r, out, libraries);
      case "kill" -> {
        ServerCommands.requireArity(r, "function", sub, 2);
        scripts.kill(true);
        out.ok();
      }
      case "stats" -> {
        ServerCommands.requireArity(r, "function", sub, 2);
        out.map(2);
        out.bulk("running_script");
        Scripts.Run running = scripts.longestRunning();
        if (running == null) {
          out.nullBulk();
        } else {
          // Redis names a script by its function, "f_" and the SHA-1 for EVAL's
          out.map(3);
          out.bulk("name");
          out.bulk(
              running.chunk().equals("user_function") ? running.name() : "f_" + running.name());
          out.bulk("command");
          out.array(running.command().length);
          for (byte[] arg : running.command()) {
            out.bulk(arg);
          }
          out.bulk("duration_ms");
          out.integer(running.durationMillis());
        }
        out.bulk("engines");
        out.map(1);
        out.bulk("LUA");
        out.map(2);
        out.bulk("libraries_count");
        out.integer(libraries.all().size());
        out.bulk("functions_count");
        out.integer(libraries.functionCount());
      }
      case "help" ->
          out.simpleLines(
              new String[] {
                "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "LOAD [REPLACE] <FUNCTION CODE>",
                "    Create a new library with the given library name and code.",
                "DELETE <LIBRARY NAME>",
                "    Delete the given library.",
                "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
                "    Return general information on all the libraries:",
                "    * Library name",
                "    * The engine used to run the Library",
                "    * Library description",
                "    * Functions list",
                "    * Library code (if WITHCODE is given)",
                "    It also possible to get only function that matches a pattern using LIBRARYNAME",
                "    argument.",
                "STATS",
                "    Return information about the current function running:",
                "    * Function name",
                "    * Command used to run the function",
                "    * Duration in MS that the function is running",
                "    If no function is running, return nil",
                "    In addition, returns a list of available engines.",
                "KILL",
                "    Kill the current running function.",
                "FLUSH [ASYNC|SYNC]",
                "    Delete all the libraries.",
                "    When called without the optional mode argument, the behavior is determined by the",
                "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
                "    * ASYNC: Asynchronously flush the libraries.",
                "    * SYNC: Synchronously flush the libraries.",
                "DUMP",
                "    Return a serialized payload representing the current libraries, can be"
                    + " restored using FUNCTION RESTORE command",
                "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
                "    Restore the libraries represented by the given payload, it is possible to give"
                    + " a restore policy to",
                "    control how to handle existing libraries (default APPEND):",
                "    * FLUSH: delete all existing libraries.",
                "    * APPEND: appends the restored libraries to the existing libraries. On"
                    + " collision, abort.",
                "    * REPLACE: appends the restored libraries to the existing libraries, On"
                    + " collision, replace the old",
                "      libraries with the new libraries (notice that even on this option there is"
                    + " a chance of failure",
                "      in case of functions name collision with another library).",
                "HELP",
                "    Print this help."
              });
      default ->
          throw new CommandError(
              "ERR unknown subcommand '" + r.string(1) + "'. Try FUNCTION HELP.");
    }
  }

  private static void list(Request r, ReplyWriter out, FunctionLibraries libraries) {
    byte[] pattern = null;
    boolean withCode = false;
    for (int i = 2; i < r.argc(); i++) {
      if (r.is(i, "withcode") && !withCode) {
        withCode = true;
      } else if (r.is(i, "libraryname") && pattern == null) {
        if (i + 1 >= r.argc()) {
          throw new CommandError("ERR library name argument was not given");
        }
        pattern = r.bytes(++i);
      } else {
        throw new CommandError("ERR Unknown argument " + r.string(i));
      }
    }
    List<FunctionLibraries.Library> all = libraries.all();
    byte[] glob = pattern;
    List<FunctionLibraries.Library> shown =
        glob == null ? all : all.stream().filter(l -> PubSub.matches(glob, name(l))).toList();
    out.array(shown.size());
    for (FunctionLibraries.Library l : shown) {
      out.map(withCode ? 4 : 3);
      out.bulk("library_name");
      out.bulk(l.name());
      out.bulk("engine");
      out.bulk("LUA");
      out.bulk("functions");
      out.array(l.functions().size());
      for (FunctionLibraries.Function f : l.functions()) {
        out.map(3);
        out.bulk("name");
        out.bulk(f.name());
        out.bulk("description");
        if (f.description() == null) {
          out.nullBulk();
        } else {
          out.bulk(f.description());
        }
        out.bulk("flags");
        out.set(f.flags().size());
        for (String flag : f.flags()) {
          out.simple(flag);
        }
      }
      if (withCode) {
        out.bulk("library_code");
        out.bulk(l.code());
      }
    }
  }

  private static byte[] name(FunctionLibraries.Library l) {
    return l.name().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
