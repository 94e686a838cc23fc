package dev.cellar;

/** An I/O operation failed for a reason other than a full disk. */
public final class StoreIOException extends CellarException {
  public StoreIOException(String message) {
    super(Category.IO, message);
  }

  public StoreIOException(String message, Throwable cause) {
    super(Category.IO, message, cause);
  }
}
