package dev.cellar.server.net;

import dev.cellar.ipc.RingChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A shared-memory client in a JVM of its own, for {@link ShmEndpointTest}: connects, sends part of
 * a request, says so, and waits to be killed.
 */
public final class ShmClientMain {
  private ShmClientMain() {}

  public static void main(String[] args) throws Exception {
    RingChannel channel = RingChannel.connect(Path.of(args[0]), 64 * 1024, 10_000_000_000L);
    byte[] partial =
        "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nhalf".getBytes(StandardCharsets.US_ASCII);
    channel.write(partial, 0, partial.length);
    System.out.println("sent");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
