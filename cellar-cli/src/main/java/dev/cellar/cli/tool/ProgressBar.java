package dev.cellar.cli.tool;

import dev.cellar.cli.text.ByteSize;
import java.io.Flushable;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.TimeUnit;

/**
 * A one-line progress bar on stderr, {@code [##### ] 52% 1.2 GiB/2.3 GiB}, redrawn in place with a
 * carriage return.
 *
 * <p>It is called for every record scanned, so {@link #update} is cheap: it looks at the clock only
 * every {@value #CALLS_PER_CLOCK_READ} calls and redraws at most ten times a second. The first draw
 * waits one interval, so short runs never show a bar at all.
 *
 * <p>When stdout and stderr share a terminal, the bar must never share a line with real output. So
 * the caller's output is flushed before each draw, and callers {@link #clear()} the bar before
 * writing a line of their own (a field check when it is not drawn); the next update draws it again,
 * below.
 *
 * <p>Single-threaded: owned by the command that scans.
 */
public final class ProgressBar {
  private static final ProgressBar DISABLED = new ProgressBar(null, 0, null);
  private static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final int CALLS_PER_CLOCK_READ = 64;
  private static final int WIDTH = 30;

  private final PrintWriter err;
  private final long total;
  private final Flushable output;
  private long lastDraw = System.nanoTime();
  private int calls;
  private int drawnLength;

  private ProgressBar(PrintWriter err, long total, Flushable output) {
    this.err = err;
    this.total = Math.max(total, 1);
    this.output = output;
  }

  /**
   * A bar for {@code total} bytes on {@code err}, or one that draws nothing.
   *
   * @param output the command's own output, flushed before each draw
   */
  public static ProgressBar of(boolean enabled, PrintWriter err, long total, Flushable output) {
    return enabled ? new ProgressBar(err, total, output) : DISABLED;
  }

  /** Reports that {@code done} of the total bytes are processed. */
  public void update(long done) {
    if (err == null || (++calls % CALLS_PER_CLOCK_READ) != 0) {
      return;
    }
    long now = System.nanoTime();
    if (now - lastDraw < INTERVAL_NANOS) {
      return;
    }
    lastDraw = now;
    try {
      output.flush();
    } catch (IOException e) {
      return; // the output's own writes report it
    }
    draw(done);
  }

  /** Removes the bar from the screen, if it is drawn. */
  public void clear() {
    if (err == null || drawnLength == 0) {
      return;
    }
    err.print("\r" + " ".repeat(drawnLength) + "\r");
    err.flush();
    drawnLength = 0;
  }

  private void draw(long done) {
    String line = render(Math.min(done, total), total);
    err.print("\r" + line + " ".repeat(Math.max(0, drawnLength - line.length())));
    err.flush();
    drawnLength = line.length();
  }

  /** The bar's text for {@code done} of {@code total} bytes. */
  static String render(long done, long total) {
    int percent = (int) (done * 100.0 / total);
    int filled = (int) ((long) WIDTH * done / total);
    return "["
        + "#".repeat(filled)
        + " ".repeat(WIDTH - filled)
        + "] "
        + percent
        + "% "
        + ByteSize.format(done)
        + "/"
        + ByteSize.format(total);
  }
}
