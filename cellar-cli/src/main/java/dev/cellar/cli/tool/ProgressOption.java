package dev.cellar.cli.tool;

import java.io.Console;
import java.io.Flushable;
import java.io.PrintWriter;
import picocli.CommandLine.Option;

/**
 * The {@code --progress} option shared by the tools that scan a whole store. Without it the bar is
 * shown only on an interactive terminal, so logs and pipes never receive carriage returns.
 */
final class ProgressOption {
  @Option(
      names = "--progress",
      description = "Show a progress bar on stderr even when it is not a terminal.")
  boolean forced;

  /** A bar for {@code totalBytes} on {@code err}; {@code out} is flushed before each draw. */
  ProgressBar bar(PrintWriter err, long totalBytes, Flushable out) {
    return ProgressBar.of(forced || interactive(), err, totalBytes, out);
  }

  /**
   * Since JDK 22 {@link System#console()} is non-null even when redirected, so {@link
   * Console#isTerminal()} decides. It looks at stdin and stdout, not stderr: with stdout redirected
   * to a file the bar stays off unless {@code --progress} asks for it.
   */
  private static boolean interactive() {
    Console console = System.console();
    return console != null && console.isTerminal();
  }
}
