package dev.cellar;

/** A write found no space on disk. The store stays open; writes succeed again once space returns. */
public final class DiskFullException extends CellarException {
  public DiskFullException(String message) {
    super(Category.DISK_FULL, message);
  }

  public DiskFullException(String message, Throwable cause) {
    super(Category.DISK_FULL, message, cause);
  }
}
