package dev.cellar;

/** The store directory is held by another process or another open {@code Cellar}. */
public final class StoreLockedException extends CellarException {
  public StoreLockedException(String message) {
    super(Category.LOCKED, message);
  }

  public StoreLockedException(String message, Throwable cause) {
    super(Category.LOCKED, message, cause);
  }
}
