package dev.cellar.bench.ipc;

import dev.cellar.client.CellarClient;
import dev.cellar.client.ClientOptions;
import dev.cellar.client.Pipeline;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Cellar's own client through its normal API: a {@link Pipeline} per batch, {@code sync()}, and the
 * values as the client hands them back: copied into arrays ({@link Mode#COPY}, {@code
 * Pipeline.get}), or lent in place ({@link Mode#ZERO_COPY}, {@code Pipeline.read}).
 */
final class CellarBatchClient implements BatchClient {
  private final CellarClient client;
  private final List<Pipeline.Result<byte[]>> gets = new ArrayList<>();
  private final List<Pipeline.Result<Long>> views = new ArrayList<>();

  private CellarBatchClient(CellarClient client) {
    this.client = client;
  }

  /**
   * Connects over {@code transport} and checks that the client uses it.
   *
   * @throws IllegalStateException if the client reports another transport than the one forced
   */
  static CellarBatchClient connect(int port, IpcTransport transport, int ringBytes) {
    ClientOptions options = ClientOptions.defaults().withTransport(transport.option());
    if (ringBytes > 0) {
      options = options.withRingBytes(ringBytes);
    }
    CellarClient client = CellarClient.connect("cellar://127.0.0.1:" + port, options);
    String reported = client.transport();
    if (!transport.isInUse(reported)) {
      client.close();
      throw new IllegalStateException(
          "asked for transport " + transport.id() + " but the client uses " + reported);
    }
    return new CellarBatchClient(client);
  }

  @Override
  public void run(Op op, Mode mode, byte[][] keys, byte[] value) {
    Pipeline pipeline = client.pipeline();
    if (op == Op.SET) {
      for (byte[] key : keys) {
        pipeline.set(key, value);
      }
      pipeline.sync();
      return;
    }
    if (mode == Mode.ZERO_COPY) {
      readInPlace(pipeline, keys, value.length);
      return;
    }
    gets.clear();
    for (byte[] key : keys) {
      gets.add(pipeline.get(key));
    }
    pipeline.sync();
    for (int i = 0; i < keys.length; i++) {
      checkHit(keys[i], gets.get(i).get(), value.length);
    }
  }

  /**
   * The zero-copy GETs: each value is looked at where it arrived (its length, and its first word
   * read, as an application reading a field would), never copied.
   */
  private void readInPlace(Pipeline pipeline, byte[][] keys, int length) {
    views.clear();
    for (byte[] key : keys) {
      views.add(pipeline.read(key, CellarBatchClient::look));
    }
    pipeline.sync();
    for (int i = 0; i < keys.length; i++) {
      Long seen = views.get(i).get();
      checkHit(keys[i], seen == null ? null : new byte[(int) (seen >>> 32)], length);
      looked += seen;
    }
  }

  /** The value's length (high half) and a digest of its first bytes (low half). */
  private static Long look(MemorySegment view) {
    long size = view.byteSize();
    long first = size >= Long.BYTES ? view.get(FIRST_WORD, 0) : 0;
    return (size << 32) | ((first ^ (first >>> 32)) & 0xFFFF_FFFFL);
  }

  private static final ValueLayout.OfLong FIRST_WORD = ValueLayout.JAVA_LONG_UNALIGNED;

  /** What the zero-copy reads saw, kept so that reading the values is not optimised away. */
  private long looked;

  /** Throws unless {@code found} is a loaded value: {@code length} bytes. */
  static void checkHit(byte[] key, byte[] found, int length) {
    if (found == null || found.length != length) {
      throw new IllegalStateException(
          "GET "
              + new String(key, StandardCharsets.US_ASCII)
              + " returned "
              + (found == null ? "nothing" : found.length + " bytes")
              + " where a loaded value of "
              + length
              + " bytes was expected: the benchmark measures hits, were the keys loaded?");
    }
  }

  @Override
  public String describe() {
    return client.transport();
  }

  @Override
  public void close() {
    client.close();
  }
}
