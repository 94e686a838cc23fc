package dev.cellar.client;

import dev.cellar.client.connection.SyncChannel;
import dev.cellar.client.protocol.Command;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Commands queued and sent together: {@link #sync()} writes the whole batch in one write and one
 * flush (batches over 1 MiB of requests in writes of about 1 MiB) and then reads every reply, in
 * order. Each queued command returns a {@link Result}, filled in by {@code sync()}; {@link
 * #close()} syncs what is still queued.
 *
 * <pre>{@code
 * try (Pipeline p = client.pipeline()) {
 *   for (int i = 0; i < 1000; i++) p.set(key(i), value(i));
 *   Pipeline.Result<byte[]> first = p.get(key(0));
 *   p.sync();
 *   byte[] v = first.get();
 * }
 * }</pre>
 *
 * <p>A server error fails only its own command: its result throws {@link CellarServerException} and
 * the others stand. A lost connection fails {@code sync()} with {@link CellarConnectionException};
 * results already read keep their values, the rest throw it (those commands may or may not have
 * run, and are not sent again). The batch holds the client's connection while it is sent and read,
 * so other threads' calls wait for it.
 *
 * <p>Not thread-safe: one pipeline belongs to one thread. Nothing is sent before {@code sync()}.
 */
public final class Pipeline implements AutoCloseable {
  private final SyncChannel channel;
  private final List<Command<?>> commands = new ArrayList<>();
  private final List<Result<?>> results = new ArrayList<>();

  Pipeline(SyncChannel channel) {
    this.channel = channel;
  }

  /** A queued command's outcome, known after {@link Pipeline#sync()}. */
  public static final class Result<T> {
    private final Command<T> command;
    private boolean done;
    private T value;
    private RuntimeException failure;

    private Result(Command<T> command) {
      this.command = command;
    }

    /**
     * The command's value.
     *
     * @throws IllegalStateException before the pipeline was synced
     * @throws CellarServerException if the server refused this command
     * @throws CellarConnectionException if the connection was lost before its reply
     */
    public T get() {
      if (!done) {
        throw new IllegalStateException(
            command.name() + " has not been sent yet: call Pipeline.sync() (or close it) first");
      }
      if (failure != null) {
        throw failure;
      }
      return value;
    }

    private void complete(Object outcome) {
      try {
        value = command.complete(outcome);
      } catch (RuntimeException e) {
        failure = e;
      }
      done = true;
    }

    private void fail(RuntimeException e) {
      failure = e;
      done = true;
    }
  }

  public Result<byte[]> get(byte[] key) {
    return queue(Commands.get(key));
  }

  /**
   * {@code GET}, zero-copy: at {@link #sync()}, {@code reader} is called on a read-only view of the
   * value where it arrived (over shared memory, in the response ring itself) and the result is what
   * it returns; null, without calling it, when the key is absent. The view is valid only during the
   * call: keep what it computes, not the view. Calls run on the syncing thread, in order, while the
   * pipeline holds the connection, so they should be short.
   */
  public <R> Result<R> read(byte[] key, Function<MemorySegment, R> reader) {
    return queue(Commands.read(key, reader));
  }

  public Result<Void> set(byte[] key, byte[] value) {
    return queue(Commands.set(key, value));
  }

  public Result<Void> set(byte[] key, byte[] value, Duration ttl) {
    return queue(Commands.set(key, value, ttl));
  }

  public Result<Long> del(byte[]... keys) {
    return queue(Commands.del(keys));
  }

  public Result<Long> exists(byte[]... keys) {
    return queue(Commands.exists(keys));
  }

  public Result<List<byte[]>> mget(byte[]... keys) {
    return queue(Commands.mget(keys));
  }

  public Result<Void> mset(byte[]... keysAndValues) {
    return queue(Commands.mset(keysAndValues));
  }

  public Result<Long> incr(byte[] key) {
    return queue(Commands.incr(key));
  }

  public Result<Long> incrBy(byte[] key, long delta) {
    return queue(Commands.incrBy(key, delta));
  }

  public Result<Long> append(byte[] key, byte[] value) {
    return queue(Commands.append(key, value));
  }

  public Result<Boolean> expire(byte[] key, Duration ttl) {
    return queue(Commands.expire(key, ttl));
  }

  public Result<Long> pttl(byte[] key) {
    return queue(Commands.pttl(key));
  }

  /** Any command; the result is the decoded reply (an error reply throws from its result). */
  public Result<Reply> command(String name, byte[]... args) {
    return queue(Commands.raw(name, args));
  }

  /** How many commands are queued and not yet sent. */
  public int queued() {
    return commands.size();
  }

  /** Sends the queued commands in one flush and fills in their results; see the class note. */
  public void sync() {
    if (commands.isEmpty()) {
      return;
    }
    try {
      channel.executeAll(commands, (i, outcome) -> results.get(i).complete(outcome));
    } catch (RuntimeException e) {
      for (Result<?> r : results) {
        if (!r.done) {
          r.fail(e);
        }
      }
      throw e;
    } finally {
      commands.clear();
      results.clear();
    }
  }

  /** Syncs what is queued. */
  @Override
  public void close() {
    sync();
  }

  private <T> Result<T> queue(Command<T> command) {
    Result<T> result = new Result<>(command);
    commands.add(command);
    results.add(result);
    return result;
  }
}
