package dev.cellar.cli.server;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code cellar server}'s arguments read without picocli, so that a start answers sooner: building
 * picocli's reflective command tree is most of what the server's main thread does before it listens
 * (0.5 to 0.7 s of CPU, and picocli's Java 5 classes cannot go in the start-up cache).
 *
 * <p>This parser takes only the plain cases: each of {@link ServerCommand}'s options once, as
 * {@code --name value} or {@code --name=value}, and at most one config file. Anything else, from
 * {@code --help} to a misspelt or repeated flag, a missing value, a value that starts with {@code
 * -} or an {@code @file}, is left to picocli ({@link #parse} returns null), so that help and usage
 * errors read exactly as they always have. The flags' meaning has one owner: each is the setting of
 * the same name in {@code ServerConfig}, and the result goes through {@link ServerCommand#settings}
 * as picocli's does. {@code ServerArgumentsTest} derives the options from picocli's model of {@link
 * ServerCommand} and fails when one is missing here.
 */
record ServerArguments(Path configFile, Map<String, String> flags) {

  /**
   * The settings the flags set, in the order {@link ServerCommand} applies them; {@code fsync} and
   * {@code threads} are also accepted as aliases, as the config file accepts them.
   */
  static final List<String> SETTINGS =
      List.of(
          "port",
          "bind",
          "dir",
          "appendfsync",
          "io-threads",
          "maxmemory",
          "maxmemory-policy",
          "requirepass",
          "http-port",
          "protected-mode",
          "maxclients",
          "proto-max-bulk-len",
          "client-query-buffer-limit",
          "maxmemory-clients",
          "client-output-buffer-limit",
          "transport",
          "tls-port",
          "https-port",
          "tls-cert-file",
          "tls-key-file",
          "tls-key-file-pass",
          "tls-ca-cert-file",
          "tls-auth-clients",
          "tls-protocols",
          "segment-size",
          "databases",
          "encryption-key-file",
          "compression",
          "io",
          "read-cache-size",
          "backup-target",
          "auto-aof-rewrite-percentage",
          "loglevel",
          "logfile",
          "http-maxclients",
          "http-header-timeout",
          "http-idle-timeout",
          "ipc",
          "ipc-agents",
          "ipc-max-ring",
          "ipc-client-timeout");

  private static final Map<String, String> ALIASES =
      Map.of("--fsync", "appendfsync", "--threads", "io-threads");

  /**
   * The arguments after {@code server} ({@code args[from..]}), or null when picocli must read them.
   */
  static ServerArguments parse(String[] args, int from) {
    Map<String, String> given = new HashMap<>();
    Path configFile = null;
    for (int i = from; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        if (configFile != null || !plainValue(arg) || arg.isEmpty()) {
          return null;
        }
        configFile = path(arg);
        if (configFile == null) {
          return null;
        }
        continue;
      }
      int equals = arg.indexOf('=');
      String flag = equals < 0 ? arg : arg.substring(0, equals);
      String value;
      if (equals >= 0) {
        value = arg.substring(equals + 1);
        if (value.isEmpty()) {
          return null;
        }
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        return null;
      }
      String setting = setting(flag);
      if (setting == null || !plainValue(value) || given.putIfAbsent(setting, value) != null) {
        return null;
      }
    }
    Map<String, String> flags = new LinkedHashMap<>();
    for (String setting : SETTINGS) {
      flags.put(setting, given.get(setting));
    }
    return new ServerArguments(configFile, flags);
  }

  /** The setting {@code flag} sets, or null if it is not one of the server's flags. */
  private static String setting(String flag) {
    String alias = ALIASES.get(flag);
    if (alias != null) {
      return alias;
    }
    String name = flag.substring(2);
    return SETTINGS.contains(name) ? name : null;
  }

  /**
   * Whether picocli would take {@code value} as it is: not something that looks like an option,
   * which picocli may refuse as a missing value, and not an {@code @file} it would expand.
   */
  private static boolean plainValue(String value) {
    return !value.startsWith("-") && !value.startsWith("@");
  }

  private static Path path(String arg) {
    try {
      return Path.of(arg);
    } catch (InvalidPathException e) {
      return null;
    }
  }
}
