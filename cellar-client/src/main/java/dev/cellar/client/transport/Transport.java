package dev.cellar.client.transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * A RESP byte stream to one server: the seam between the client and how its bytes travel.
 *
 * <p><b>Design.</b> Everything that speaks RESP3 (the encoder and decoder, the handshake,
 * pipelines, the asynchronous writer and reader, reconnection) sits above this interface and knows
 * nothing of sockets: it writes request bytes, flushes, and reads reply bytes. TCP ({@link
 * TcpConnector}) is one implementation; same-host shared memory (frame rings in mapped files,
 * cellar-ipc, {@link ShmConnector}) is another, behind the same calls and a {@link Connector} of
 * its own, which also lends what arrives in place ({@link #inPlace()}). The interface is blocking
 * because a synchronous client is naturally so, and a ring's futex wait maps onto it as well as a
 * socket's read does; the asynchronous client gives the blocking read a thread of its own.
 *
 * <p><b>Contract.</b> One thread writes and one thread reads at a time (they may be two different
 * threads: the asynchronous client writes from one and reads from another). {@link #write} may send
 * at once or keep the bytes; {@link #flush} sends everything written so far (a socket writes at
 * once and flushes nothing; a ring would publish its frame and ring the peer's doorbell). The
 * caller batches: a pipeline of a thousand commands is one call of each. Any failure is an {@link
 * IOException}, after which the transport is unusable and is closed.
 */
public interface Transport extends AutoCloseable {
  /** Sends, or keeps to send, {@code length} bytes of {@code bytes} from {@code offset}. */
  void write(byte[] bytes, int offset, int length) throws IOException;

  /** Sends everything written so far. */
  void flush() throws IOException;

  /**
   * Reads at least one and up to {@code length} bytes into {@code buffer} at {@code offset},
   * waiting for them (up to the read timeout the transport was opened with; then {@link
   * java.net.SocketTimeoutException}); returns -1 at the end of the stream.
   */
  int read(byte[] buffer, int offset, int length) throws IOException;

  /**
   * Reads what has already arrived, up to {@code length} bytes, without waiting: 0 if nothing has,
   * -1 if the peer has closed the stream. Only while no other thread reads. The client calls it on
   * a connection that was idle, to find one the server closed (a restart) before sending anything
   * on it.
   */
  int readNow(byte[] buffer, int offset, int length) throws IOException;

  /**
   * The received bytes where they lie, for a transport whose peer writes them into memory this
   * process can read (shared memory); null for one that must copy them out (a socket). The reader
   * then parses replies in place and hands values out as views of that memory.
   */
  default InPlace inPlace() {
    return null;
  }

  /**
   * Received bytes lent in place. Every {@link #await} or {@link #poll} that returns more than 0
   * lends bytes, and must be followed by one {@link #consume} before the next: until then the bytes
   * stay where they are. Used by the one reading thread.
   */
  interface InPlace {
    /**
     * Waits (up to the read timeout; then {@link java.net.SocketTimeoutException}) for bytes and
     * lends them: the count returned, at {@link #offset()} of {@link #segment()}.
     */
    int await() throws IOException;

    /** As {@link #await} without waiting: 0 (nothing lent) if none have arrived. */
    int poll() throws IOException;

    /** The memory that holds the lent bytes. */
    MemorySegment segment();

    /** Where the lent bytes begin in {@link #segment()}. */
    long offset();

    /** Ends the loan, the first {@code n} lent bytes read; the rest are lent again next time. */
    void consume(int n);
  }

  /** Where this stream goes, for messages: {@code tcp://127.0.0.1:6379}. */
  String describe();

  /** Releases the stream; idempotent; a blocked read or write then fails. */
  @Override
  void close();
}
