package dev.cellar.server.log;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The one format of every log line: {@code 2026-11-25T19:55:01.123Z INFO [server] message}, that is
 * an ISO-8601 UTC timestamp to the millisecond, the level padded to one width, the component in
 * brackets, and the message on one line. An exception adds its one-line summary (each cause's
 * message, joined by {@code "; caused by "}), or its stack trace on the following lines when stack
 * traces are asked for.
 *
 * <p>The component is the logger's name without the {@code dev.cellar.} prefix ({@code server},
 * {@code server.tls}); the engine's {@code dev.cellar} logger is {@code store}, and Netty's are
 * {@code netty}.
 */
public final class LogLine {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private LogLine() {}

  public static String format(
      Instant time,
      Level level,
      String logger,
      String message,
      Throwable thrown,
      boolean stackTrace) {
    StringBuilder line = new StringBuilder(128);
    TIME.formatTo(time, line);
    line.append(' ').append(level.getName());
    line.repeat(' ', Math.max(1, 8 - level.getName().length()));
    line.append('[').append(component(logger)).append("] ");
    line.append(message == null ? "" : message.replace('\n', ' '));
    if (thrown != null) {
      if (stackTrace) {
        StringWriter trace = new StringWriter();
        thrown.printStackTrace(new PrintWriter(trace));
        line.append('\n').append(trace.toString().stripTrailing());
      } else {
        line.append(": ").append(summary(thrown));
      }
    }
    return line.toString();
  }

  /** An exception and its causes on one line. */
  public static String summary(Throwable thrown) {
    StringBuilder s = new StringBuilder(String.valueOf(thrown));
    for (Throwable cause = thrown.getCause();
        cause != null && cause != cause.getCause();
        cause = cause.getCause()) {
      s.append("; caused by ").append(cause);
    }
    return s.toString().replace('\n', ' ');
  }

  static String component(String logger) {
    if (logger == null || logger.isEmpty()) {
      return "jvm";
    }
    if (logger.equals("dev.cellar")) {
      return "store";
    }
    if (logger.startsWith("dev.cellar.")) {
      return logger.substring("dev.cellar.".length());
    }
    return logger.startsWith("io.netty.") ? "netty" : logger;
  }
}
