package dev.cellar;

/**
 * The root of Cellar's errors. Each carries a {@link Category} so callers (and the server, which
 * maps them to protocol errors) can act without parsing messages.
 */
public class CellarException extends RuntimeException {
  /** What kind of failure this is, and so what a caller can do about it. */
  public enum Category {
    /** The caller's input breaks a limit or a rule; fix the input. */
    INVALID_ARGUMENT,
    /** The store is closed; open it again. */
    CLOSED,
    /** Another process or instance holds the directory. */
    LOCKED,
    /** The files are of a version this build does not read. */
    INCOMPATIBLE,
    /** The files are damaged; see the report; reopen with salvage to skip damage. */
    CORRUPT,
    /** Encrypted files need a key the store was not given, or were given the wrong one. */
    ENCRYPTION_KEY,
    /** The disk is full; writes resume once space returns, reads go on. */
    DISK_FULL,
    /** An I/O error; writes may be refused until restart, reads go on. */
    IO
  }

  private final Category category;

  public CellarException(Category category, String message) {
    super(message);
    this.category = category;
  }

  public CellarException(Category category, String message, Throwable cause) {
    super(message, cause);
    this.category = category;
  }

  public Category category() {
    return category;
  }
}
