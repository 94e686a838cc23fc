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
 * destination exists without {@code REPLACE}) and its {@code new} and {@code copy_to} events. There
 * is one database here, so {@code DB} takes only 0.
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
    for (int i = 3; i < r.argc(); i++) {
      if (r.is(i, "replace")) {
        replace = true;
      } else if (r.is(i, "db") && i + 1 < r.argc()) {
        if (!r.isLong(i + 1)
            || r.longValue(i + 1) < Integer.MIN_VALUE
            || r.longValue(i + 1) > Integer.MAX_VALUE) {
          throw CommandError.NOT_INTEGER;
        }
        if (r.longValue(i + 1) != 0) {
          throw new CommandError("ERR DB index is out of range");
        }
        i++;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    MemorySegment from = r.segment(1);
    MemorySegment to = r.segment(2);
    if (from.mismatch(to) == -1) {
      throw new CommandError("ERR source and destination objects are the same");
    }
    ServerContext server = s.server();
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
        ElementEdits edits = new ElementEdits(server.store());
        CollectionCopy.copy(edits, current, r.bytes(2), server.collectionIds());
        edits.commit();
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
}
