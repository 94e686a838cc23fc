package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;
import static dev.cellar.server.config.KeyspaceEventFlags.GENERIC;

import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.lang.foreign.MemorySegment;

/**
 * {@code COPY source destination [DB index] [REPLACE]}: the source's value and expiry under a
 * second key, with Redis 7's replies ({@code 1} copied, {@code 0} when the source is missing or the
 * destination exists without {@code REPLACE}) and its {@code new} and {@code copy_to} events. A
 * copy to another database ({@code DB}) is {@link DatabaseCommands#copyAcross}.
 */
final class CopyCommand {
  private CopyCommand() {}

  static void register(CommandTable t) {
    t.add(
        "copy",
        -3,
        "write denyoom",
        1,
        2,
        1,
        "generic",
        "Copies the value of a key to a new key.",
        CopyCommand::run);
  }

  static void run(Session s, Request r, ReplyWriter out) {
    boolean replace = false;
    int db = s.server().databaseIndex();
    for (int i = 3; i < r.argc(); i++) {
      if (r.is(i, "replace")) {
        replace = true;
      } else if (r.is(i, "db") && i + 1 < r.argc()) {
        db = DatabaseCommands.index(s, r, i + 1);
        i++;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    MemorySegment from = r.segment(1);
    MemorySegment to = r.segment(2);
    ServerContext server = s.server();
    if (db != server.databaseIndex()) {
      DatabaseCommands.requireOutsideAtomicRun(server, "COPY to another database");
      copyAcross(s, r, db, replace, out);
      return;
    }
    if (from.mismatch(to) == -1) {
      throw new CommandError("ERR source and destination objects are the same");
    }
    int[] stripes = {stripe(r, 1), stripe(r, 2)};
    int locked = server.locks().lockAll(stripes, 2);
    try {
      Values.AnyCurrent current = Values.anyCurrent(server.store(), from);
      if (current == null) {
        KeyspaceEvents.miss(server, r, 1);
      }
      if (current == null
          || (!replace && server.store().expiryOf(to) != dev.cellar.Cellar.ABSENT)) {
        out.integer(0);
        return;
      }
      if (current.header()) {
        ElementEdits edits = server.edits();
        CollectionCopy.copy(edits, current, r.bytes(2), server.collectionIds());
        edits.commit();
        ListCommands.added(server, r.bytes(2));
      } else {
        Values.rewrite(server.store(), to, current, current.expireAt());
      }
      // Redis deletes a replaced destination first, so its add always announces a new key.
      KeyspaceEvents.written(server, r, 2, true, GENERIC, "copy_to");
      out.integer(1);
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  private static void copyAcross(Session s, Request r, int db, boolean replace, ReplyWriter out) {
    ServerContext server = s.server();
    int[] stripes = {stripe(r, 1), stripe(r, 2)};
    int locked = server.locks().lockAll(stripes, 2);
    try {
      byte[] to = r.bytes(2);
      if (!DatabaseCommands.copyAcross(server, r.bytes(1), to, db, replace)) {
        if (server.store().expiryOf(r.segment(1)) == dev.cellar.Cellar.ABSENT) {
          KeyspaceEvents.miss(server, r, 1);
        }
        out.integer(0);
        return;
      }
      server.inDatabase(
          db,
          () -> {
            KeyspaceEvents.notify(
                server, dev.cellar.server.config.KeyspaceEventFlags.NEW, "new", to);
            KeyspaceEvents.notify(server, GENERIC, "copy_to", to);
          });
      out.integer(1);
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }
}
