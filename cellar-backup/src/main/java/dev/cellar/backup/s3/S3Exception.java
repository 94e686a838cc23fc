package dev.cellar.backup.s3;

/** An object store refused a request or could not be reached; the message says which and why. */
public final class S3Exception extends RuntimeException {
  private final int status;

  public S3Exception(String message) {
    this(message, 0, null);
  }

  public S3Exception(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** The HTTP status the store answered, or 0 when it did not answer. */
  public int status() {
    return status;
  }
}
