package dev.cellar.server.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis-style config file: one {@code name value} per line, {@code #} comments, values optionally
 * in double quotes. Cellar's settings are applied in order (a later line wins, as in Redis); Redis
 * directives Cellar has no use for are ignored with a warning each, and those it cannot honour are
 * refused with the line ({@link RedisDirectives} says which are which).
 *
 * <p>The warnings are returned rather than logged, because the file itself may set {@code loglevel}
 * and {@code logfile}: the caller logs them once logging is set up.
 */
public final class ConfigFile {
  private ConfigFile() {}

  /** Applies {@code file} to {@code config}; returns one warning per ignored directive. */
  public static List<String> read(Path file, ServerConfig config) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
    }
    List<String> warnings = new ArrayList<>();
    int number = 0;
    for (String raw : lines) {
      number++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = file + ":" + number + ": ";
      try {
        apply(ServerConfig.ConfigLine.split(line), line, where, config, warnings);
      } catch (ConfigException e) {
        throw new ConfigException(where + e.getMessage());
      }
    }
    return warnings;
  }

  private static void apply(
      List<String> words, String line, String where, ServerConfig config, List<String> warnings) {
    String name = words.getFirst();
    String value = String.join(" ", words.subList(1, words.size()));
    switch (RedisDirectives.judge(name, value)) {
      case IGNORE ->
          warnings.add(
              where
                  + "ignoring '"
                  + RedisDirectives.shown(name, value)
                  + "': "
                  + RedisDirectives.whyIgnored(name));
      case REFUSE ->
          throw new ConfigException(
              "'"
                  + RedisDirectives.shown(name, value)
                  + "' is not supported: "
                  + RedisDirectives.whyRefused(name));
      case UNKNOWN -> {
        if (words.size() < 2) {
          throw new ConfigException("expected 'name value', got '" + line + "'");
        }
        config.set(name, value);
      }
    }
  }
}
