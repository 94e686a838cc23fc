package dev.cellar.server.command;

import dev.cellar.ScanPage;
import dev.cellar.server.config.ConfigException;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Server commands: COMMAND INFO CONFIG DBSIZE FLUSHDB FLUSHALL SHUTDOWN SAVE BGSAVE BGREWRITEAOF
 * TIME.
 */
final class ServerCommands {
  private ServerCommands() {}

  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  static void register(CommandTable t) {
    t.add(
            "command",
            -1,
            "loading stale",
            0,
            0,
            0,
            "server",
            "Returns detailed information about all commands.",
            ServerCommands::command)
        .add(
            "info",
            -1,
            "loading stale",
            0,
            0,
            0,
            "server",
            "Returns information and statistics about the server.",
            ServerCommands::info)
        .add(
            "config",
            -2,
            "admin loading stale",
            0,
            0,
            0,
            "server",
            "A container for server configuration commands.",
            ServerCommands::config)
        .add(
            "dbsize",
            1,
            "readonly fast",
            0,
            0,
            0,
            "server",
            "Returns the number of keys in the database.",
            (s, r, o) -> o.integer(s.server().store().size()))
        .add(
            "flushdb",
            -1,
            "write",
            0,
            0,
            0,
            "server",
            "Remove all keys from the current database.",
            ServerCommands::flush)
        .add(
            "flushall",
            -1,
            "write",
            0,
            0,
            0,
            "server",
            "Removes all keys from all databases.",
            ServerCommands::flushAll)
        .add(
            "shutdown",
            -1,
            "admin noscript loading stale",
            0,
            0,
            0,
            "server",
            "Synchronously saves the database(s) to disk and shuts down the Redis server.",
            ServerCommands::shutdown)
        .add(
            "save",
            1,
            "admin noscript",
            0,
            0,
            0,
            "server",
            "Synchronously saves the database(s) to disk.",
            ServerCommands::save)
        .add(
            "bgsave",
            -1,
            "admin noscript",
            0,
            0,
            0,
            "server",
            "Asynchronously saves the database(s) to disk.",
            ServerCommands::bgsave)
        .add(
            "lastsave",
            1,
            "loading stale fast",
            0,
            0,
            0,
            "server",
            "Returns the Unix timestamp of the last successful save to disk.",
            ServerCommands::lastsave)
        .add(
            "bgrewriteaof",
            1,
            "admin noscript",
            0,
            0,
            0,
            "server",
            "Asynchronously rewrites the append-only file to disk.",
            ServerCommands::bgrewriteaof)
        .add(
            "time",
            1,
            "loading stale fast",
            0,
            0,
            0,
            "server",
            "Returns the server time.",
            ServerCommands::time);
  }

  // ------------------------------------------------------------------ COMMAND

  static void command(Session s, Request r, ReplyWriter out) {
    CommandTable table = s.server().commands();
    if (r.argc() == 1) {
      describeAll(out, table);
      return;
    }
    String sub = r.string(1).toLowerCase(Locale.ROOT);
    switch (sub) {
      case "count" -> {
        requireArity(r, "command", sub, 2);
        out.integer(table.size());
      }
      case "info" -> {
        if (r.argc() == 2) {
          describeAll(out, table); // no names: every command, as COMMAND answers
          return;
        }
        out.array(r.argc() - 2);
        for (int i = 2; i < r.argc(); i++) {
          CommandSpec spec = table.get(r.string(i));
          if (spec == null) {
            out.nullBulk(); // Redis 7: a null bulk (RESP3: null), not a null array
          } else {
            describe(out, spec);
          }
        }
      }
      case "docs" -> {
        List<CommandSpec> specs = new ArrayList<>();
        if (r.argc() == 2) {
          specs.addAll(table.all());
        } else {
          for (int i = 2; i < r.argc(); i++) {
            CommandSpec spec = table.get(r.string(i));
            if (spec != null) {
              specs.add(spec);
            }
          }
        }
        out.map(specs.size());
        for (CommandSpec spec : specs) {
          out.bulk(spec.name());
          out.map(3);
          out.bulk("summary");
          out.bulk(spec.summary());
          out.bulk("since");
          out.bulk("1.0.0");
          out.bulk("group");
          out.bulk(spec.group());
        }
      }
      case "list" -> commandList(r, out, table);
      case "help" ->
          out.simpleLines(
              new String[] {
                "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "(no subcommand)",
                "    Return details about all Redis commands.",
                "COUNT",
                "    Return the total number of commands in this Redis server.",
                "LIST",
                "    Return a list of all commands in this Redis server.",
                "INFO [<command-name> ...]",
                "    Return details about multiple Redis commands.",
                "    If no command names are given, documentation details for all",
                "    commands are returned.",
                "DOCS [<command-name> ...]",
                "    Return documentation details about multiple Redis commands.",
                "    If no command names are given, documentation details for all",
                "    commands are returned.",
                "GETKEYS <full-command>",
                "    Return the keys from a full Redis command.",
                "HELP",
                "    Prints this help."
              });
      case "getkeys" -> {
        requireArity(r, "command", sub, -4);
        CommandSpec spec = table.get(r.string(2));
        if (spec == null) {
          throw new CommandError("ERR Invalid command specified");
        }
        int argc = r.argc() - 2;
        List<Integer> positions = new ArrayList<>();
        if (spec.has("movablekeys")) {
          if (!spec.arityAccepts(argc)) {
            throw new CommandError("ERR Invalid number of arguments specified for command");
          }
          List<String> args = new ArrayList<>(argc);
          for (int i = 2; i < r.argc(); i++) {
            args.add(r.string(i));
          }
          positions.addAll(MovableKeys.keyPositions(spec, args));
          if (positions.isEmpty() && !spec.has("no_mandatory_keys")) {
            throw new CommandError("ERR Invalid arguments specified for command");
          }
        } else {
          List<String> args = new ArrayList<>(argc);
          for (int i = 2; i < r.argc(); i++) {
            args.add(r.string(i));
          }
          int subKey = spec.firstKey() == 0 ? MovableKeys.subcommandKey(spec.name(), args) : -1;
          if (subKey > 0) {
            out.array(1);
            out.bulk(r.bytes(subKey + 2));
            return;
          }
          if (spec.firstKey() == 0) {
            throw new CommandError("ERR The command has no key arguments");
          }
          if (!spec.arityAccepts(argc)) {
            throw new CommandError("ERR Invalid number of arguments specified for command");
          }
          positions.addAll(MovableKeys.keyPositions(spec, args));
        }
        out.array(positions.size());
        for (int k : positions) {
          out.bulk(r.bytes(k + 2));
        }
      }
      default ->
          throw new CommandError("ERR unknown subcommand '" + r.string(1) + "'. Try COMMAND HELP.");
    }
  }

  /**
   * {@code COMMAND LIST [FILTERBY MODULE name|ACLCAT category|PATTERN pattern]}: every command's
   * name and its subcommands' ({@code client|list}). There are no modules; ACL categories are not
   * kept, so {@code ACLCAT} matches a command's group ({@code scripting}, {@code string}...) and
   * {@code read} or {@code write} by its flags; {@code PATTERN} is a glob, case-insensitive, over
   * the full names.
   */
  private static void commandList(Request r, ReplyWriter out, CommandTable table) {
    String filter = null;
    String value = null;
    if (r.argc() != 2) {
      if (r.argc() != 5 || !r.is(2, "filterby")) {
        throw CommandError.SYNTAX;
      }
      filter = r.string(3).toLowerCase(java.util.Locale.ROOT);
      value = r.string(4);
      if (!List.of("module", "aclcat", "pattern").contains(filter)) {
        throw CommandError.SYNTAX;
      }
    }
    List<String> names = new ArrayList<>();
    for (CommandSpec spec : table.all()) {
      boolean inCategory =
          !"aclcat".equals(filter)
              || spec.group().equalsIgnoreCase(value)
              || (value.equalsIgnoreCase("write") && spec.isWrite())
              || (value.equalsIgnoreCase("read") && spec.has("readonly"));
      if ("module".equals(filter) || !inCategory) {
        continue;
      }
      List<String> all = new ArrayList<>();
      all.add(spec.name());
      for (String sub : Subcommands.of(spec.name())) {
        all.add(spec.name() + "|" + sub);
      }
      for (String name : all) {
        if (!"pattern".equals(filter) || glob(value, name)) {
          names.add(name);
        }
      }
    }
    out.array(names.size());
    names.forEach(out::bulk);
  }

  private static boolean glob(String pattern, String name) {
    byte[] p = pattern.toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.UTF_8);
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    return dev.cellar.server.config.Glob.matches(p, 0, p.length, n, 0, n.length);
  }

  private static void describeAll(ReplyWriter out, CommandTable table) {
    List<CommandSpec> all = new ArrayList<>(table.all());
    out.array(all.size());
    for (CommandSpec spec : all) {
      describe(out, spec);
    }
  }

  /** Redis 7's ten-element command description. */
  private static void describe(ReplyWriter out, CommandSpec spec) {
    out.array(10);
    out.bulk(spec.name());
    out.integer(spec.arity());
    out.set(spec.flags().size());
    for (String flag : spec.flags()) {
      out.simple(flag);
    }
    out.integer(spec.firstKey());
    out.integer(spec.lastKey());
    out.integer(spec.step());
    out.set(0); // ACL categories
    out.set(0); // tips
    out.array(0); // key specs
    out.array(0); // subcommands
  }

  // ------------------------------------------------------------------ INFO

  static void info(Session s, Request r, ReplyWriter out) {
    List<String> sections = new ArrayList<>();
    for (int i = 1; i < r.argc(); i++) {
      sections.add(r.string(i).toLowerCase(Locale.ROOT));
    }
    out.verbatim(InfoText.render(s.server(), sections));
  }

  // ------------------------------------------------------------------ CONFIG

  static void config(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(Locale.ROOT);
    s.subcommand("config", sub);
    switch (sub) {
      case "get" -> {
        requireArity(r, "config", sub, -3);
        Map<String, String> values = new java.util.LinkedHashMap<>();
        for (int i = 2; i < r.argc(); i++) {
          String name = r.string(i);
          Map<String, String> found = s.server().config().matching(name);
          if (isGlob(name) || found.size() != 1) {
            values.putAll(found);
          } else {
            values.put(name, found.values().iterator().next()); // a plain name comes back as asked
          }
        }
        // Port 0 asks for any free port: report the one actually bound.
        values.replaceAll(
            (name, value) ->
                name.equalsIgnoreCase("port")
                    ? Integer.toString(s.server().control().port())
                    : value);
        out.map(values.size());
        values.forEach(
            (name, value) -> {
              out.bulk(name);
              out.bulk(value);
            });
      }
      case "set" -> {
        requireArity(r, "config", sub, -4);
        if (r.argc() % 2 != 0) {
          throw CommandError.SYNTAX;
        }
        ServerConfig config = s.server().config();
        java.util.Set<String> named = new java.util.HashSet<>();
        for (int i = 2; i < r.argc(); i += 2) {
          String name = r.string(i);
          if (!config.acceptsAtRuntime(name)) {
            throw new CommandError(
                "ERR Unknown option or number of arguments for CONFIG SET - '" + name + "'");
          }
          if (!named.add(ServerConfig.canonicalName(name))) {
            throw new CommandError(
                "ERR CONFIG SET failed (possibly related to argument '"
                    + name
                    + "') - duplicate parameter");
          }
        }
        // As Redis: all of them or none; what was set before a failure is put back.
        java.util.List<String[]> applied = new java.util.ArrayList<>();
        int newPort = -1; // a port to move to, bound once every other value is in
        String portArgument = null;
        for (int i = 2; i < r.argc(); i += 2) {
          String previous = config.current(r.string(i));
          try {
            if (ServerConfig.canonicalName(r.string(i)).equals("port")) {
              int port = ServerConfig.portValue(r.string(i + 1));
              // The port CONFIG GET shows is the one bound (where port 0 asked for any).
              if (port != s.server().control().port()) {
                newPort = port;
                portArgument = r.string(i);
              }
              continue;
            }
            config.setAtRuntime(r.string(i), r.string(i + 1));
            applied.add(new String[] {r.string(i), previous});
          } catch (ConfigException e) {
            undo(config, applied);
            throw new CommandError(
                "ERR CONFIG SET failed (possibly related to argument '"
                    + r.string(i)
                    + "') - "
                    + e.getMessage());
          }
        }
        if (newPort >= 0) {
          try {
            s.server().control().listenOn(newPort);
            config.listeningOn(newPort);
          } catch (IllegalStateException e) {
            undo(config, applied);
            LOG.log(System.Logger.Level.WARNING, "CONFIG SET port: " + e.getMessage());
            // Redis's words (updatePort), which clients and its test suite match.
            throw new CommandError(
                "ERR CONFIG SET failed (possibly related to argument '"
                    + portArgument
                    + "') - Unable to listen on this port. Check server logs.");
          }
        }
        if (named.contains("maxmemory") || named.contains("maxmemory-policy")) {
          s.server().memory().evictIfOver(); // as Redis, at once (keyspace events included)
        }
        out.ok();
      }
      case "resetstat" -> {
        requireArity(r, "config", sub, 2);
        s.server().stats().reset();
        s.server().sampler().reset();
        out.ok();
      }
      case "help" ->
          out.simpleLines(
              new String[] {
                "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "GET <pattern>",
                "    Return parameters matching the glob-like <pattern> and their values.",
                "SET <directive> <value>",
                "    Set the configuration <directive> to <value>.",
                "RESETSTAT",
                "    Reset statistics reported by the INFO command.",
                "HELP",
                "    Prints this help."
              });
      default ->
          throw new CommandError("ERR unknown subcommand '" + r.string(1) + "'. Try CONFIG HELP.");
    }
  }

  /** Puts back, last first, the settings a refused {@code CONFIG SET} had changed. */
  private static void undo(ServerConfig config, java.util.List<String[]> applied) {
    for (int j = applied.size() - 1; j >= 0; j--) {
      String[] undo = applied.get(j);
      try {
        config.restore(undo[0], undo[1]);
      } catch (ConfigException ignored) {
        // a value it read back is one it takes
      }
    }
  }

  private static boolean isGlob(String name) {
    return name.indexOf('*') >= 0 || name.indexOf('?') >= 0 || name.indexOf('[') >= 0;
  }

  /**
   * Redis 7 checks a subcommand's arity like a command's and names it {@code container|sub}; {@code
   * arity} counts the container and the subcommand, negative meaning "at least".
   */
  static void requireArity(Request r, String container, String sub, int arity) {
    assert Subcommands.arity(container, sub) == arity
        : container + "|" + sub + " checks arity " + arity + " where Subcommands says otherwise";
    int argc = r.argc();
    if (arity >= 0 ? argc != arity : argc < -arity) {
      throw CommandError.arity(container + "|" + sub);
    }
  }

  // ------------------------------------------------------------------ persistence and lifecycle

  /**
   * Deletes every key. The engine has no bulk clear, so each key gets a tombstone (the log records
   * the deletions, and they survive a crash like any other write).
   */
  /** Index entries FLUSHDB/FLUSHALL examine per page of keys it deletes. */
  private static final int FLUSH_PAGE = 4096;

  static void flush(Session s, Request r, ReplyWriter out) {
    if (r.argc() > 2 || (r.argc() == 2 && !r.is(1, "async") && !r.is(1, "sync"))) {
      throw CommandError.SYNTAX;
    }
    flushCurrent(s.server());
    out.ok();
  }

  /** FLUSHALL: FLUSHDB in every database that was opened (the others hold nothing). */
  static void flushAll(Session s, Request r, ReplyWriter out) {
    if (r.argc() > 2 || (r.argc() == 2 && !r.is(1, "async") && !r.is(1, "sync"))) {
      throw CommandError.SYNTAX;
    }
    ServerContext server = s.server();
    if (server.inAtomicRun()) {
      // A transaction or script stays in its database (see DatabaseCommands).
      if (server.databases().openIndexes().size() > 1) {
        DatabaseCommands.requireOutsideAtomicRun(server, "FLUSHALL over several databases");
      }
      flushCurrent(server);
    } else {
      for (int index : server.databases().openIndexes()) {
        server.inDatabase(index, () -> flushCurrent(server));
      }
    }
    out.ok();
  }

  private static void flushCurrent(ServerContext server) {
    // Page by page: the heap holds one page of keys, never the whole keyspace. The engine's scan
    // returns every key present for the whole walk exactly once, deletions behind it or not.
    long cursor = ScanPage.START;
    do {
      ScanPage page = server.store().scanPage(cursor, new byte[0], FLUSH_PAGE);
      for (byte[] key : page.keys()) {
        int stripe = KeyLocks.stripe(key, 0, key.length);
        server.locks().lock(stripe);
        try {
          server.store().delete(key);
        } finally {
          server.locks().unlock(stripe);
        }
      }
      cursor = page.nextCursor();
    } while (cursor != ScanPage.START);
    server.blocked().databaseFlushed(server.databaseIndex());
    server.tracking().flushed();
  }

  static void shutdown(Session s, Request r, ReplyWriter out) {
    boolean abort = false;
    boolean save = false;
    boolean noSave = false;
    boolean otherFlags = false;
    for (int i = 1; i < r.argc(); i++) {
      if (r.is(i, "abort")) {
        abort = true;
      } else if (r.is(i, "nosave")) {
        noSave = true;
      } else if (r.is(i, "save")) {
        save = true;
      } else if (r.is(i, "now") || r.is(i, "force")) {
        otherFlags = true;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    if ((abort && (save || noSave || otherFlags)) || (save && noSave)) {
      throw CommandError.SYNTAX;
    }
    if (abort) {
      throw new CommandError("ERR No shutdown in progress."); // shutting down never waits here
    }
    // Like Redis, no reply on success: the connection just closes once the server has saved.
    s.closeAfterReply();
    s.server().control().shutdownAsync();
  }

  static void save(Session s, Request r, ReplyWriter out) {
    long mark = s.server().changes().total();
    s.server().databases().forEachStore(dev.cellar.Cellar::sync);
    s.server().databases().forEachStore(dev.cellar.Cellar::checkpoint);
    s.server().control().saved();
    s.server().changes().saved(mark);
    out.ok();
  }

  static void lastsave(Session s, Request r, ReplyWriter out) {
    out.integer(s.server().control().lastSaveEpochSeconds());
  }

  static void bgsave(Session s, Request r, ReplyWriter out) {
    if (r.argc() > 2 || (r.argc() == 2 && !r.is(1, "schedule"))) {
      throw CommandError.SYNTAX;
    }
    if (s.server().control().checkpointAsync()) {
      out.simple("Background saving started");
    } else if (r.argc() == 2) {
      out.simple("Background saving scheduled");
    } else {
      throw new CommandError("ERR Background save already in progress");
    }
  }

  static void bgrewriteaof(Session s, Request r, ReplyWriter out) {
    if (s.server().control().compactAsync()) {
      out.simple("Background append only file rewriting started");
    } else {
      throw new CommandError("ERR Background append only file rewriting already in progress");
    }
  }

  static void time(Session s, Request r, ReplyWriter out) {
    java.time.Instant now = java.time.Instant.now();
    out.array(2);
    out.bulk(Long.toString(now.getEpochSecond()));
    out.bulk(Long.toString(now.getNano() / 1000));
  }
}
