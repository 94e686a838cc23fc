package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;

import dev.cellar.Cellar;
import dev.cellar.server.collection.CollectionDescriptor;
import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.Header;
import dev.cellar.server.collection.ListItems;
import dev.cellar.server.collection.Members;
import dev.cellar.server.collection.SortedMembers;
import dev.cellar.server.config.KeyspaceEventFlags;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code DUMP} and {@code RESTORE} in Redis's payload format ({@link DumpPayload}), so that tools
 * that move keys between servers (and {@code MIGRATE}-less scripts that DUMP from one and RESTORE
 * into the other) work with Cellar on either side.
 */
final class DumpCommands {
  private DumpCommands() {}

  static void register(CommandTable t) {
    t.add(
            "dump",
            2,
            "readonly",
            1,
            1,
            1,
            "generic",
            "Returns a serialized representation of the value stored at a key.",
            DumpCommands::dump)
        .add(
            "restore",
            -4,
            "write denyoom",
            1,
            1,
            1,
            "generic",
            "Creates a key from the serialized representation of a value.",
            DumpCommands::restore);
  }

  static void dump(Session s, Request r, ReplyWriter out) {
    Dumped dumped = dumpOf(s.server().store(), r.bytes(1));
    if (dumped == null) {
      out.nullBulk();
    } else {
      out.bulk(dumped.payload());
    }
  }

  /** A key's DUMP payload and its expiry (epoch ms, {@link Cellar#NO_EXPIRY} for none). */
  record Dumped(byte[] payload, long expireAt) {}

  /** The key's payload in Redis's DUMP format, or null if it does not exist. */
  static Dumped dumpOf(Cellar store, byte[] k) {
    MemorySegment key = MemorySegment.ofArray(k);
    Values.AnyCurrent current = Values.anyCurrent(store, key);
    if (current == null) {
      return null;
    }
    if (!current.header()) {
      return new Dumped(DumpPayload.string(current.value()), current.expireAt());
    }
    Header h = CollectionDescriptor.decodeHeader(MemorySegment.ofArray(current.value()));
    ResultBudget budget = new ResultBudget("DUMP");
    budget.reserve(h.count(), 16);
    ElementEdits edits = new ElementEdits(store);
    List<byte[]> items = new ArrayList<>();
    byte[] payload =
        switch (h.type()) {
          case CollectionDescriptor.LIST -> {
            ListItems list = new ListItems(edits, k, h, current.expireAt());
            for (long p = 0; p < list.count(); p++) {
              items.add(list.get(p));
            }
            yield DumpPayload.items(DumpPayload.LIST, items);
          }
          case CollectionDescriptor.SET, CollectionDescriptor.HASH -> {
            Members m = new Members(edits, k, h.type(), h, current.expireAt());
            for (long slot = 0; slot < m.count(); slot++) {
              byte[] member = m.memberAt(slot);
              items.add(member);
              if (h.type() == CollectionDescriptor.HASH) {
                items.add(m.payload(member));
              }
            }
            yield DumpPayload.items(
                h.type() == CollectionDescriptor.HASH ? DumpPayload.HASH : DumpPayload.SET, items);
          }
          case CollectionDescriptor.ZSET -> {
            SortedMembers z = new SortedMembers(edits, k, h, current.expireAt());
            List<Double> scores = new ArrayList<>();
            z.range(
                0,
                z.count() - 1,
                false,
                e -> {
                  items.add(e.member());
                  scores.add(e.score());
                });
            yield DumpPayload.sortedSet(items, scores);
          }
          default -> StreamDump.of(edits, k, h, current.expireAt()).write();
        };
    return new Dumped(payload, current.expireAt());
  }

  static void restore(Session s, Request r, ReplyWriter out) {
    if (!r.isLong(2)) {
      throw CommandError.NOT_INTEGER;
    }
    long ttl = r.longValue(2);
    boolean replace = false;
    boolean absolute = false;
    long idleSeconds = -1;
    long frequency = -1;
    for (int i = 4; i < r.argc(); i++) {
      if (r.is(i, "replace")) {
        replace = true;
      } else if (r.is(i, "absttl")) {
        absolute = true;
      } else if ((r.is(i, "idletime") || r.is(i, "freq")) && i + 1 < r.argc()) {
        if (!r.isLong(i + 1)) {
          throw CommandError.NOT_INTEGER;
        }
        if (r.is(i, "idletime") && r.longValue(i + 1) < 0) {
          throw new CommandError("ERR Invalid IDLETIME value, must be >= 0");
        }
        if (r.is(i, "freq") && (r.longValue(i + 1) < 0 || r.longValue(i + 1) > 255)) {
          throw new CommandError("ERR Invalid FREQ value, must be >= 0 and <= 255");
        }
        if (r.is(i, "idletime")) {
          idleSeconds = r.longValue(i + 1);
        } else {
          frequency = r.longValue(i + 1);
        }
        i++;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    if (ttl < 0) {
      throw new CommandError("ERR Invalid TTL value, must be >= 0");
    }
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      Cellar store = server.store();
      byte[] key = r.bytes(1);
      boolean exists = store.expiryOf(MemorySegment.ofArray(key)) != Cellar.ABSENT;
      if (exists && !replace) {
        throw new CommandError("BUSYKEY Target key name already exists.");
      }
      DumpPayload.Value v = DumpPayload.read(r.bytes(3));
      long expireAt =
          ttl == 0 ? Cellar.NO_EXPIRY : absolute ? ttl : Math.addExact(ttl, Values.now());
      if (expireAt != Cellar.NO_EXPIRY && expireAt <= Values.now()) {
        // Already expired: nothing is created, and what was there goes, as in Redis.
        if (exists) {
          store.delete(key);
        }
        out.ok();
        return;
      }
      write(server, key, v, expireAt);
      restoreAccess(server, key, idleSeconds, frequency);
      KeyspaceEvents.written(server, r, 1, !exists, KeyspaceEventFlags.GENERIC, "restore");
      ListCommands.added(server, key);
      out.ok();
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /**
   * What Redis's {@code objectSetLRUOrLFU} does on a restore: under an LFU policy {@code FREQ} sets
   * the key's use count; under an LRU one {@code IDLETIME} dates its last use (the other is
   * ignored). Access is tracked under those policies only, so under the others both are ignored.
   */
  private static void restoreAccess(
      ServerContext server, byte[] key, long idleSeconds, long frequency) {
    ServerConfig.EvictionPolicy policy = server.config().evictionPolicy();
    if (policy.lfu() && frequency >= 0) {
      server.accessTracker().restoreFrequency(key, (int) frequency);
    } else if (policy.lru() && idleSeconds >= 0) {
      server
          .accessTracker()
          .restoreIdle(key, Math.min(idleSeconds, AccessTracker.MAX_IDLE_MILLIS / 1000) * 1000);
    }
  }

  private static void write(ServerContext server, byte[] key, DumpPayload.Value v, long expireAt) {
    Cellar store = server.store();
    if (v.type() == DumpPayload.STRING) {
      store.put(MemorySegment.ofArray(key), MemorySegment.ofArray(v.string()), expireAt);
      return;
    }
    ElementEdits edits = new ElementEdits(store, server.config().packLimits());
    if (v.stream() != null) {
      StreamDump.restore(edits, server.collectionIds(), key, v.stream(), expireAt);
      edits.commit();
      return;
    }
    if (v.items().isEmpty()) {
      throw DumpPayload.BAD_DATA;
    }
    switch (v.type()) {
      case DumpPayload.LIST -> {
        ListItems list = new ListItems(edits, key, null, expireAt);
        for (byte[] item : v.items()) {
          list.pushRight(item, server.collectionIds());
        }
        list.finishWithExpiry(expireAt);
      }
      case DumpPayload.SET -> {
        Members set = new Members(edits, key, CollectionDescriptor.SET, null, expireAt);
        for (byte[] item : v.items()) {
          set.put(item, new byte[0], server.collectionIds());
        }
        set.finishWithExpiry(expireAt);
      }
      case DumpPayload.HASH -> {
        Members hash = new Members(edits, key, CollectionDescriptor.HASH, null, expireAt);
        for (int i = 0; i + 1 < v.items().size(); i += 2) {
          hash.put(v.items().get(i), v.items().get(i + 1), server.collectionIds());
        }
        hash.finishWithExpiry(expireAt);
      }
      default -> {
        SortedMembers z = new SortedMembers(edits, key, null, expireAt);
        for (int i = 0; i < v.items().size(); i++) {
          if (Double.isNaN(v.scores().get(i))) {
            throw DumpPayload.BAD_DATA;
          }
          z.put(v.items().get(i), v.scores().get(i), server.collectionIds());
        }
        z.finishWithExpiry(expireAt);
      }
    }
    edits.commit();
  }
}
