package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;

import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.GroupCounters;
import dev.cellar.server.collection.StreamEntries;
import dev.cellar.server.collection.StreamGroups;
import dev.cellar.server.collection.StreamGroups.Consumer;
import dev.cellar.server.collection.StreamGroups.Group;
import dev.cellar.server.collection.StreamId;
import dev.cellar.server.config.KeyspaceEventFlags;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;

/**
 * Streams' consumer groups: {@code XGROUP}, {@code XREADGROUP} (blocking too), {@code XACK}, {@code
 * XPENDING}, {@code XCLAIM}, {@code XAUTOCLAIM} and {@code XINFO}, over {@link StreamGroups}.
 */
final class StreamGroupAdmin {
  private StreamGroupAdmin() {}

  // ------------------------------------------------------------------ XGROUP

  static void xgroup(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(java.util.Locale.ROOT);
    s.subcommand("xgroup", sub);
    if (sub.equals("help")) {
      out.simpleLines(
          new String[] {
            "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "CREATE <key> <groupname> <id|$> [option]",
            "CREATECONSUMER <key> <groupname> <consumer>",
            "DELCONSUMER <key> <groupname> <consumername>",
            "DESTROY <key> <groupname>",
            "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
            "HELP"
          });
      return;
    }
    int arity =
        switch (sub) {
          case "create" -> -5;
          case "setid" -> -5;
          case "destroy" -> 4;
          case "createconsumer", "delconsumer" -> 5;
          default ->
              throw new CommandError(
                  "ERR unknown subcommand '" + r.string(1) + "'. Try XGROUP HELP.");
        };
    if (arity > 0 ? r.argc() != arity : r.argc() < -arity) {
      throw CommandError.arity("xgroup|" + sub);
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 2);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      StreamEntries stream = StreamCommands.open(edits, r.bytes(2));
      String key = r.string(2);
      String name = r.string(3);
      if (sub.equals("create")) {
        create(s, r, out, edits, stream);
        return;
      }
      if (!stream.exists()) {
        throw new CommandError(
            "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want"
                + " to use the MKSTREAM option to create an empty stream automatically.");
      }
      StreamGroups groups = new StreamGroups(edits, stream.id());
      Group g = groups.group(name);
      switch (sub) {
        case "destroy" -> {
          if (g != null) {
            groups.destroy(g);
            edits.commit();
            KeyspaceEvents.notify(server, KeyspaceEventFlags.STREAM, "xgroup-destroy", r, 2);
          }
          out.integer(g == null ? 0 : 1);
        }
        case "setid" -> {
          if (g == null) {
            throw noSuchGroup(key, name);
          }
          StreamId last = r.is(4, "$") ? stream.info().last() : groupId(r.string(4));
          long read = GroupCounters.UNKNOWN; // as Redis: unknown unless given
          if (r.argc() == 7 && r.is(5, "entriesread")) {
            read = entriesRead(r, 6);
          } else if (r.argc() != 5) {
            throw CommandError.SYNTAX;
          }
          groups.save(g.with(last, read));
          edits.commit();
          KeyspaceEvents.notify(server, KeyspaceEventFlags.STREAM, "xgroup-setid", r, 2);
          out.ok();
        }
        case "createconsumer" -> {
          if (g == null) {
            throw noSuchGroup(key, name);
          }
          Group[] holder = {g};
          boolean created = groups.consumer(g, r.string(4)) == null;
          if (created) {
            groups.consumerOrCreate(holder, r.string(4), System.currentTimeMillis());
            edits.commit();
            KeyspaceEvents.notify(server, KeyspaceEventFlags.STREAM, "xgroup-createconsumer", r, 2);
          }
          out.integer(created ? 1 : 0);
        }
        default -> {
          if (g == null) {
            throw noSuchGroup(key, name);
          }
          Consumer c = groups.consumer(g, r.string(4));
          long pending = 0;
          if (c != null) {
            pending = groups.deleteConsumer(new Group[] {g}, c);
            edits.commit();
            KeyspaceEvents.notify(server, KeyspaceEventFlags.STREAM, "xgroup-delconsumer", r, 2);
          }
          out.integer(pending);
        }
      }
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /** A group's last id as Redis reads it there: an id, or {@code -} (0-0) or {@code +}. */
  private static StreamId groupId(String text) {
    return switch (text) {
      case "-" -> StreamId.ZERO;
      case "+" -> StreamId.MAX;
      default -> StreamGroupCommands.id(text);
    };
  }

  /** {@code ENTRIESREAD n}: a count, or -1 for unknown. */
  private static long entriesRead(Request r, int i) {
    if (!r.isLong(i)) {
      throw CommandError.NOT_INTEGER;
    }
    long n = r.longValue(i);
    if (n < 0 && n != -1) {
      throw new CommandError("ERR value for ENTRIESREAD must be positive or -1");
    }
    return n;
  }

  private static void create(
      Session s, Request r, ReplyWriter out, ElementEdits edits, StreamEntries stream) {
    boolean mkstream = false;
    long entriesRead = -1;
    for (int i = 5; i < r.argc(); i++) {
      if (r.is(i, "mkstream")) {
        mkstream = true;
      } else if (r.is(i, "entriesread") && i + 1 < r.argc()) {
        entriesRead = entriesRead(r, ++i);
      } else {
        throw CommandError.SYNTAX;
      }
    }
    StreamId last = r.is(4, "$") ? null : groupId(r.string(4));
    if (!stream.exists()) {
      if (!mkstream) {
        throw new CommandError(
            "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want"
                + " to use the MKSTREAM option to create an empty stream automatically.");
      }
      stream.create(s.server().collectionIds());
    }
    StreamGroups groups = new StreamGroups(edits, stream.id());
    if (groups.group(r.string(3)) != null) {
      throw new CommandError("BUSYGROUP Consumer Group name already exists");
    }
    StreamEntries.Info info = stream.info();
    groups.create(r.string(3), info.groups() + 1, last == null ? info.last() : last, entriesRead);
    stream.setInfo(info.withGroups(info.groups() + 1));
    stream.finish();
    edits.commit();
    KeyspaceEvents.notify(s.server(), KeyspaceEventFlags.STREAM, "xgroup-create", r, 2);
    out.ok();
  }

  /** XGROUP's text for a missing group (the reading commands' is {@code noGroup}'s). */
  private static CommandError noSuchGroup(String key, String group) {
    return new CommandError(
        "NOGROUP No such consumer group '" + group + "' for key name '" + key + "'");
  }
}
