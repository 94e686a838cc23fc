package dev.cellar.platform;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * Links C library functions for the few system calls Java has no API for ({@code posix_fallocate},
 * {@code madvise}, {@code mmap}). Linking is a restricted FFM operation: it is attempted only on
 * Linux and only when the JVM grants this module native access, so an embedding application that
 * does not grant it gets no warning, just the fallbacks of the callers.
 */
final class Libc {
  private static final boolean USABLE =
      Libc.class.getModule().isNativeAccessEnabled()
          && System.getProperty("os.name", "").toLowerCase().contains("linux");

  private Libc() {}

  /**
   * The layout of the call state FFM captures for a function linked with {@code
   * captureCallState("errno")}, and errno in it.
   */
  static final class CallState {
    static final java.lang.foreign.StructLayout LAYOUT = Linker.Option.captureStateLayout();
    private static final java.lang.invoke.VarHandle ERRNO =
        LAYOUT.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));

    private CallState() {}

    /** The errno a call left in {@code state}. */
    static int errno(java.lang.foreign.MemorySegment state) {
      return (int) ERRNO.get(state, 0L);
    }
  }

  /** A handle to {@code name}, or null when native access is not granted or linking fails. */
  static MethodHandle function(
      String name, FunctionDescriptor descriptor, Linker.Option... options) {
    if (!USABLE) {
      return null;
    }
    try {
      Linker linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find(name)
          .map(symbol -> linker.downcallHandle(symbol, descriptor, options))
          .orElse(null);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
