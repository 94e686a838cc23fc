package dev.cellar.client.transport;

import java.io.IOException;
import java.time.Duration;

/** Opens a {@link Transport} to one server; called again for each reconnection. */
public interface Connector {
  /**
   * Opens a new stream. {@code readTimeout} bounds each wait in {@link Transport#read} ({@link
   * Duration#ZERO}: none, for a reader thread that waits for replies as long as the connection
   * lives).
   */
  Transport open(Duration readTimeout) throws IOException;

  /** Where it connects, for messages. */
  String describe();
}
