package dev.cellar.server.log;

import dev.cellar.server.config.ConfigException;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Where the server's log lines go, and which are written: set up once by {@link #install} when a
 * server process starts ({@code cellar server}), from {@code loglevel} and {@code logfile}.
 *
 * <p>Two roads lead here. Cellar's own code logs through {@link System.Logger}; in the server
 * process {@link CellarLoggerFinder} (registered as a service by cellar-cli, so an application that
 * embeds the server keeps its own logging) sends those records straight here. Netty and anything
 * else on {@code java.util.logging} reach the root handler {@link #install} puts in place. Both are
 * formatted by {@link LogLine}, so every line looks the same.
 *
 * <p>The first road does not go through {@code java.util.logging} on purpose: its LogManager
 * removes every handler in a shutdown hook of its own, running alongside the server's, so the lines
 * that say what SIGTERM did would be lost.
 *
 * <p>Concurrency: any thread may log; writes are serialized on the class and each line is flushed,
 * as Redis does, so a line is on disk (in the page cache) before the next one starts. {@code
 * loglevel} is read from the installed configuration on every call, so {@code CONFIG SET loglevel}
 * applies at once.
 */
public final class ServerLog {
  private static volatile ServerConfig config; // null until install: NOTICE to the console
  private static volatile PrintStream
      file; // null: standard output, and standard error for warnings

  private ServerLog() {}

  /**
   * Opens {@code logfile} (appending; created if missing) and sends {@code java.util.logging}'s
   * records here too. A file that cannot be opened fails the start with its path and the reason.
   */
  public static synchronized void install(ServerConfig settings) {
    Path path = settings.logFile();
    if (path != null) {
      try {
        OutputStream out =
            Files.newOutputStream(
                path,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND,
                StandardOpenOption.WRITE);
        file = new PrintStream(out, false, StandardCharsets.UTF_8);
      } catch (IOException | SecurityException e) {
        throw new ConfigException(
            "cannot open logfile "
                + path.toAbsolutePath()
                + ": "
                + LogLine.summary(e)
                + "; fix the path or its permissions, or set logfile \"\" to log to standard output");
      }
    }
    config = settings;
    Logger root = Logger.getLogger("");
    for (Handler h : root.getHandlers()) {
      root.removeHandler(h);
    }
    root.addHandler(new JulHandler());
    root.setLevel(level().julLevel());
  }

  /** {@code loglevel} changed (CONFIG SET): JUL's loggers follow, once this log is installed. */
  public static synchronized void levelChanged() {
    if (config != null) {
      Logger.getLogger("").setLevel(level().julLevel());
    }
  }

  static LogLevel level() {
    ServerConfig c = config;
    return c == null ? LogLevel.NOTICE : c.logLevel();
  }

  public static boolean allows(Level level) {
    return level().allows(level);
  }

  public static void log(String logger, Level level, Supplier<String> message, Throwable thrown) {
    LogLevel threshold = level();
    if (!threshold.allows(level)) {
      return;
    }
    write(
        level,
        LogLine.format(
            Instant.now(), level, logger, message.get(), thrown, threshold.stackTraces()));
  }

  private static synchronized void write(Level level, String line) {
    PrintStream out =
        file != null
            ? file
            : level.getSeverity() >= Level.WARNING.getSeverity() ? System.err : System.out;
    out.println(line);
    out.flush();
  }

  /** {@code java.util.logging}'s records (Netty's) in the same format, under the same loglevel. */
  private static final class JulHandler extends Handler {
    @Override
    public void publish(LogRecord record) {
      Level level = levelOf(record.getLevel());
      String message = record.getMessage();
      if (message != null && record.getParameters() != null && record.getParameters().length > 0) {
        message = java.text.MessageFormat.format(message, record.getParameters());
      }
      String text = message;
      log(record.getLoggerName(), level, () -> text, record.getThrown());
    }

    private static Level levelOf(java.util.logging.Level level) {
      int v = level.intValue();
      return v >= 1000
          ? Level.ERROR
          : v >= 900 ? Level.WARNING : v >= 800 ? Level.INFO : v >= 500 ? Level.DEBUG : Level.TRACE;
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }
}
