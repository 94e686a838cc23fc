package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * {@code CLIENT KILL}, in Redis 7.2's two forms: the old {@code CLIENT KILL ip:port}, which answers
 * OK or "No such client", and the filter form {@code CLIENT KILL [ID id] [ADDR ip:port] [LADDR
 * ip:port] [TYPE type] [USER name] [SKIPME yes|no]}, which answers how many it closed (all filters
 * must match; SKIPME defaults to yes). A client that kills itself gets its reply, then is closed.
 */
final class ClientKill {
  private ClientKill() {}

  static void run(Session s, Request r, ReplyWriter out) {
    if (r.argc() == 3) {
      String address = r.string(2);
      List<Session> found = matching(s, other -> other.address().equals(address));
      if (found.isEmpty()) {
        throw new CommandError("ERR No such client");
      }
      kill(s, found);
      out.ok();
      return;
    }
    if (r.argc() < 4) {
      throw CommandError.arity("client|kill");
    }
    List<Predicate<Session>> filters = new ArrayList<>();
    boolean skipMe = true;
    for (int i = 2; i < r.argc(); i += 2) {
      if (i + 1 >= r.argc()) {
        throw CommandError.SYNTAX;
      }
      String value = r.string(i + 1);
      switch (r.string(i).toLowerCase(Locale.ROOT)) {
        case "id" -> {
          if (!r.isLong(i + 1) || r.longValue(i + 1) < 1) {
            throw new CommandError("ERR client-id should be greater than 0");
          }
          long id = r.longValue(i + 1);
          filters.add(other -> other.id() == id);
        }
        case "addr" -> filters.add(other -> other.address().equals(value));
        case "laddr" -> filters.add(other -> other.localAddress().equals(value));
        case "type" -> {
          String type = value.toLowerCase(Locale.ROOT);
          if (!List.of("normal", "master", "replica", "slave", "pubsub").contains(type)) {
            throw new CommandError("ERR Unknown client type '" + value + "'");
          }
          filters.add(other -> type.equals(ConnectionCommands.clientType(other)));
        }
        case "user" -> {
          if (!value.equals("default")) {
            throw new CommandError("ERR No such user '" + value + "'");
          }
        }
        case "skipme" -> {
          if (value.equalsIgnoreCase("yes")) {
            skipMe = true;
          } else if (value.equalsIgnoreCase("no")) {
            skipMe = false;
          } else {
            throw CommandError.SYNTAX;
          }
        }
        default -> throw CommandError.SYNTAX;
      }
    }
    boolean spareMe = skipMe;
    List<Session> found =
        matching(
            s, other -> !(spareMe && other == s) && filters.stream().allMatch(f -> f.test(other)));
    kill(s, found);
    out.integer(found.size());
  }

  private static List<Session> matching(Session s, Predicate<Session> wanted) {
    List<Session> found = new ArrayList<>();
    for (Session other : s.server().clients().all()) {
      if (wanted.test(other)) {
        found.add(other);
      }
    }
    return found;
  }

  private static void kill(Session s, List<Session> found) {
    for (Session other : found) {
      if (other == s) {
        s.closeAfterReply();
      } else {
        other.channel().close();
      }
    }
  }
}
