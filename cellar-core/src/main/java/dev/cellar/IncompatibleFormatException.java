package dev.cellar;

/** The directory holds files of a format version this build does not read. */
public final class IncompatibleFormatException extends CellarException {
  public IncompatibleFormatException(String message) {
    super(Category.INCOMPATIBLE, message);
  }

  public IncompatibleFormatException(String message, Throwable cause) {
    super(Category.INCOMPATIBLE, message, cause);
  }
}
