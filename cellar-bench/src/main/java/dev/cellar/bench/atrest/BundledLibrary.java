package dev.cellar.bench.atrest;

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

/**
 * One of the native libraries aircompressor-v3 bundles (libzstd, liblz4), opened for downcalls of
 * our own: the functions its API does not reach, such as compression with a dictionary. The library
 * is copied out of aircompressor's jar (the resource it loads itself) into a temporary file and
 * opened with {@link SymbolLookup#libraryLookup} for the JVM's life.
 */
final class BundledLibrary {
  private static final Linker LINKER = Linker.nativeLinker();

  private final String name;
  private final SymbolLookup symbols;

  private BundledLibrary(String name, SymbolLookup symbols) {
    this.name = name;
    this.symbols = symbols;
  }

  /** {@code lib<name>.so} from aircompressor-v3's jar; Linux on x86-64 only. */
  static BundledLibrary open(String name) {
    String platform = System.getProperty("os.name") + "/" + System.getProperty("os.arch");
    String resource = "/aircompressor/linux-amd64/lib" + name + ".so";
    try (InputStream library = BundledLibrary.class.getResourceAsStream(resource)) {
      if (library == null || !platform.equals("Linux/amd64")) {
        throw new IllegalStateException(
            "no "
                + resource
                + " for "
                + platform
                + " in aircompressor-v3's jar: run on Linux/amd64");
      }
      Path file = Files.createTempFile("cellar-bench-lib" + name + "-", ".so");
      file.toFile().deleteOnExit();
      Files.copy(library, file, StandardCopyOption.REPLACE_EXISTING);
      return new BundledLibrary(name, SymbolLookup.libraryLookup(file, Arena.global()));
    } catch (IOException e) {
      throw new IllegalStateException("could not copy " + resource + " out: " + e, e);
    }
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
