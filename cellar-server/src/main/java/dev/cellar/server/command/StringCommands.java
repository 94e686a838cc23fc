package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;
import static dev.cellar.server.config.KeyspaceEventFlags.GENERIC;
import static dev.cellar.server.config.KeyspaceEventFlags.NEW;
import static dev.cellar.server.config.KeyspaceEventFlags.STRING;

import dev.cellar.Cellar;
import dev.cellar.server.resp.Numbers;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/** Redis's string commands over the engine, with Redis's replies and errors. */
final class StringCommands {
  private StringCommands() {}

  static void register(CommandTable t) {
    t.add(
            "get",
            2,
            "readonly fast",
            1,
            1,
            1,
            "string",
            "Returns the string value of a key.",
            StringCommands::get)
        .add(
            "set",
            -3,
            "write denyoom",
            1,
            1,
            1,
            "string",
            "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
            StringCommands::set)
        .add(
            "setnx",
            3,
            "write denyoom fast",
            1,
            1,
            1,
            "string",
            "Set the string value of a key only when the key doesn't exist.",
            StringCommands::setnx)
        .add(
            "setex",
            4,
            "write denyoom",
            1,
            1,
            1,
            "string",
            "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.",
            (s, r, o) -> setex(s, r, o, 1000, "setex"))
        .add(
            "psetex",
            4,
            "write denyoom",
            1,
            1,
            1,
            "string",
            "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.",
            (s, r, o) -> setex(s, r, o, 1, "psetex"))
        .add(
            "getset",
            3,
            "write denyoom fast",
            1,
            1,
            1,
            "string",
            "Returns the previous string value of a key after setting it to a new value.",
            StringCommands::getset)
        .add(
            "getdel",
            2,
            "write fast",
            1,
            1,
            1,
            "string",
            "Returns the string value of a key after deleting the key.",
            StringCommands::getdel)
        .add(
            "getex",
            -2,
            "write fast",
            1,
            1,
            1,
            "string",
            "Returns the string value of a key after setting its expiration time.",
            StringCommands::getex)
        .add(
            "mget",
            -2,
            "readonly fast",
            1,
            -1,
            1,
            "string",
            "Atomically returns the string values of one or more keys.",
            StringCommands::mget)
        .add(
            "mset",
            -3,
            "write denyoom",
            1,
            -1,
            2,
            "string",
            "Atomically creates or modifies the string values of one or more keys.",
            (s, r, o) -> mset(s, r, o, false))
        .add(
            "msetnx",
            -3,
            "write denyoom",
            1,
            -1,
            2,
            "string",
            "Atomically modifies the string values of one or more keys only when all keys don't exist.",
            (s, r, o) -> mset(s, r, o, true))
        .add(
            "append",
            3,
            "write denyoom fast",
            1,
            1,
            1,
            "string",
            "Appends a string to the value of a key. Creates the key if it doesn't exist.",
            StringCommands::append)
        .add(
            "strlen",
            2,
            "readonly fast",
            1,
            1,
            1,
            "string",
            "Returns the length of a string value.",
            StringCommands::strlen)
        .add(
            "getrange",
            4,
            "readonly",
            1,
            1,
            1,
            "string",
            "Returns a substring of the string stored at a key.",
            StringCommands::getrange)
        // Redis keeps SUBSTR, GETRANGE's name before 2.0, as a deprecated alias.
        .add(
            "substr",
            4,
            "readonly",
            1,
            1,
            1,
            "string",
            "Returns a substring from a string value.",
            StringCommands::getrange)
        .add(
            "setrange",
            4,
            "write denyoom",
            1,
            1,
            1,
            "string",
            "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.",
            StringCommands::setrange)
        .add(
            "incr",
            2,
            "write denyoom fast",
            1,
            1,
            1,
            "string",
            "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
            (s, r, o) -> incr(s, r, o, 1))
        .add(
            "decr",
            2,
            "write denyoom fast",
            1,
            1,
            1,
            "string",
            "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
            (s, r, o) -> incr(s, r, o, -1))
        .add(
            "incrby",
            3,
            "write denyoom fast",
            1,
            1,
            1,
            "string",
            "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
            (s, r, o) -> incrBy(s, r, o, false))
        .add(
            "decrby",
            3,
            "write denyoom fast",
            1,
            1,
            1,
            "string",
            "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.",
            (s, r, o) -> incrBy(s, r, o, true))
        .add(
            "incrbyfloat",
            3,
            "write denyoom fast",
            1,
            1,
            1,
            "string",
            "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
            StringCommands::incrByFloat);
  }

  // ------------------------------------------------------------------ GET / SET: the hot path

  static void get(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    // The reader writes the value straight from the log into the reply buffer: no copy on the heap.
    if (!server.store().read(r.input(), r.offset(1), r.length(1), s.bulkReply)) {
      if (server.collectionIds().used()) {
        Values.absentOrWrongType(server.store(), r.segment(1));
      }
      out.nullBulk();
      server.stats().keyspaceMisses.increment();
      KeyspaceEvents.miss(server, r, 1);
    } else {
      server.stats().keyspaceHits.increment();
    }
  }

  private static final int NX = 1;
  private static final int XX = 2;
  private static final int GET = 4;
  private static final int KEEPTTL = 8;
  private static final int EXPIRY = 16;

  static void set(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    Cellar store = server.store();
    if (r.argc() == 3) {
      int stripe = stripe(r, 1);
      server.locks().lock(stripe);
      try {
        boolean created = KeyspaceEvents.absentBefore(server, r, 1);
        put(store, r, Cellar.NO_EXPIRY);
        written(server, r, created, "set");
      } finally {
        server.locks().unlock(stripe);
      }
      out.ok();
      return;
    }
    int flags = 0;
    int expiryOption = 0; // index of the EX/PX/EXAT/PXAT that counts (the last), 0 for none
    for (int i = 3; i < r.argc(); i++) {
      if (r.is(i, "nx") && (flags & XX) == 0) {
        flags |= NX;
      } else if (r.is(i, "xx") && (flags & NX) == 0) {
        flags |= XX;
      } else if (r.is(i, "get")) {
        flags |= GET;
      } else if (r.is(i, "keepttl") && (flags & EXPIRY) == 0) {
        flags |= KEEPTTL;
      } else if ((flags & KEEPTTL) == 0 && isExpiryOption(r, i, expiryOption)) {
        expiryOption = i;
        i++;
        flags |= EXPIRY;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    long expireAt = expiryOption == 0 ? Cellar.NO_EXPIRY : expiryOption(r, expiryOption, "set");
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      boolean looked = (flags & (NX | XX | GET | KEEPTTL)) != 0;
      // SET replaces a key of any type; only its GET form reads the old value as a string.
      Values.AnyCurrent current = looked ? Values.anyCurrent(store, r.segment(1)) : null;
      if (current != null && current.header() && (flags & GET) != 0) {
        throw CommandError.WRONG_TYPE;
      }
      boolean exists = current != null;
      if (!exists && (flags & GET) != 0) {
        KeyspaceEvents.miss(server, r, 1); // SET ... GET reads the old value as GET does
      }
      boolean write = !((flags & NX) != 0 && exists) && !((flags & XX) != 0 && !exists);
      if (write) {
        boolean created = looked ? !exists : KeyspaceEvents.absentBefore(server, r, 1);
        put(store, r, (flags & KEEPTTL) != 0 && exists ? current.expireAt() : expireAt);
        written(server, r, created, "set");
        if (expiryOption != 0) {
          KeyspaceEvents.notify(server, GENERIC, "expire", r, 1);
        }
      }
      if ((flags & GET) != 0) {
        if (exists) {
          out.bulk(current.value());
        } else {
          out.nullBulk();
        }
      } else if (write) {
        out.ok();
      } else {
        out.nullBulk();
      }
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /** {@link KeyspaceEvents#written} for the string event {@code event} on argument 1. */
  private static void written(ServerContext server, Request r, boolean created, String event) {
    KeyspaceEvents.written(server, r, 1, created, STRING, event);
  }

  /** Stores argument 2 under argument 1, handing the engine ranges of the input: no allocation. */
  private static void put(Cellar store, Request r, long expireAt) {
    store.put(r.input(), r.offset(1), r.length(1), r.input(), r.offset(2), r.length(2), expireAt);
  }

  /**
   * Whether argument {@code i} is an expiry option with a value after it that may follow the one at
   * {@code previous} (0: none). As in Redis, the same option may repeat (the last one counts), but
   * two different ones are a syntax error.
   */
  static boolean isExpiryOption(Request r, int i, int previous) {
    if (i + 1 >= r.argc()
        || !(r.is(i, "ex") || r.is(i, "px") || r.is(i, "exat") || r.is(i, "pxat"))) {
      return false;
    }
    return previous == 0 || r.is(i, r.string(previous).toLowerCase(java.util.Locale.ROOT));
  }

  /**
   * The absolute expiry (epoch ms) an {@code EX/PX/EXAT/PXAT n} option at {@code i} names; Redis
   * refuses non-positive times and ones that overflow.
   */
  static long expiryOption(Request r, int i, String command) {
    if (!r.isLong(i + 1)) {
      throw CommandError.NOT_INTEGER;
    }
    long n = r.longValue(i + 1);
    if (n <= 0) {
      throw CommandError.invalidExpire(command);
    }
    boolean seconds = r.is(i, "ex") || r.is(i, "exat");
    boolean relative = r.is(i, "ex") || r.is(i, "px");
    try {
      long ms = seconds ? Math.multiplyExact(n, 1000L) : n;
      return relative ? Math.addExact(ms, Values.now()) : ms;
    } catch (ArithmeticException e) {
      throw CommandError.invalidExpire(command);
    }
  }

  static void setnx(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      if (server.store().expiryOf(key) != Cellar.ABSENT) {
        out.integer(0);
        return;
      }
      server.store().put(key, r.segment(2), Cellar.NO_EXPIRY);
      written(server, r, true, "set");
      out.integer(1);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void setex(Session s, Request r, ReplyWriter out, long unitMillis, String command) {
    if (!r.isLong(2)) {
      throw CommandError.NOT_INTEGER;
    }
    long n = r.longValue(2);
    if (n <= 0) {
      throw CommandError.invalidExpire(command);
    }
    long expireAt;
    try {
      expireAt = Math.addExact(Math.multiplyExact(n, unitMillis), Values.now());
    } catch (ArithmeticException e) {
      throw CommandError.invalidExpire(command);
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      boolean created = KeyspaceEvents.absentBefore(server, r, 1);
      server.store().put(r.segment(1), r.segment(3), expireAt);
      written(server, r, created, "set");
      KeyspaceEvents.notify(server, GENERIC, "expire", r, 1);
    } finally {
      server.locks().unlock(stripe);
    }
    out.ok();
  }

  static void getset(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      byte[] old = Values.get(server.store(), key);
      if (old == null) {
        KeyspaceEvents.miss(server, r, 1);
      }
      server.store().put(key, r.segment(2), Cellar.NO_EXPIRY);
      written(server, r, old == null, "set");
      bulkOrNull(out, old);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void getdel(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      byte[] old = Values.get(server.store(), key);
      if (old != null) {
        server.store().delete(key);
        KeyspaceEvents.notify(server, GENERIC, "del", r, 1);
      } else {
        KeyspaceEvents.miss(server, r, 1);
      }
      bulkOrNull(out, old);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void getex(Session s, Request r, ReplyWriter out) {
    // Redis checks the options' syntax first, but the expiry's value only once it has found the
    // key: GETEX on a missing key answers nil even for EX 0.
    int expiryOption = 0; // index of EX/PX/EXAT/PXAT, 0 for none
    boolean persist = false;
    for (int i = 2; i < r.argc(); i++) {
      if (!persist && isExpiryOption(r, i, expiryOption)) {
        expiryOption = i;
        i++;
      } else if (expiryOption == 0 && r.is(i, "persist")) {
        persist = true;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.Current current = Values.current(server.store(), key);
      if (current == null) {
        KeyspaceEvents.miss(server, r, 1);
        out.nullBulk();
        return;
      }
      if (expiryOption != 0) {
        long expireAt = expiryOption(r, expiryOption, "getex");
        if (expireAt <= Values.now()) {
          server.store().delete(key); // an expiry in the past deletes, as in Redis
          KeyspaceEvents.notify(server, GENERIC, "del", r, 1);
        } else {
          server.store().put(key, MemorySegment.ofArray(current.value()), expireAt);
          KeyspaceEvents.notify(server, GENERIC, "expire", r, 1);
        }
      } else if (persist && current.expireAt() != Cellar.NO_EXPIRY) {
        server.store().put(key, MemorySegment.ofArray(current.value()), Cellar.NO_EXPIRY);
        KeyspaceEvents.notify(server, GENERIC, "persist", r, 1);
      }
      out.bulk(current.value());
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void mget(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int mark = out.size();
    // Read again if a transaction committed meanwhile: MGET sees it whole or not at all.
    for (long seen = server.commits().quiet(); ; seen = server.commits().quiet()) {
      s.multiGetReply.write(server.store(), r, out, server.stats(), s.bulkReply);
      if (server.commits().unchanged(seen)) {
        break;
      }
      out.truncate(mark);
    }
    for (int i = 0; i < s.multiGetReply.misses(); i++) {
      KeyspaceEvents.miss(server, r, s.multiGetReply.missed(i) + 1);
    }
  }

  static void mset(Session s, Request r, ReplyWriter out, boolean onlyIfNoneExist) {
    if (r.argc() % 2 != 1) {
      throw CommandError.arity(onlyIfNoneExist ? "msetnx" : "mset");
    }
    ServerContext server = s.server();
    int keys = (r.argc() - 1) / 2;
    int[] stripes = new int[keys];
    for (int k = 0; k < keys; k++) {
      stripes[k] = stripe(r, 1 + 2 * k);
    }
    int locked = server.locks().lockAll(stripes, keys);
    try {
      if (onlyIfNoneExist) {
        for (int i = 1; i < r.argc(); i += 2) {
          if (server.store().expiryOf(r.segment(i)) != Cellar.ABSENT) {
            out.integer(0);
            return;
          }
        }
      }
      // One batch write: the keys' cache misses overlap, each shard is locked once, and under
      // appendfsync always the command waits for one group commit. Every key and value is checked
      // before any is written, so an oversized one fails the command with nothing set.
      boolean[] created = newKeys(server, r, keys);
      long[] keyOffsets = new long[keys];
      long[] keyLengths = new long[keys];
      long[] valueOffsets = new long[keys];
      long[] valueLengths = new long[keys];
      for (int k = 0; k < keys; k++) {
        keyOffsets[k] = r.offset(1 + 2 * k);
        keyLengths[k] = r.length(1 + 2 * k);
        valueOffsets[k] = r.offset(2 + 2 * k);
        valueLengths[k] = r.length(2 + 2 * k);
      }
      server
          .store()
          .putAll(
              r.input(),
              keyOffsets,
              keyLengths,
              valueOffsets,
              valueLengths,
              keys,
              Cellar.NO_EXPIRY);
      for (int k = 0; k < keys; k++) {
        if (created != null && created[k]) {
          KeyspaceEvents.notify(server, NEW, "new", r, 1 + 2 * k);
        }
        KeyspaceEvents.notify(server, STRING, "set", r, 1 + 2 * k);
      }
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
    if (onlyIfNoneExist) {
      out.integer(1);
    } else {
      out.ok();
    }
  }

  /**
   * For {@code new} events: which of MSET's keys it creates (absent before, and not named earlier
   * in the same command); null when {@code new} events are off.
   */
  private static boolean[] newKeys(ServerContext server, Request r, int keys) {
    if (!KeyspaceEvents.wants(server, NEW)) {
      return null;
    }
    boolean[] created = new boolean[keys];
    java.util.Set<java.nio.ByteBuffer> seen = new java.util.HashSet<>();
    for (int k = 0; k < keys; k++) {
      byte[] key = r.bytes(1 + 2 * k);
      created[k] =
          seen.add(java.nio.ByteBuffer.wrap(key))
              && server.store().expiryOf(r.segment(1 + 2 * k)) == Cellar.ABSENT;
    }
    return created;
  }

  static void append(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.Current current = Values.current(server.store(), key);
      int addLength = r.length(2);
      if (current == null) {
        checkSize(server, addLength);
        server.store().put(key, r.segment(2), Cellar.NO_EXPIRY);
        written(server, r, true, "append");
        out.integer(addLength);
        return;
      }
      long total = (long) current.value().length + addLength;
      checkSize(server, total);
      byte[] joined = java.util.Arrays.copyOf(current.value(), (int) total);
      System.arraycopy(r.buffer(), r.offset(2), joined, current.value().length, addLength);
      server.store().put(key, MemorySegment.ofArray(joined), current.expireAt());
      server.rawStrings().mark(server, r.bytes(1));
      written(server, r, false, "append");
      out.integer(total);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  private static void checkSize(ServerContext server, long length) {
    if (length > server.config().maxBulkLength()) {
      throw new CommandError("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    }
  }

  static void strlen(Session s, Request r, ReplyWriter out) {
    Integer length = s.server().store().read(r.segment(1), v -> (int) v.byteSize());
    if (length == null) {
      Values.absentOrWrongType(s.server().store(), r.segment(1));
      KeyspaceEvents.miss(s.server(), r, 1);
    }
    out.integer(length == null ? 0 : length);
  }

  static void getrange(Session s, Request r, ReplyWriter out) {
    if (!r.isLong(2) || !r.isLong(3)) {
      throw CommandError.NOT_INTEGER;
    }
    long start = r.longValue(2);
    long end = r.longValue(3);
    byte[] value = Values.get(s.server().store(), r.segment(1));
    if (value == null) {
      KeyspaceEvents.miss(s.server(), r, 1);
      out.bulk(new byte[0]);
      return;
    }
    long length = value.length;
    if (start < 0 && end < 0 && start > end) {
      out.bulk(new byte[0]);
      return;
    }
    if (start < 0) {
      start = length + start;
    }
    if (end < 0) {
      end = length + end;
    }
    if (start < 0) {
      start = 0;
    }
    if (end < 0) {
      end = 0;
    }
    if (end >= length) {
      end = length - 1;
    }
    if (start > end || length == 0) {
      out.bulk(new byte[0]);
      return;
    }
    out.bulk(value, (int) start, (int) (end - start + 1));
  }

  static void setrange(Session s, Request r, ReplyWriter out) {
    if (!r.isLong(2)) {
      throw CommandError.NOT_INTEGER;
    }
    long offset = r.longValue(2);
    if (offset < 0) {
      throw new CommandError("ERR offset is out of range");
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.Current current = Values.current(server.store(), key);
      int addLength = r.length(3);
      byte[] old = current == null ? new byte[0] : current.value();
      if (addLength == 0) {
        out.integer(old.length);
        return;
      }
      // offset + length may overflow a long: checked as Redis does, before adding.
      checkSize(server, offset > Long.MAX_VALUE - addLength ? Long.MAX_VALUE : offset + addLength);
      long total = Math.max(old.length, offset + addLength);
      byte[] joined = java.util.Arrays.copyOf(old, (int) total);
      System.arraycopy(r.buffer(), r.offset(3), joined, (int) offset, addLength);
      Values.rewrite(server.store(), key, joined, current);
      server.rawStrings().mark(server, r.bytes(1));
      written(server, r, current == null, "setrange");
      out.integer(total);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void incr(Session s, Request r, ReplyWriter out, long delta) {
    addInteger(s, r, out, delta);
  }

  static void incrBy(Session s, Request r, ReplyWriter out, boolean negate) {
    if (!r.isLong(2)) {
      throw CommandError.NOT_INTEGER;
    }
    long delta = r.longValue(2);
    if (negate) {
      if (delta == Long.MIN_VALUE) {
        throw new CommandError("ERR decrement would overflow");
      }
      delta = -delta;
    }
    addInteger(s, r, out, delta);
  }

  private static void addInteger(Session s, Request r, ReplyWriter out, long delta) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.Current current = Values.current(server.store(), key);
      long value = 0;
      if (current != null) {
        byte[] v = current.value();
        if (!Numbers.isLong(v, 0, v.length)) {
          throw CommandError.NOT_INTEGER;
        }
        value = Numbers.parseLong(v, 0, v.length);
      }
      long result;
      try {
        result = Math.addExact(value, delta);
      } catch (ArithmeticException e) {
        throw CommandError.OVERFLOW;
      }
      Values.rewrite(server.store(), key, Numbers.toBytes(result), current);
      written(server, r, current == null, "incrby");
      out.integer(result);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void incrByFloat(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.Current current = Values.current(server.store(), key);
      // Redis's order: the stored value's syntax, the increment's, then infinities and overflow.
      BigDecimal value = current == null ? BigDecimal.ZERO : LongDouble.parse(current.value());
      BigDecimal delta = LongDouble.parse(r.bytes(2));
      BigDecimal sum = value == null || delta == null ? null : LongDouble.round(value.add(delta));
      if (sum == null) {
        throw LongDouble.NAN_OR_INFINITY;
      }
      String text = LongDouble.format(sum);
      Values.rewrite(server.store(), key, text.getBytes(StandardCharsets.US_ASCII), current);
      written(server, r, current == null, "incrbyfloat");
      out.bulk(text);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void bulkOrNull(ReplyWriter out, byte[] value) {
    if (value == null) {
      out.nullBulk();
    } else {
      out.bulk(value);
    }
  }
}
