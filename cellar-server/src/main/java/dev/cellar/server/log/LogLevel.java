package dev.cellar.server.log;

import dev.cellar.server.config.ConfigException;
import java.lang.System.Logger.Level;
import java.util.Locale;

/**
 * Redis's {@code loglevel} values, each naming the least severe {@link Level} it lets through:
 * {@code debug} everything, {@code verbose} {@code DEBUG} and up, {@code notice} (the default)
 * {@code INFO} and up, {@code warning} warnings and errors, {@code nothing} none.
 */
public enum LogLevel {
  DEBUG(Level.ALL),
  VERBOSE(Level.DEBUG),
  NOTICE(Level.INFO),
  WARNING(Level.WARNING),
  NOTHING(Level.OFF);

  private final Level least;

  LogLevel(Level least) {
    this.least = least;
  }

  public boolean allows(Level level) {
    return level != Level.OFF && level.getSeverity() >= least.getSeverity();
  }

  /**
   * The same threshold as a {@code java.util.logging} level, set on JUL's root logger so that
   * libraries logging through it (Netty) do not even build the records this level would drop: at
   * {@code ALL}, every {@code isDebugEnabled()} guard in Netty's event loops would be open.
   */
  public java.util.logging.Level julLevel() {
    return switch (this) {
      case DEBUG -> java.util.logging.Level.ALL;
      case VERBOSE -> java.util.logging.Level.FINE;
      case NOTICE -> java.util.logging.Level.INFO;
      case WARNING -> java.util.logging.Level.WARNING;
      case NOTHING -> java.util.logging.Level.OFF;
    };
  }

  /**
   * Whether exceptions are logged with their stack traces (only when asked for: debug or verbose).
   */
  public boolean stackTraces() {
    return this == DEBUG || this == VERBOSE;
  }

  public String redisName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static LogLevel parse(String v) {
    for (LogLevel level : values()) {
      if (level.redisName().equals(v.trim().toLowerCase(Locale.ROOT))) {
        return level;
      }
    }
    throw new ConfigException(
        "argument '" + v + "' for 'loglevel' must be debug, verbose, notice, warning or nothing");
  }
}
