package dev.cellar.client;

import dev.cellar.client.connection.AsyncChannel;
import dev.cellar.client.protocol.Command;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The client's commands returning futures, pipelined on one connection of their own: any number may
 * be in flight, from any thread, and each future completes with its own reply (replies come in the
 * order the commands were sent). See docs/client.md for the threads and what a lost connection does
 * to commands in flight.
 *
 * <p>A future fails with {@link CellarServerException} when the server refuses its command, with
 * {@link CellarConnectionException} when the connection is lost before its reply (the command may
 * have run; it is not sent again), and with {@link java.util.concurrent.TimeoutException} after the
 * response timeout. Futures complete on the client's reader thread: a callback attached without an
 * executor runs there and must not block.
 */
public final class AsyncCommands {
  private final AsyncChannel channel;

  AsyncCommands(AsyncChannel channel) {
    this.channel = channel;
  }

  public CompletableFuture<byte[]> get(byte[] key) {
    return send(Commands.get(key));
  }

  public CompletableFuture<Void> set(byte[] key, byte[] value) {
    return send(Commands.set(key, value));
  }

  public CompletableFuture<Void> set(byte[] key, byte[] value, Duration ttl) {
    return send(Commands.set(key, value, ttl));
  }

  public CompletableFuture<Long> del(byte[]... keys) {
    return send(Commands.del(keys));
  }

  public CompletableFuture<Long> exists(byte[]... keys) {
    return send(Commands.exists(keys));
  }

  public CompletableFuture<List<byte[]>> mget(byte[]... keys) {
    return send(Commands.mget(keys));
  }

  public CompletableFuture<Void> mset(byte[]... keysAndValues) {
    return send(Commands.mset(keysAndValues));
  }

  public CompletableFuture<Long> incr(byte[] key) {
    return send(Commands.incr(key));
  }

  public CompletableFuture<Long> incrBy(byte[] key, long delta) {
    return send(Commands.incrBy(key, delta));
  }

  public CompletableFuture<Long> append(byte[] key, byte[] value) {
    return send(Commands.append(key, value));
  }

  public CompletableFuture<Boolean> expire(byte[] key, Duration ttl) {
    return send(Commands.expire(key, ttl));
  }

  public CompletableFuture<Long> pttl(byte[] key) {
    return send(Commands.pttl(key));
  }

  public CompletableFuture<String> ping() {
    return send(Commands.ping());
  }

  /** Any command; the future completes with the decoded reply. */
  public CompletableFuture<Reply> command(String name, byte[]... args) {
    return send(Commands.raw(name, args));
  }

  private <T> CompletableFuture<T> send(Command<T> command) {
    return channel.submit(command);
  }
}
