package dev.cellar.server.log;

import java.text.MessageFormat;
import java.util.ResourceBundle;
import java.util.function.Supplier;

/**
 * The {@link System.LoggerFinder} of a server process: every {@link System.Logger} writes through
 * {@link ServerLog}. cellar-cli registers it in {@code META-INF/services}; a library user of
 * cellar-server who does not keeps the JDK's default.
 */
public final class CellarLoggerFinder extends System.LoggerFinder {
  @Override
  public System.Logger getLogger(String name, Module module) {
    return new LineLogger(name);
  }

  private record LineLogger(String name) implements System.Logger {
    @Override
    public String getName() {
      return name;
    }

    @Override
    public boolean isLoggable(Level level) {
      return ServerLog.allows(level);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
      ServerLog.log(name, level, () -> msg, thrown);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
      Supplier<String> message =
          () ->
              params == null || params.length == 0 ? format : MessageFormat.format(format, params);
      ServerLog.log(name, level, message, null);
    }
  }
}
