package dev.cellar.client;

/**
 * There is no connection to the server, or it broke. A command that fails with this may or may not
 * have run if it had been sent (the message says which); the client sends no command twice. The
 * next call connects again (docs/client.md, "Reconnection").
 */
public final class CellarConnectionException extends CellarClientException {
  public CellarConnectionException(String message) {
    super(message);
  }

  public CellarConnectionException(String message, Throwable cause) {
    super(message, cause);
  }
}
