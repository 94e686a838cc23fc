package dev.cellar.ipc;

/**
 * Something in shared memory breaks the transport's rules (a bad frame, a file of the wrong
 * version), or a peer is gone. The message says what and where; the connection it concerns is
 * unusable, the others are not.
 */
public class IpcException extends RuntimeException {
  public IpcException(String message) {
    super(message);
  }

  public IpcException(String message, Throwable cause) {
    super(message, cause);
  }
}
