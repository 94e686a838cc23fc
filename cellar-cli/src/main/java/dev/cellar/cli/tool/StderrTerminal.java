package dev.cellar.cli.tool;

import java.io.Console;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Whether standard error is a terminal, which decides if a progress bar (drawn there) can be seen.
 *
 * <p>Java has no API for it: {@link Console#isTerminal()} looks at stdin and stdout, so it says no
 * exactly when the progress matters most, with the output redirected to a file while the person
 * waiting watches stderr. So {@code isatty(2)} is asked through the FFM linker, a restricted
 * operation used only when the JVM grants this module native access (the {@code cellar} launcher
 * and the jar's manifest do), so that nobody gets a JVM warning for it; otherwise, and if the C
 * library has no {@code isatty}, the console's answer stands in.
 */
final class StderrTerminal {
  private static final int STDERR = 2;

  private StderrTerminal() {}

  static boolean isTerminal() {
    MethodHandle isatty = isatty();
    if (isatty != null) {
      try {
        return (int) isatty.invokeExact(STDERR) == 1;
      } catch (Throwable t) {
        // fall through to the console's view
      }
    }
    Console console = System.console();
    return console != null && console.isTerminal();
  }

  private static MethodHandle isatty() {
    if (!StderrTerminal.class.getModule().isNativeAccessEnabled()) {
      return null;
    }
    try {
      Linker linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find("isatty")
          .map(
              symbol ->
                  linker.downcallHandle(
                      symbol, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)))
          .orElse(null);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
