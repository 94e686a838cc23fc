package dev.cellar.bench.ipc;

import dev.cellar.client.CellarClient;
import dev.cellar.client.ClientOptions;
import dev.cellar.client.Pipeline;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Cellar's own client through its normal API: a {@link Pipeline} per batch, {@code sync()}, and the
 * values as the client hands them back (copied into arrays: the "copy" mode).
 */
final class CellarBatchClient implements BatchClient {
  private final CellarClient client;
  private final List<Pipeline.Result<byte[]>> gets = new ArrayList<>();

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
  public void run(Op op, byte[][] keys, byte[] value) {
    Pipeline pipeline = client.pipeline();
    if (op == Op.SET) {
      for (byte[] key : keys) {
        pipeline.set(key, value);
      }
      pipeline.sync();
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
