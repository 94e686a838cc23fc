package dev.cellar.client;

/**
 * The server answered a command with an error reply ({@code -ERR ...}, {@code -WRONGPASS ...}). The
 * connection stays usable. {@link #getMessage()} is the server's text with the command's name in
 * front; {@link #serverMessage()} is the server's text alone.
 */
public final class CellarServerException extends CellarClientException {
  private final String serverMessage;

  public CellarServerException(String command, String serverMessage) {
    super(command + ": " + serverMessage);
    this.serverMessage = serverMessage;
  }

  /** The error exactly as the server sent it, code first: {@code ERR value is not an integer}. */
  public String serverMessage() {
    return serverMessage;
  }

  /** The error's code, its first word: {@code ERR}, {@code WRONGPASS}, {@code NOAUTH}. */
  public String code() {
    int space = serverMessage.indexOf(' ');
    return space < 0 ? serverMessage : serverMessage.substring(0, space);
  }
}
