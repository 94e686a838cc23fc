package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;

import dev.cellar.server.collection.CollectionDescriptor;
import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.StreamEntries;
import dev.cellar.server.collection.StreamEntries.Entry;
import dev.cellar.server.collection.StreamId;
import dev.cellar.server.config.KeyspaceEventFlags;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis's stream commands without consumer groups, over {@link StreamEntries}: appending, reading
 * ranges and new entries (blocking too), deleting and trimming. An approximate trim ({@code ~})
 * trims exactly as far as asked, where Redis stops at the edge of a node and may keep more.
 */
final class StreamCommands {
  private StreamCommands() {}

  static final CommandError INVALID_ID =
      new CommandError("ERR Invalid stream ID specified as stream command argument");

  static void register(CommandTable t) {
    t.add(
            "xadd",
            -5,
            "write denyoom fast",
            1,
            1,
            1,
            "stream",
            "Appends a new message to a stream. Creates the key if it doesn't exist.",
            StreamCommands::xadd)
        .add(
            "xlen",
            2,
            "readonly fast",
            1,
            1,
            1,
            "stream",
            "Return the number of messages in a stream.",
            StreamCommands::xlen)
        .add(
            "xrange",
            -4,
            "readonly",
            1,
            1,
            1,
            "stream",
            "Returns the messages from a stream within a range of IDs.",
            (s, r, o) -> xrange(s, r, o, false))
        .add(
            "xrevrange",
            -4,
            "readonly",
            1,
            1,
            1,
            "stream",
            "Returns the messages from a stream within a range of IDs in reverse order.",
            (s, r, o) -> xrange(s, r, o, true))
        .add(
            "xdel",
            -3,
            "write fast",
            1,
            1,
            1,
            "stream",
            "Returns the number of messages after removing them from a stream.",
            StreamCommands::xdel)
        .add(
            "xtrim",
            -4,
            "write",
            1,
            1,
            1,
            "stream",
            "Deletes messages from the beginning of a stream.",
            StreamCommands::xtrim)
        .add(
            "xread",
            -4,
            "readonly blocking movablekeys",
            0,
            0,
            0,
            "stream",
            "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.",
            StreamCommands::xread);
  }

  static StreamEntries open(ElementEdits edits, byte[] key) {
    CollectionKeys.Found f = CollectionKeys.find(edits.store(), key, CollectionDescriptor.STREAM);
    return new StreamEntries(edits, key, f.header(), f.expireAt());
  }

  /**
   * An id argument: {@code ms-seq}, or {@code ms} with {@code missingSeq} as its sequence (0 for a
   * start, the largest for an end); null if malformed.
   */
  static StreamId parseId(String text, long missingSeq) {
    int dash = text.indexOf('-');
    try {
      if (dash < 0) {
        return new StreamId(Long.parseUnsignedLong(text), missingSeq);
      }
      return new StreamId(
          Long.parseUnsignedLong(text.substring(0, dash)),
          Long.parseUnsignedLong(text.substring(dash + 1)));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Trimming as XADD and XTRIM take it: MAXLEN or MINID, a threshold, a LIMIT. */
  private record Trim(boolean maxlen, long length, StreamId minId, long limit) {
    long apply(StreamEntries stream) {
      if (maxlen) {
        return stream.trimFront(e -> stream.count() > length, limit);
      }
      return stream.trimFront(e -> e.id().compareTo(minId) < 0, limit);
    }
  }

  /** Parses a trim from argument {@code i}; returns the index after it, the trim in {@code out}. */
  private static int parseTrim(Request r, int i, Trim[] out) {
    boolean maxlen = r.is(i, "maxlen");
    i++;
    boolean approximate = false;
    if (i < r.argc() && (r.is(i, "~") || r.is(i, "="))) {
      approximate = r.is(i, "~");
      i++;
    }
    if (i >= r.argc()) {
      throw CommandError.SYNTAX;
    }
    long length = 0;
    StreamId minId = null;
    if (maxlen) {
      if (!r.isLong(i)) {
        throw CommandError.NOT_INTEGER;
      }
      if (r.longValue(i) < 0) {
        throw new CommandError("ERR The MAXLEN argument must be >= 0.");
      }
      length = r.longValue(i);
    } else {
      minId = parseId(r.string(i), 0);
      if (minId == null) {
        throw INVALID_ID;
      }
    }
    i++;
    long limit = 0;
    if (i + 1 < r.argc() && r.is(i, "limit")) {
      if (!r.isLong(i + 1)) {
        throw CommandError.NOT_INTEGER;
      }
      if (r.longValue(i + 1) < 0) {
        throw new CommandError("ERR The LIMIT argument must be >= 0.");
      }
      if (!approximate) {
        throw new CommandError(
            "ERR syntax error, LIMIT cannot be used without the special ~ option");
      }
      limit = r.longValue(i + 1);
      i += 2;
    }
    out[0] = new Trim(maxlen, length, minId, limit);
    return i;
  }

  static void xadd(Session s, Request r, ReplyWriter out) {
    boolean noMkStream = false;
    Trim[] trim = new Trim[1];
    int i = 2;
    while (i < r.argc()) {
      if (r.is(i, "nomkstream")) {
        noMkStream = true;
        i++;
      } else if (r.is(i, "maxlen") || r.is(i, "minid")) {
        i = parseTrim(r, i, trim);
      } else {
        break;
      }
    }
    if (i >= r.argc() || (r.argc() - i - 1) % 2 != 0 || r.argc() - i - 1 == 0) {
      throw CommandError.arity("xadd");
    }
    String idText = r.string(i);
    checkAddId(idText);
    List<byte[]> fields = new ArrayList<>();
    for (int f = i + 1; f < r.argc(); f++) {
      fields.add(r.bytes(f));
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      StreamEntries stream = open(edits, r.bytes(1));
      if (!stream.exists() && noMkStream) {
        out.nullBulk();
        return;
      }
      StreamId id = nextId(idText, stream.exists() ? stream.info().last() : StreamId.ZERO);
      boolean created = !stream.exists();
      stream.create(server.collectionIds());
      stream.append(id, fields);
      if (trim[0] != null) {
        trim[0].apply(stream);
      }
      stream.finish();
      edits.commit();
      KeyspaceEvents.written(server, r, 1, created, KeyspaceEventFlags.STREAM, "xadd");
      ListCommands.added(server, r.bytes(1));
      out.bulk(id.toString());
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /** XADD's id argument, checked before the key is looked at, as Redis does. */
  private static void checkAddId(String text) {
    if (text.equals("*")) {
      return;
    }
    StreamId id =
        text.endsWith("-*") ? parseId(text.substring(0, text.length() - 2), 0) : parseId(text, 0);
    if (id == null) {
      throw INVALID_ID;
    }
    if (!text.endsWith("-*") && id.equals(StreamId.ZERO)) {
      throw new CommandError("ERR The ID specified in XADD must be greater than 0-0");
    }
  }

  /** The id XADD gives an entry, from its argument and the stream's last id. */
  private static StreamId nextId(String text, StreamId last) {
    StreamId id;
    if (text.equals("*")) {
      long now = System.currentTimeMillis();
      if (Long.compareUnsigned(now, last.ms()) > 0) {
        id = new StreamId(now, 0);
      } else {
        if (last.equals(StreamId.MAX)) {
          throw exhausted();
        }
        id = last.next();
      }
      return id;
    }
    if (text.endsWith("-*")) {
      StreamId ms = parseId(text.substring(0, text.length() - 2), 0);
      if (ms == null) {
        throw INVALID_ID;
      }
      if (ms.ms() == last.ms()) {
        if (last.seq() == -1L) {
          throw smaller();
        }
        id = new StreamId(ms.ms(), last.seq() + 1);
      } else {
        id = new StreamId(ms.ms(), ms.ms() == 0 ? 1 : 0);
      }
    } else {
      id = parseId(text, 0);
      if (id == null) {
        throw INVALID_ID;
      }
    }
    if (id.equals(StreamId.ZERO)) {
      throw new CommandError("ERR The ID specified in XADD must be greater than 0-0");
    }
    if (id.compareTo(last) <= 0) {
      throw smaller();
    }
    return id;
  }

  private static CommandError smaller() {
    return new CommandError(
        "ERR The ID specified in XADD is equal or smaller than the target stream top item");
  }

  private static CommandError exhausted() {
    return new CommandError(
        "ERR The stream has exhausted the last possible ID, unable to add more items");
  }

  static void xlen(Session s, Request r, ReplyWriter out) {
    out.integer(open(s.server().edits(), r.bytes(1)).count());
  }

  /** A range end: {@code -}, {@code +}, an id, or an exclusive {@code (id}. */
  static StreamId rangeEnd(String text, boolean start) {
    if (text.equals("-")) {
      return StreamId.ZERO;
    }
    if (text.equals("+")) {
      return StreamId.MAX;
    }
    boolean exclusive = text.startsWith("(");
    StreamId id = parseId(exclusive ? text.substring(1) : text, start ? 0 : -1L);
    if (id == null) {
      throw INVALID_ID;
    }
    if (exclusive) {
      if (start && id.equals(StreamId.MAX)) {
        throw new CommandError("ERR invalid start ID for the interval");
      }
      if (!start && id.equals(StreamId.ZERO)) {
        throw new CommandError("ERR invalid end ID for the interval");
      }
      return start ? id.next() : id.previous();
    }
    return id;
  }

  static void xrange(Session s, Request r, ReplyWriter out, boolean reverse) {
    StreamId from = rangeEnd(r.string(reverse ? 3 : 2), true);
    StreamId to = rangeEnd(r.string(reverse ? 2 : 3), false);
    long count = -1;
    if (r.argc() > 4) {
      if (r.argc() != 6 || !r.is(4, "count")) {
        throw CommandError.SYNTAX;
      }
      if (!r.isLong(5)) {
        throw CommandError.NOT_INTEGER;
      }
      count = Math.max(0, r.longValue(5));
    }
    StreamEntries stream = open(s.server().edits(), r.bytes(1));
    entries(out, bounded(stream, from, to, count, reverse, reverse ? "XREVRANGE" : "XRANGE"));
  }

  /** Entries a read gathers on the heap: at most {@link #MAX_ENTRIES}, else the read fails. */
  static final long MAX_ENTRIES = 1 << 20;

  static List<Entry> bounded(
      StreamEntries stream, StreamId from, StreamId to, long count, boolean reverse, String what) {
    long cap = count < 0 || count > MAX_ENTRIES ? MAX_ENTRIES + 1 : count;
    List<Entry> found = stream.range(from, to, cap, reverse);
    ResultBudget budget = new ResultBudget(what);
    for (Entry e : found) {
      for (byte[] f : e.fields()) {
        budget.add(f.length);
      }
    }
    if (found.size() > MAX_ENTRIES) {
      throw budget.refuse();
    }
    return found;
  }

  /**
   * Entries as XRANGE answers them; one read from a pending list but deleted, as its id and nil.
   */
  static void entries(ReplyWriter out, List<Entry> entries) {
    out.array(entries.size());
    for (Entry e : entries) {
      entry(out, e);
    }
  }

  /** One entry: its id and its fields, or nil for fields a deleted entry no longer has. */
  static void entry(ReplyWriter out, Entry e) {
    out.array(2);
    out.bulk(e.id().toString());
    if (e.fields() == null) {
      out.nullArray();
    } else {
      out.array(e.fields().size());
      e.fields().forEach(out::bulk);
    }
  }

  /** XREAD's and XREADGROUP's reply: per stream, its key and entries (a map in RESP3). */
  static void perStream(ReplyWriter out, List<byte[]> keys, List<List<Entry>> found) {
    if (out.protocol() == 3) {
      out.map(keys.size());
    } else {
      out.array(keys.size());
    }
    for (int k = 0; k < keys.size(); k++) {
      if (out.protocol() != 3) {
        out.array(2);
      }
      out.bulk(keys.get(k));
      entries(out, found.get(k));
    }
  }

  static void xdel(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      StreamEntries stream = open(edits, r.bytes(1));
      if (!stream.exists()) {
        out.integer(0); // before the ids are read, as Redis does
        return;
      }
      List<StreamId> ids = new ArrayList<>();
      for (int i = 2; i < r.argc(); i++) {
        StreamId id = parseId(r.string(i), 0);
        if (id == null) {
          throw INVALID_ID;
        }
        ids.add(id);
      }
      long deleted = 0;
      for (StreamId id : ids) {
        if (stream.exists() && stream.delete(id)) {
          deleted++;
        }
      }
      stream.finish();
      edits.commit();
      if (deleted > 0) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.STREAM, "xdel", r, 1);
      }
      out.integer(deleted);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void xtrim(Session s, Request r, ReplyWriter out) {
    if (!r.is(2, "maxlen") && !r.is(2, "minid")) {
      throw CommandError.SYNTAX;
    }
    Trim[] trim = new Trim[1];
    int end = parseTrim(r, 2, trim);
    if (end != r.argc()) {
      throw CommandError.SYNTAX;
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      ElementEdits edits = server.edits();
      StreamEntries stream = open(edits, r.bytes(1));
      long removed = stream.exists() ? trim[0].apply(stream) : 0;
      stream.finish();
      edits.commit();
      if (removed > 0) {
        KeyspaceEvents.notify(server, KeyspaceEventFlags.STREAM, "xtrim", r, 1);
      }
      out.integer(removed);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /** XREAD's and XREADGROUP's options before STREAMS. */
  record ReadOptions(long count, long block, boolean noAck, int streams) {}

  /** Parses the options from argument {@code i} up to STREAMS; NOACK only for a group read. */
  static ReadOptions readOptions(Session s, Request r, int i, boolean group) {
    long count = -1;
    long block = -1;
    boolean noAck = false;
    while (i < r.argc() && !r.is(i, "streams")) {
      if (r.is(i, "count") && i + 1 < r.argc()) {
        if (!r.isLong(i + 1)) {
          throw CommandError.NOT_INTEGER;
        }
        count = r.longValue(i + 1) <= 0 ? -1 : r.longValue(i + 1);
        i += 2;
      } else if (r.is(i, "block") && i + 1 < r.argc()) {
        if (s.script()) {
          throw new CommandError(
              "ERR " + r.string(0) + " command is not allowed with BLOCK option from scripts");
        }
        if (!r.isLong(i + 1)) {
          throw new CommandError("ERR timeout is not an integer or out of range");
        }
        if (r.longValue(i + 1) < 0) {
          throw new CommandError("ERR timeout is negative");
        }
        block = r.longValue(i + 1);
        i += 2;
      } else if (group && r.is(i, "noack")) {
        noAck = true;
        i++;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    return new ReadOptions(count, block, noAck, i);
  }

  static void xread(Session s, Request r, ReplyWriter out) {
    ReadOptions options = readOptions(s, r, 1, false);
    long count = options.count();
    long block = options.block();
    int i = options.streams();
    int rest = r.argc() - i - 1;
    if (i >= r.argc() || rest <= 0 || rest % 2 != 0) {
      throw new CommandError(
          "ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be"
              + " specified.");
    }
    int n = rest / 2;
    List<byte[]> keys = new ArrayList<>(n);
    List<StreamId> after = new ArrayList<>(n);
    ServerContext server = s.server();
    for (int k = 0; k < n; k++) {
      byte[] key = r.bytes(i + 1 + k);
      keys.add(key);
      String idText = r.string(i + 1 + n + k);
      if (idText.equals("$")) {
        StreamEntries stream = open(server.edits(), key);
        after.add(stream.exists() ? stream.info().last() : StreamId.ZERO);
      } else {
        StreamId id = parseId(idText, 0);
        if (id == null) {
          throw INVALID_ID;
        }
        after.add(id);
      }
    }
    long wanted = count;
    if (tryRead(s, out, keys, after, wanted)) {
      return;
    }
    if (block < 0 || server.inAtomicRun()) {
      out.nullArray();
      return;
    }
    int[] stripes = new int[n];
    for (int k = 0; k < n; k++) {
      stripes[k] = KeyLocks.stripe(keys.get(k), 0, keys.get(k).length);
    }
    int locked = server.locks().lockAll(stripes, stripes.length);
    try {
      // Checked again under the locks: an XADD between the read above and the wait is not lost.
      if (tryRead(s, out, keys, after, wanted)) {
        return;
      }
      server
          .blocked()
          .block(
              s,
              keys,
              block,
              new BlockedClients.Attempt() {
                @Override
                public boolean retry(ReplyWriter o) {
                  try {
                    return tryRead(s, o, keys, after, wanted);
                  } catch (CommandError e) {
                    if (e == CommandError.WRONG_TYPE) {
                      return false; // as Redis: a key of another type does not serve XREAD
                    }
                    o.error(e.getMessage());
                    return true;
                  }
                }

                @Override
                public void timedOut(ReplyWriter o) {
                  o.nullArray();
                }
              });
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  /** Answers the entries after each key's id, if any key has some; false if none has. */
  private static boolean tryRead(
      Session s, ReplyWriter out, List<byte[]> keys, List<StreamId> after, long count) {
    List<byte[]> withData = new ArrayList<>();
    List<List<Entry>> found = new ArrayList<>();
    for (int k = 0; k < keys.size(); k++) {
      StreamEntries stream = open(s.server().edits(), keys.get(k));
      if (!stream.exists() || after.get(k).equals(StreamId.MAX)) {
        continue;
      }
      List<Entry> entries =
          bounded(stream, after.get(k).next(), StreamId.MAX, count, false, "XREAD");
      if (!entries.isEmpty()) {
        withData.add(keys.get(k));
        found.add(entries);
      }
    }
    if (withData.isEmpty()) {
      return false;
    }
    perStream(out, withData, found);
    return true;
  }
}
