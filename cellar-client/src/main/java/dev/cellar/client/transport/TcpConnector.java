package dev.cellar.client.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * TCP to {@code host:port}: a blocking {@link SocketChannel} with {@code TCP_NODELAY}.
 *
 * <p>Plain blocking sockets suit a client whose calls wait for their replies: a call is one write
 * and one read, with no selector or event loop between the caller and the kernel, and the
 * asynchronous client's two threads block as cheaply. Netty would add a dependency and a thread
 * hand-off per call for nothing a single connection needs. The socket's streams are not wrapped in
 * buffered streams: the encoder above already hands each batch over in one array (a buffer here
 * would only copy it), and the decoder reads into a buffer of its own.
 *
 * <p>The socket comes from a channel so that {@link Transport#readNow} can look without waiting
 * (the channel switches to non-blocking mode for that one read); ordinary reads go through the
 * socket's input stream, which honours the read timeout ({@code SO_TIMEOUT}, which a blocking
 * channel's own reads ignore).
 */
public final class TcpConnector implements Connector {
  private final String host;
  private final int port;
  private final Duration connectTimeout;

  public TcpConnector(String host, int port, Duration connectTimeout) {
    this.host = host;
    this.port = port;
    this.connectTimeout = connectTimeout;
  }

  @Override
  public Transport open(Duration readTimeout) throws IOException {
    SocketChannel channel = SocketChannel.open();
    try {
      Socket socket = channel.socket();
      socket.setTcpNoDelay(true);
      socket.setKeepAlive(true);
      socket.connect(
          new InetSocketAddress(host, port),
          (int) Math.min(Integer.MAX_VALUE, Math.max(1, connectTimeout.toMillis())));
      // 0 is no timeout; a positive timeout under a millisecond is one millisecond, not none.
      long millis = readTimeout.isZero() ? 0 : Math.max(1, readTimeout.toMillis());
      socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, millis));
      return new TcpTransport(channel, describe());
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  @Override
  public String describe() {
    return "tcp://" + host + ":" + port;
  }

  /** One connection. Reads on one thread and writes on another may overlap. */
  private static final class TcpTransport implements Transport {
    private final SocketChannel channel;
    private final InputStream in;
    private final OutputStream out;
    private final String description;

    TcpTransport(SocketChannel channel, String description) throws IOException {
      this.channel = channel;
      this.in = channel.socket().getInputStream();
      this.out = channel.socket().getOutputStream();
      this.description = description;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      out.write(bytes, offset, length);
    }

    @Override
    public void flush() {
      // Every write has already gone to the kernel; TCP_NODELAY sends it without delay.
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      return in.read(buffer, offset, length);
    }

    @Override
    public int readNow(byte[] buffer, int offset, int length) throws IOException {
      channel.configureBlocking(false);
      try {
        return channel.read(ByteBuffer.wrap(buffer, offset, length));
      } finally {
        channel.configureBlocking(true);
      }
    }

    @Override
    public String describe() {
      return description;
    }

    @Override
    public void close() {
      try {
        channel.close();
      } catch (IOException e) {
        // Nothing to do: the connection is being dropped either way.
      }
    }
  }
}
