package dev.cellar.client;

/**
 * Something went wrong between this client and a Cellar server. The two kinds a caller tells apart
 * are subclasses: {@link CellarServerException} (the server refused the command; the connection is
 * fine) and {@link CellarConnectionException} (no connection, or it was lost).
 */
public class CellarClientException extends RuntimeException {
  public CellarClientException(String message) {
    super(message);
  }

  public CellarClientException(String message, Throwable cause) {
    super(message, cause);
  }
}
