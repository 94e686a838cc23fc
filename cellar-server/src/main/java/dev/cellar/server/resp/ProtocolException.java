package dev.cellar.server.resp;

/**
 * The client broke the protocol (bad multibulk or bulk length, a missing {@code $}, an oversized
 * request): the server answers {@code -ERR Protocol error: <message>} and closes the connection,
 * because after such an error it cannot tell where the next request starts.
 */
public final class ProtocolException extends Exception {
  public ProtocolException(String message) {
    super(message, null, false, false);
  }
}
