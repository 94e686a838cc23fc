package dev.cellar.client.protocol;

import dev.cellar.client.CellarServerException;
import dev.cellar.client.Reply;
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
 */
public record Command<T>(String name, byte[][] args, Function<Reply, T> decoder) {
  /** A command whose name is {@code name} and whose arguments follow it. */
  public static <T> Command<T> of(String name, Function<Reply, T> decoder, byte[]... args) {
    byte[][] all = new byte[args.length + 1][];
    all[0] = name.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(args, 0, all, 1, args.length);
    return new Command<>(name, all, decoder);
  }

  /** The caller's value for {@code reply}; an error reply is thrown with the server's message. */
  public T decode(Reply reply) {
    if (reply instanceof Reply.Error error) {
      throw new CellarServerException(name, error.message());
    }
    return decoder.apply(reply);
  }
}
