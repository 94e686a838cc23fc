package dev.cellar.client.connection;

import dev.cellar.client.CellarClientException;
import dev.cellar.client.CellarConnectionException;
import dev.cellar.client.ClientOptions;
import dev.cellar.client.Reply;
import dev.cellar.client.protocol.Command;
import dev.cellar.client.transport.Connector;
import dev.cellar.client.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Opens connections: the transport from the {@link Connector}, then the handshake ({@code HELLO 3}
 * with {@code AUTH} and {@code SETNAME} when configured). Reconnection is here and only here:
 * opening is retried, with a wait that starts at the options' shortest and doubles up to their
 * longest, until the reconnect timeout has passed; then the call fails with a {@link
 * CellarConnectionException}. Only the opening is retried, never a command. A handshake the server
 * refuses (a wrong password) is not retried either: waiting will not fix it.
 */
public final class ConnectionFactory {
  private final Connector connector;
  private final ClientOptions options;

  public ConnectionFactory(Connector connector, ClientOptions options) {
    this.connector = connector;
    this.options = options;
  }

  public String describe() {
    return connector.describe();
  }

  /** One attempt: for the first connection, where a wrong address should fail at once. */
  Connection connectOnce(Duration readTimeout) {
    try {
      return open(readTimeout);
    } catch (IOException e) {
      throw new CellarConnectionException(
          "cannot connect to "
              + connector.describe()
              + ": "
              + e
              + " (is the server running there? check the host and port)",
          e);
    }
  }

  /** Attempts until one succeeds or the reconnect timeout has passed. */
  Connection connect(Duration readTimeout) {
    long start = System.nanoTime();
    long deadline = start + options.reconnectTimeout().toNanos();
    long waitNanos = options.backoffMin().toNanos();
    int attempts = 0;
    while (true) {
      attempts++;
      try {
        return open(readTimeout);
      } catch (IOException e) {
        if (System.nanoTime() + waitNanos > deadline) {
          throw new CellarConnectionException(
              "cannot connect to "
                  + connector.describe()
                  + " after "
                  + attempts
                  + " attempts in "
                  + (System.nanoTime() - start) / 1_000_000
                  + " ms: "
                  + e
                  + " (is the server running? the next call tries again)",
              e);
        }
      }
      try {
        Thread.sleep(Duration.ofNanos(waitNanos));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CellarConnectionException(
            "interrupted while reconnecting to " + connector.describe(), e);
      }
      waitNanos = Math.min(waitNanos * 2, options.backoffMax().toNanos());
    }
  }

  private Connection open(Duration readTimeout) throws IOException {
    Transport transport = connector.open(readTimeout);
    Connection connection = new Connection(transport);
    try {
      Command<Reply> hello = hello();
      connection.send(hello);
      connection.flush();
      hello.decode(connection.receive());
      return connection;
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  private Command<Reply> hello() {
    List<byte[]> args = new ArrayList<>();
    args.add(ascii("3"));
    if (options.password() != null) {
      args.add(ascii("AUTH"));
      args.add(utf8(options.user() == null ? "default" : options.user()));
      args.add(utf8(options.password()));
    }
    if (options.clientName() != null) {
      args.add(ascii("SETNAME"));
      args.add(utf8(options.clientName()));
    }
    return Command.of(
        "HELLO",
        reply -> {
          if (!(reply instanceof Reply.MapReply)) {
            throw new CellarClientException(
                "the server at "
                    + connector.describe()
                    + " answered HELLO 3 with "
                    + reply
                    + "; this client needs a server that speaks RESP3");
          }
          return reply;
        },
        args.toArray(new byte[0][]));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
