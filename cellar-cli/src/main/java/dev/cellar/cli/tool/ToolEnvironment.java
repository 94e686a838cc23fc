package dev.cellar.cli.tool;

import java.util.Map;
import java.util.function.Supplier;

/**
 * The environment the command line reads (the AWS variables of the object-store tools, the key file
 * of an encrypted store): the process's, unless a test in this JVM substitutes its own, since a
 * running JVM cannot change its environment.
 */
public final class ToolEnvironment {
  private static volatile Supplier<Map<String, String>> source = System::getenv;

  private ToolEnvironment() {}

  static Map<String, String> get() {
    return source.get();
  }

  /** The variable {@code name}, or null. */
  public static String variable(String name) {
    return source.get().get(name);
  }

  /** For tests: the environment the tools see from now on ({@code null} for the process's). */
  public static void set(Map<String, String> environment) {
    source = environment == null ? System::getenv : () -> environment;
  }
}
