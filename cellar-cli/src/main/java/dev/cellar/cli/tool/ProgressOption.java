package dev.cellar.cli.tool;

import java.io.Flushable;
import java.io.PrintWriter;
import picocli.CommandLine.Option;

/**
 * The {@code --progress} option shared by the tools that scan a whole store. Without it the bar is
 * shown only when stderr, where it is drawn, is a terminal (whatever stdout is: {@code cellar tool
 * dump DIR > records.txt} shows progress), so logs and pipes never receive carriage returns.
 */
final class ProgressOption {
  @Option(
      names = "--progress",
      description = "Show a progress bar on stderr even when it is not a terminal.")
  boolean forced;

  /** A bar for {@code totalBytes} on {@code err}; {@code out} is flushed before each draw. */
  ProgressBar bar(PrintWriter err, long totalBytes, Flushable out) {
    return ProgressBar.of(forced || StderrTerminal.isTerminal(), err, totalBytes, out);
  }
}
