package dev.cellar.client.connection;

import dev.cellar.client.Reply;
import dev.cellar.client.protocol.Command;
import dev.cellar.client.protocol.RespReader;
import dev.cellar.client.protocol.RespWriter;
import dev.cellar.client.transport.Transport;
import java.io.IOException;

/**
 * One RESP3 session over a transport, after its handshake: an encoder for one writing thread and a
 * decoder for one reading thread. Pushes (out-of-band messages) are skipped where a reply is
 * expected, since they answer no command.
 */
public final class Connection implements AutoCloseable {
  /** A connection idle this long is checked for a close by the server before it is used. */
  static final long IDLE_CHECK_NANOS = 10_000_000L;

  private final Transport transport;
  private final RespWriter writer;
  private final RespReader reader;
  private long lastUsedNanos = System.nanoTime();

  Connection(Transport transport) {
    this.transport = transport;
    this.writer = new RespWriter(transport);
    this.reader = new RespReader(transport);
  }

  void send(Command<?> command) throws IOException {
    writer.command(command.args());
  }

  void flush() throws IOException {
    writer.flush();
  }

  /** Waits for a reply to begin; see {@link RespReader#awaitReply()}. */
  void awaitReply() throws IOException {
    reader.awaitReply();
  }

  /**
   * The next reply to {@code command}, as {@link RespReader#read(Command)} gives it: for {@link
   * Command#complete}.
   */
  Object receive(Command<?> command) throws IOException {
    Object outcome;
    do {
      outcome = reader.read(command);
    } while (outcome instanceof Reply.Push);
    lastUsedNanos = System.nanoTime();
    return outcome;
  }

  /** The next reply to a command. */
  Reply receive() throws IOException {
    Reply reply;
    do {
      reply = reader.read();
    } while (reply instanceof Reply.Push);
    lastUsedNanos = System.nanoTime();
    return reply;
  }

  /**
   * Whether the server is known to have closed this connection: checked without waiting, and only
   * when it has been idle for {@link #IDLE_CHECK_NANOS} (a busy connection would have seen it).
   * Only while no command is in flight on it.
   */
  boolean closedWhileIdle() {
    return System.nanoTime() - lastUsedNanos >= IDLE_CHECK_NANOS && reader.peerClosed();
  }

  String describe() {
    return transport.describe();
  }

  @Override
  public void close() {
    transport.close();
  }
}
