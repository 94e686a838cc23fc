package dev.cellar;

import java.io.IOException;

/**
 * A write found no space on disk. The store stays open; writes succeed again once space returns.
 */
public final class DiskFullException extends CellarException {
  public DiskFullException(String message) {
    super(Category.DISK_FULL, message);
  }

  public DiskFullException(String message, Throwable cause) {
    super(Category.DISK_FULL, message, cause);
  }

  /**
   * Whether {@code e}, or an exception it wraps, reports a full disk or quota. The JDK gives no
   * errno, only the C library's text for it ({@code ENOSPC}: "No space left on device", {@code
   * EDQUOT}: "Disk quota exceeded"), so the text is what there is to test.
   */
  public static boolean isNoSpace(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (t instanceof IOException
          && (message.contains("No space left")
              || message.contains("ENOSPC")
              || message.contains("Disk quota"))) {
        return true;
      }
    }
    return false;
  }
}
