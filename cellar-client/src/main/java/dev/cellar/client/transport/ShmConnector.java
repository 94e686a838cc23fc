package dev.cellar.client.transport;

import dev.cellar.ipc.IpcException;
import dev.cellar.ipc.RingChannel;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Shared memory to a server on this host, through its discovery file ({@code cellar-ipc}, the
 * format in docs/format/ipc.md): each {@link #open} offers a ring file of its own and waits for the
 * server to attach it. The RESP bytes are the same as over TCP, so everything above the {@link
 * Transport} is unchanged.
 *
 * <p>When the server is not there (stopped, restarted without shared memory), {@link #open} tries
 * the {@code fallback} connector if it has one ({@link dev.cellar.client.ClientTransport#AUTO}), so
 * that a client reconnecting after a restart gets the server one way or the other.
 */
public final class ShmConnector implements Connector {
  private final Path discovery;
  private final int ringBytes;
  private final Duration connectTimeout;
  private final Connector fallback;

  /**
   * @param discovery the server's {@code cellar.ipc}
   * @param ringBytes each ring's size
   * @param fallback TCP to the same server, or null to fail instead
   */
  public ShmConnector(Path discovery, int ringBytes, Duration connectTimeout, Connector fallback) {
    this.discovery = discovery;
    this.ringBytes = ringBytes;
    this.connectTimeout = connectTimeout;
    this.fallback = fallback;
  }

  @Override
  public Transport open(Duration readTimeout) throws IOException {
    RingChannel channel;
    try {
      channel = RingChannel.connect(discovery, ringBytes, connectTimeout.toNanos());
    } catch (IpcException | IOException e) {
      if (fallback != null) {
        return fallback.open(readTimeout);
      }
      throw new IOException("shared memory via " + discovery + ": " + e.getMessage(), e);
    }
    return new ShmTransport(channel, readTimeout, "shm:" + discovery);
  }

  @Override
  public String describe() {
    return "shm:" + discovery + (fallback == null ? "" : " (else " + fallback.describe() + ")");
  }

  /**
   * One connection over a {@link RingChannel}. A write publishes its bytes as one frame (or parts,
   * past half the ring) and rings the server's agent only if it sleeps, so flushing adds nothing.
   * Responses are read in place ({@link Transport.InPlace}), straight from the response ring.
   */
  private static final class ShmTransport implements Transport, Transport.InPlace {
    private final RingChannel channel;
    private final long readTimeoutNanos;
    private final String description;

    ShmTransport(RingChannel channel, Duration readTimeout, String description) {
      this.channel = channel;
      this.readTimeoutNanos = readTimeout.isZero() ? Long.MAX_VALUE : readTimeout.toNanos();
      this.description = description;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      try {
        channel.write(bytes, offset, length);
      } catch (IpcException | IllegalStateException e) {
        throw new IOException(e.getMessage(), e);
      }
    }

    @Override
    public void flush() {
      // Each write is already published.
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n;
      try {
        n = channel.read(buffer, offset, length, readTimeoutNanos);
      } catch (IpcException | IllegalStateException e) {
        throw new IOException(e.getMessage(), e);
      }
      if (n == 0) {
        throw new SocketTimeoutException(
            "no reply within " + readTimeoutNanos / 1_000_000 + " ms over " + description);
      }
      return n;
    }

    @Override
    public int readNow(byte[] buffer, int offset, int length) {
      try {
        return channel.readNow(buffer, offset, length);
      } catch (IpcException | IllegalStateException e) {
        return -1; // the server closed this connection, stopped or died: a new one is needed
      }
    }

    @Override
    public InPlace inPlace() {
      return this;
    }

    @Override
    public int await() throws IOException {
      int n;
      try {
        n = channel.awaitInPlace(readTimeoutNanos);
      } catch (IpcException | IllegalStateException e) {
        throw new IOException(e.getMessage(), e);
      }
      if (n == 0) {
        throw new SocketTimeoutException(
            "no reply within " + readTimeoutNanos / 1_000_000 + " ms over " + description);
      }
      return n;
    }

    @Override
    public int poll() throws IOException {
      try {
        return channel.pollInPlace();
      } catch (IpcException | IllegalStateException e) {
        throw new IOException(e.getMessage(), e);
      }
    }

    @Override
    public MemorySegment segment() {
      return channel.inPlaceSegment();
    }

    @Override
    public long offset() {
      return channel.inPlaceOffset();
    }

    @Override
    public void consume(int n) {
      channel.consumeInPlace(n);
    }

    @Override
    public String describe() {
      return description;
    }

    @Override
    public void close() {
      channel.close();
    }
  }
}
