package dev.cellar;

/** A key or value breaks a configured size limit, or a key is empty. */
public final class LimitExceededException extends CellarException {
  public LimitExceededException(String message) {
    super(Category.INVALID_ARGUMENT, message);
  }

  public LimitExceededException(String message, Throwable cause) {
    super(Category.INVALID_ARGUMENT, message, cause);
  }
}
