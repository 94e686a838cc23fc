package dev.cellar.server.log;

import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * At most one line per interval for a kind of event that can repeat on every request (a damaged
 * record read again and again): the first is logged at once, the ones within the interval after it
 * are counted, and the next line logged says how many were left out.
 *
 * <p>Concurrency: any thread may report; the rare path is synchronized.
 */
public final class RateLimitedLog {
  private final System.Logger logger;
  private final Level level;
  private final long intervalNanos;
  private final LongSupplier clock;
  private long lastNanos;
  private boolean logged;
  private long suppressed;

  public RateLimitedLog(System.Logger logger, Level level) {
    this(logger, level, TimeUnit.SECONDS.toNanos(1), System::nanoTime);
  }

  RateLimitedLog(System.Logger logger, Level level, long intervalNanos, LongSupplier clock) {
    this.logger = logger;
    this.level = level;
    this.intervalNanos = intervalNanos;
    this.clock = clock;
  }

  public void log(String message) {
    long suppressedBefore;
    synchronized (this) {
      long now = clock.getAsLong();
      if (logged && now - lastNanos < intervalNanos) {
        suppressed++;
        return;
      }
      logged = true;
      lastNanos = now;
      suppressedBefore = suppressed;
      suppressed = 0;
    }
    logger.log(
        level,
        suppressedBefore == 0
            ? message
            : message + " (and " + suppressedBefore + " more like it not logged)");
  }
}
