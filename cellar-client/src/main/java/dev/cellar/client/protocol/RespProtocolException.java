package dev.cellar.client.protocol;

import java.io.IOException;

/**
 * The bytes from the server are not RESP3 as this client reads it. The stream cannot be trusted
 * past this point, so it is treated as a lost connection: closed, and opened afresh by the next
 * call.
 */
public final class RespProtocolException extends IOException {
  public RespProtocolException(String message) {
    super(message);
  }
}
