package dev.cellar;

/** The store was used after {@link Cellar#close()}. */
public final class StoreClosedException extends CellarException {
  public StoreClosedException(String message) {
    super(Category.CLOSED, message);
  }

  public StoreClosedException(String message, Throwable cause) {
    super(Category.CLOSED, message, cause);
  }
}
