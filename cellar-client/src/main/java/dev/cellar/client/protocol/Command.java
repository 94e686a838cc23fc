package dev.cellar.client.protocol;

import dev.cellar.client.CellarServerException;
import dev.cellar.client.Reply;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * One command ready to send, with what its reply means: the sync, pipelined and asynchronous APIs
 * build the same commands and differ only in when they send them and how they hand back {@link
 * #decode}'s result.
 *
 * @param name the command's name, for messages
 * @param args the whole command, name first
 * @param decoder turns a reply that is not an error into the caller's value
 * @param inPlace for a command whose reply is a value read in place (zero-copy), what to make of a
 *     view of the value's bytes where they arrived, valid only during the call; null otherwise.
 *     {@link #decoder} then does the same from a copy, for a path that cannot lend the bytes.
 */
public record Command<T>(
    String name, byte[][] args, Function<Reply, T> decoder, Function<MemorySegment, T> inPlace) {

  public Command(String name, byte[][] args, Function<Reply, T> decoder) {
    this(name, args, decoder, null);
  }

  /** A command whose name is {@code name} and whose arguments follow it. */
  public static <T> Command<T> of(String name, Function<Reply, T> decoder, byte[]... args) {
    return new Command<>(name, withName(name, args), decoder, null);
  }

  /**
   * A command whose bulk-string reply is handed to {@code reader} in place, as a read-only view
   * valid only during the call; a null reply gives null without calling it.
   */
  public static <T> Command<T> reading(
      String name, Function<MemorySegment, T> reader, byte[]... args) {
    Function<Reply, T> fromCopy =
        reply ->
            reply instanceof Reply.Bulk bulk
                ? reader.apply(MemorySegment.ofArray(bulk.bytes()).asReadOnly())
                : reply.isNull() ? null : unexpected(name, reply);
    return new Command<>(name, withName(name, args), fromCopy, reader);
  }

  private static <T> T unexpected(String name, Reply reply) {
    throw new dev.cellar.client.CellarClientException(
        name + " answered " + reply + " where a string or nil was expected");
  }

  private static byte[][] withName(String name, byte[][] args) {
    byte[][] all = new byte[args.length + 1][];
    all[0] = name.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(args, 0, all, 1, args.length);
    return all;
  }

  /** The caller's value for {@code reply}; an error reply is thrown with the server's message. */
  public T decode(Reply reply) {
    if (reply instanceof Reply.Error error) {
      throw new CellarServerException(name, error.message());
    }
    return decoder.apply(reply);
  }

  /**
   * The caller's value for what {@link RespReader#read(Command)} returned: a reply, decoded as
   * {@link #decode} does, or what the in-place decoder made (or threw).
   */
  @SuppressWarnings("unchecked")
  public T complete(Object outcome) {
    if (outcome instanceof RespReader.InPlaceResult result) {
      if (result.failure() != null) {
        throw result.failure();
      }
      return (T) result.value();
    }
    return decode((Reply) outcome);
  }
}
