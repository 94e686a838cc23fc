package dev.cellar.platform;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Says, once per JVM, what the engine does without when the JVM denies it native access.
 *
 * <p>Without {@code --enable-native-access} the engine links no C function ({@link Libc}) and
 * quietly falls back: log space reserved by writing zeros instead of {@code posix_fallocate}, no
 * {@code madvise} (no huge pages under the index, no prefaulting of the log tail, no early release
 * of compacted segments' pages), compaction at normal CPU priority. Each fallback is correct, so
 * none of them may fail an open; but an embedding application that forgot the flag would otherwise
 * never learn why its store writes and looks up more slowly than the benchmarks say. One line,
 * naming the flag for this JVM's module layout, at the first open. Off Linux there is nothing the
 * flag would restore, so nothing is said.
 */
public final class NativeAccess {
  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private NativeAccess() {}

  /**
   * Logs {@link #deniedMessage()} as a warning, the first time only, when access is denied on
   * Linux.
   */
  public static void warnOnceIfDenied(System.Logger log) {
    String message = deniedMessage();
    if (message != null && WARNED.compareAndSet(false, true)) {
      log.log(System.Logger.Level.WARNING, message);
    }
  }

  /** What is lost and the flag that restores it, or null when nothing is lost. */
  static String deniedMessage() {
    Module module = NativeAccess.class.getModule();
    if (module.isNativeAccessEnabled()
        || !System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return null;
    }
    String grant = module.isNamed() ? module.getName() : "ALL-UNNAMED";
    return "native access is not enabled for the Cellar engine, so it runs without posix_fallocate"
        + " (log space is reserved by writing zeros), madvise (no huge pages for the index, no prefaulting"
        + " of the log) and low-priority compaction; start the JVM with --enable-native-access="
        + grant
        + " to restore them";
  }
}
