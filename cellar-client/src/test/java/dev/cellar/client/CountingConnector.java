package dev.cellar.client;

import dev.cellar.client.transport.Connector;
import dev.cellar.client.transport.Transport;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** A real connector, with the writes and flushes of its transports counted. */
final class CountingConnector implements Connector {
  final AtomicInteger writes = new AtomicInteger();
  final AtomicInteger flushes = new AtomicInteger();
  final AtomicInteger opened = new AtomicInteger();
  private final Connector inner;

  CountingConnector(Connector inner) {
    this.inner = inner;
  }

  @Override
  public Transport open(Duration readTimeout) throws IOException {
    Transport t = inner.open(readTimeout);
    opened.incrementAndGet();
    return new Transport() {
      @Override
      public void write(byte[] bytes, int offset, int length) throws IOException {
        writes.incrementAndGet();
        t.write(bytes, offset, length);
      }

      @Override
      public void flush() throws IOException {
        flushes.incrementAndGet();
        t.flush();
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        return t.read(buffer, offset, length);
      }

      @Override
      public int readNow(byte[] buffer, int offset, int length) throws IOException {
        return t.readNow(buffer, offset, length);
      }

      @Override
      public String describe() {
        return t.describe();
      }

      @Override
      public void close() {
        t.close();
      }
    };
  }

  @Override
  public String describe() {
    return inner.describe();
  }
}
