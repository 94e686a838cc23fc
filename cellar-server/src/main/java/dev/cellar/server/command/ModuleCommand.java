package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.Locale;

/**
 * {@code MODULE}: Cellar loads no Redis modules (they are native code written against Redis's
 * internals), so {@code MODULE LIST} answers an empty list, which is how libraries that look for a
 * module (RedisJSON, RediSearch) learn that it is not there, and {@code LOAD}, {@code LOADEX} and
 * {@code UNLOAD} are refused with the reason.
 */
final class ModuleCommand {
  private ModuleCommand() {}

  static void register(CommandTable t) {
    t.add(
        "module",
        -2,
        "admin noscript",
        0,
        0,
        0,
        "server",
        "A container for module commands.",
        ModuleCommand::run);
  }

  static void run(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(Locale.ROOT);
    switch (sub) {
      case "list" -> {
        ServerCommands.requireArity(r, "module", sub, 2);
        out.array(0);
      }
      case "load", "loadex", "unload" ->
          throw new CommandError(
              "ERR Cellar does not load Redis modules (native code built against Redis's"
                  + " internals): MODULE "
                  + sub.toUpperCase(Locale.ROOT)
                  + " is refused");
      case "help" ->
          out.simpleLines(
              new String[] {
                "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "LIST",
                "    Return a list of loaded modules.",
                "LOAD <path> [<arg> ...]",
                "    Load a module library from <path>, passing to it any optional arguments.",
                "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
                "    Load a module library from <path>, while passing it module configurations"
                    + " and optional arguments.",
                "UNLOAD <name>",
                "    Unload a module.",
                "HELP",
                "    Prints this help."
              });
      default ->
          throw new CommandError("ERR unknown subcommand '" + r.string(1) + "'. Try MODULE HELP.");
    }
  }
}
