package dev.cellar.compress;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * One of the native libraries aircompressor-v3 bundles (libzstd, liblz4), opened for the engine's
 * own downcalls: aircompressor's API takes no dictionary, and per-record compression of small
 * values is worth little without one (docs/benchmarks.md, "compression design"). The library is
 * copied out of aircompressor's jar into a temporary file, opened, and the file deleted at once:
 * the mapping the dynamic loader made outlives the name, and nothing is left behind by a crash.
 *
 * <p>Linking is a restricted FFM operation: without native access for the engine, opening throws
 * {@link IllegalStateException} with the flag to add, never a JVM warning.
 */
final class BundledLibrary {
  private static final Linker LINKER = Linker.nativeLinker();

  private final String name;
  private final SymbolLookup symbols;

  private BundledLibrary(String name, SymbolLookup symbols) {
    this.name = name;
    this.symbols = symbols;
  }

  /** {@code lib<name>.so} for this platform, from aircompressor-v3's jar. */
  static BundledLibrary open(String name) {
    Module module = BundledLibrary.class.getModule();
    if (!module.isNativeAccessEnabled()) {
      throw new IllegalStateException(
          "compression needs native access for the Cellar engine (lib"
              + name
              + "): start the JVM with --enable-native-access="
              + (module.isNamed() ? module.getName() : "ALL-UNNAMED"));
    }
    String platform = platform();
    String resource = "aircompressor/" + platform + "/lib" + name + ".so";
    ClassLoader loader = BundledLibrary.class.getClassLoader();
    try (InputStream library =
        loader == null
            ? ClassLoader.getSystemResourceAsStream(resource)
            : loader.getResourceAsStream(resource)) {
      if (library == null) {
        throw new IllegalStateException(
            "compression needs lib"
                + name
                + " for "
                + platform
                + ", which is not on the class path (aircompressor-v3's jar bundles it for Linux on"
                + " amd64, aarch64 and ppc64le)");
      }
      Path file = Files.createTempFile("cellar-lib" + name + "-", ".so");
      try {
        Files.copy(library, file, StandardCopyOption.REPLACE_EXISTING);
        return new BundledLibrary(name, SymbolLookup.libraryLookup(file, Arena.global()));
      } finally {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not load lib" + name + ": " + e.getMessage(), e);
    }
  }

  private static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "");
    String cpu =
        switch (arch) {
          case "amd64", "x86_64" -> "amd64";
          case "aarch64" -> "aarch64";
          case "ppc64le" -> "ppc64le";
          default -> arch;
        };
    return (os.contains("linux") ? "linux" : os.replace(' ', '_')) + "-" + cpu;
  }

  /** A downcall to {@code function}; critical ones may be handed heap arrays without a copy. */
  MethodHandle function(String function, FunctionDescriptor descriptor, Linker.Option... options) {
    MemorySegment symbol =
        symbols
            .find(function)
            .orElseThrow(
                () -> new IllegalStateException("lib" + name + " has no symbol " + function));
    return LINKER.downcallHandle(symbol, descriptor, options);
  }
}
