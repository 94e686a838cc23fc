package dev.cellar.server.command;

import dev.cellar.server.collection.CollectionDescriptor;
import dev.cellar.server.collection.ElementEdits;
import dev.cellar.server.collection.Header;
import dev.cellar.server.collection.ListItems;
import dev.cellar.server.collection.Members;
import dev.cellar.server.collection.PackLimits;
import dev.cellar.server.collection.RedisForms;
import dev.cellar.server.config.ServerConfig.EvictionPolicy;
import dev.cellar.server.resp.Numbers;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.Locale;

/**
 * {@code OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT|HELP}: what Redis says of a key's value, with its
 * replies and errors. A missing key answers nil.
 *
 * <ul>
 *   <li>{@code ENCODING}: strings only here, named as Redis names them from the value: {@code int}
 *       (a canonical 64-bit decimal of at most 20 characters), {@code embstr} (at most 44 bytes),
 *       else {@code raw}; and {@code raw}, as Redis, for a string a command modified in place
 *       ({@code APPEND}, {@code SETRANGE}...) until another write replaces it ({@link RawStrings}).
 *   <li>{@code FREQ} and {@code IDLETIME}: from the {@link AccessTracker}, under an LFU or an LRU
 *       {@code maxmemory-policy} respectively, with Redis's errors for the other kind. Redis keeps
 *       idle times under every policy but LFU; Cellar keeps them only while an LRU policy is in
 *       effect (tracking costs every command a few memory writes), and says so.
 *   <li>{@code REFCOUNT}: 1, or Redis's 2147483647 for the integers 0 to 9999 it shares (unless an
 *       LRU or LFU policy with a limit stops it sharing them).
 * </ul>
 */
final class ObjectCommand {
  private ObjectCommand() {}

  private static final String SWITCHING =
      " Please note that when switching between policies at runtime LRU and LFU data will take"
          + " some time to adjust.";

  static void register(CommandTable t) {
    t.add(
        "object",
        -2,
        "",
        0,
        0,
        0,
        "generic",
        "A container for object introspection commands.",
        ObjectCommand::run);
  }

  static void run(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(Locale.ROOT);
    s.subcommand("object", sub);
    if (sub.equals("help")) {
      help(out);
      return;
    }
    if (!java.util.List.of("encoding", "freq", "idletime", "refcount").contains(sub)) {
      throw new CommandError("ERR unknown subcommand '" + r.string(1) + "'. Try OBJECT HELP.");
    }
    if (r.argc() != 3) {
      throw CommandError.arity("object|" + sub);
    }
    ServerContext server = s.server();
    Values.AnyCurrent current = Values.anyCurrent(server.store(), r.segment(2));
    if (current == null) {
      out.nullBulk();
      return;
    }
    byte[] value = current.value();
    EvictionPolicy policy = server.config().evictionPolicy();
    switch (sub) {
      case "encoding" -> {
        if (!current.header()) {
          out.bulk(server.rawStrings().isRaw(server, r.bytes(2)) ? "raw" : encoding(value));
          return;
        }
        int stripe = Values.stripe(r, 2);
        server.locks().lock(stripe);
        try {
          out.bulk(collectionEncoding(server, r.bytes(2), value));
        } finally {
          server.locks().unlock(stripe);
        }
      }
      case "refcount" ->
          out.integer(!current.header() && shared(value, policy, server) ? Integer.MAX_VALUE : 1);
      case "freq" -> {
        if (!policy.lfu()) {
          throw new CommandError(
              "ERR An LFU maxmemory policy is not selected, access frequency not tracked."
                  + SWITCHING);
        }
        out.integer(server.accessTracker().frequency(r.bytes(2)));
      }
      default -> {
        if (policy.lfu()) {
          throw new CommandError(
              "ERR An LFU maxmemory policy is selected, idle time not tracked." + SWITCHING);
        }
        if (!policy.lru()) {
          throw new CommandError(
              "ERR idle time is not tracked: OBJECT IDLETIME needs maxmemory-policy allkeys-lru or"
                  + " volatile-lru (Cellar keeps access times only then)");
        }
        out.integer(server.accessTracker().idleMillis(r.bytes(2)) / 1000);
      }
    }
  }

  /**
   * What Redis 7.2 would call a collection's encoding under the server's thresholds ({@code
   * hash-max-listpack-entries} and the rest, {@link PackLimits}), from the form Cellar keeps it in
   * (docs/format/collections.md). A collection packs only while Redis would keep it a listpack
   * (Cellar spreads it at the lower of Redis's threshold and its own 128 members of 64 bytes), and
   * as in Redis the forms change one way only. So a packed sorted set is Redis's {@code listpack},
   * a spread one a {@code skiplist} unless its header says Redis's thresholds lie beyond it ({@link
   * RedisForms#zsetListpack}). A set is an {@code intset} while it has at most {@code
   * set-max-intset-entries} members, all integers; once it held a string, a {@code listpack} or a
   * {@code hashtable}, as its header records Redis's conversions ({@link RedisForms#setForm}). A
   * hash stays a {@code listpack} in Redis up to 512 fields by default, past Cellar's 128, so a
   * spread hash's header says whether Redis would have converted it ({@link RedisForms#hashTable}).
   * A list is a {@code listpack} while its elements, measured as Redis encodes them ({@link
   * Listpack#entryBytes}), would fit one listpack node under {@code list-max-listpack-size}, else a
   * {@code quicklist}. Where Redis's answer depends on history Cellar does not keep (a list that
   * shrank back below the limit, where Redis converts back only under half of it) this gives the
   * answer for a collection built as it now is. Reads at most {@code set-max-intset-entries}
   * members or a list's first entries up to its limit.
   */
  static String collectionEncoding(ServerContext server, byte[] key, byte[] headerBytes) {
    Header h =
        CollectionDescriptor.decodeHeader(java.lang.foreign.MemorySegment.ofArray(headerBytes));
    boolean packed = h.items() != null;
    ElementEdits edits = server.edits();
    PackLimits limits = edits.limits();
    return switch (h.type()) {
      case CollectionDescriptor.LIST -> listEncoding(CollectionKeys.list(edits, key), limits);
      case CollectionDescriptor.ZSET ->
          packed || RedisForms.zsetListpack(h) ? "listpack" : "skiplist";
      case CollectionDescriptor.STREAM -> "stream";
      case CollectionDescriptor.SET ->
          switch (RedisForms.setForm(h)) {
            case RedisForms.SET_HASHTABLE -> "hashtable";
            case RedisForms.SET_LISTPACK -> "listpack";
            // An intset, unless written before sets recorded their form.
            default ->
                allIntegers(
                        CollectionKeys.members(edits, key, CollectionDescriptor.SET),
                        limits.setIntsetEntries())
                    ? "intset"
                    : packed ? "listpack" : "hashtable";
          };
      default -> !packed && RedisForms.hashTable(h) ? "hashtable" : "listpack";
    };
  }

  private static boolean allIntegers(Members set, long intsetMax) {
    if (set.count() > intsetMax) {
      return false;
    }
    for (long slot = 0; slot < set.count(); slot++) {
      byte[] m = set.memberAt(slot);
      if (m.length > 20 || !Numbers.isLong(m, 0, m.length)) {
        return false;
      }
    }
    return true;
  }

  private static String listEncoding(ListItems list, PackLimits limits) {
    long count = list.count();
    long bytes = Listpack.EMPTY_BYTES;
    // Each entry takes at least 2 bytes: a list too long even so is a quicklist without reading it,
    // and the reading stops as soon as the bytes pass the limit.
    if (!limits.listFits(bytes + 2 * count, count)) {
      return "quicklist";
    }
    for (long p = 0; p < count; p++) {
      bytes += Listpack.entryBytes(list.get(p));
      if (!limits.listFits(bytes, count)) {
        return "quicklist";
      }
    }
    return "listpack";
  }

  static String encoding(byte[] value) {
    if (value.length <= 20 && Numbers.isLong(value, 0, value.length)) {
      return "int";
    }
    return value.length <= 44 ? "embstr" : "raw";
  }

  private static boolean shared(byte[] value, EvictionPolicy policy, ServerContext server) {
    if (!encoding(value).equals("int")) {
      return false;
    }
    long n = Numbers.parseLong(value, 0, value.length);
    boolean noSharing = server.config().maxMemory() != 0 && (policy.lru() || policy.lfu());
    return n >= 0 && n < 10_000 && !noSharing;
  }

  private static void help(ReplyWriter out) {
    String[] lines = {
      "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned integer is",
      "    proportional to the logarithm of the recent access frequency of the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.",
      "HELP",
      "    Print this help."
    };
    out.simpleLines(lines);
  }
}
