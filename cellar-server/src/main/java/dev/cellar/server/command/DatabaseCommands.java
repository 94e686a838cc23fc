package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;
import static dev.cellar.server.config.KeyspaceEventFlags.GENERIC;

import dev.cellar.Cellar;
import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.db.Database;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;

/**
 * The commands across databases: {@code SWAPDB}, {@code MOVE}, and what {@code SELECT} and {@code
 * COPY ... DB} share with them.
 *
 * <p>Each database is a store of its own ({@link dev.cellar.server.db.Databases}), and the engine's
 * units are atomic within one store. So a transaction or a script stays in one database: these
 * commands, a {@code SELECT} of another database and a {@code FLUSHALL} over several are refused
 * inside {@code MULTI} (the transaction is then discarded, as for any command refused while queued)
 * and inside scripts, where Redis would run them. {@code MOVE} makes the copy durable before it
 * deletes the original, so a crash between the two leaves the key in both databases, never in
 * neither.
 */
final class DatabaseCommands {
  private DatabaseCommands() {}

  static final String IN_ONE_DATABASE =
      "ERR a transaction or script runs in one database in Cellar (each database is a store of its"
          + " own, and a write is atomic within one store): ";

  static void register(CommandTable t) {
    t.add(
            "swapdb",
            3,
            "write fast",
            0,
            0,
            0,
            "server",
            "Swaps two databases.",
            DatabaseCommands::swapdb)
        .add(
            "move",
            3,
            "write fast",
            1,
            1,
            1,
            "generic",
            "Moves a key to another database.",
            DatabaseCommands::move);
  }

  /**
   * Argument {@code i} as a database index, with Redis's errors: not an integer, or out of range.
   */
  static int index(Session s, Request r, int i) {
    if (!r.isLong(i) || r.longValue(i) < Integer.MIN_VALUE || r.longValue(i) > Integer.MAX_VALUE) {
      throw CommandError.NOT_INTEGER;
    }
    long index = r.longValue(i);
    if (index < 0 || index >= s.server().databases().count()) {
      throw new CommandError("ERR DB index is out of range");
    }
    return (int) index;
  }

  /**
   * The refusal of {@code request} while queued in {@code MULTI}, or null if it stays in the
   * session's database.
   */
  static String refusedInMulti(Session s, CommandSpec spec, Request r) {
    String name = spec.name();
    boolean crosses =
        switch (name) {
          case "move", "swapdb" -> true;
          case "select" -> !r.isLong(1) || r.longValue(1) != s.database();
          case "copy" -> copyTarget(r) != null && copyTarget(r) != s.database();
          case "flushall" -> s.server().databases().openIndexes().size() > 1;
          default -> false;
        };
    return crosses
        ? IN_ONE_DATABASE + name.toUpperCase(java.util.Locale.ROOT) + " is refused"
        : null;
  }

  /** Refuses a command that crosses databases inside a transaction or script. */
  static void requireOutsideAtomicRun(ServerContext server, String name) {
    if (server.inAtomicRun()) {
      throw new CommandError(IN_ONE_DATABASE + name + " is refused");
    }
  }

  /** The database index {@code COPY}'s {@code DB} option names, or null. */
  private static Long copyTarget(Request r) {
    for (int i = 3; i + 1 < r.argc(); i++) {
      if (r.is(i, "db") && r.isLong(i + 1)) {
        return r.longValue(i + 1);
      }
    }
    return null;
  }

  static void swapdb(Session s, Request r, ReplyWriter out) {
    int a;
    int b;
    try {
      a = index(s, r, 1);
    } catch (CommandError e) {
      throw e == CommandError.NOT_INTEGER ? new CommandError("ERR invalid first DB index") : e;
    }
    try {
      b = index(s, r, 2);
    } catch (CommandError e) {
      throw e == CommandError.NOT_INTEGER ? new CommandError("ERR invalid second DB index") : e;
    }
    ServerContext server = s.server();
    requireOutsideAtomicRun(server, "SWAPDB");
    try {
      server.databases().swap(a, b);
    } catch (UncheckedIOException e) {
      throw new CommandError("ERR " + e.getMessage());
    }
    // Clients blocked on either database's keys may now find something to pop.
    server.blocked().databasesSwapped(a, b);
    out.ok();
  }

  static void move(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int source = server.databaseIndex();
    if (!r.isLong(2) || r.longValue(2) < Integer.MIN_VALUE || r.longValue(2) > Integer.MAX_VALUE) {
      throw CommandError.NOT_INTEGER;
    }
    int target = index(s, r, 2);
    if (target == source) {
      throw new CommandError("ERR source and destination objects are the same");
    }
    requireOutsideAtomicRun(server, "MOVE");
    byte[] key = r.bytes(1);
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      Cellar from = server.store();
      if (!copyAcross(server, key, key, target, false)) {
        out.integer(0);
        return;
      }
      // The copy is durable before the original goes: a crash leaves both, never neither.
      Cellar into = server.databases().get(target).store();
      if (server.config().fsync() != dev.cellar.Fsync.NO) {
        into.sync();
      }
      from.delete(MemorySegment.ofArray(key));
      KeyspaceEvents.notify(server, GENERIC, "move_from", r, 1);
      server.inDatabase(target, () -> KeyspaceEvents.notify(server, GENERIC, "move_to", key));
      out.integer(1);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /**
   * Copies key {@code from} of the current database to key {@code to} of database {@code target},
   * with its expiry; false if {@code from} is absent, or {@code to} is present and not to be
   * replaced. The caller holds both keys' stripes.
   */
  static boolean copyAcross(
      ServerContext server, byte[] from, byte[] to, int target, boolean replace) {
    Cellar source = server.store();
    Values.AnyCurrent current = Values.anyCurrent(source, MemorySegment.ofArray(from));
    if (current == null) {
      return false;
    }
    Database into = server.databases().get(target);
    MemorySegment dest = MemorySegment.ofArray(to);
    if (!replace && into.store().expiryOf(dest) != Cellar.ABSENT) {
      return false;
    }
    if (current.header()) {
      ElementEdits edits = new ElementEdits(into.store(), server.config().packLimits());
      CollectionCopy.copy(new ElementEdits(source), edits, current, to, into.collectionIds());
      edits.commit();
      server.inDatabase(target, () -> ListCommands.added(server, to)); // its waiters are served
    } else {
      Values.rewrite(into.store(), dest, current, current.expireAt());
    }
    return true;
  }
}
